"""``dialogkit chat`` in-chat commands /stats, /context and /export, driven through a pipe (docs/context-window.md)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIALOGKIT = ROOT / ".venv" / "bin" / "dialogkit"
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
TURNS = {"zh": ["我上周买的手机屏幕碎了", "123456"], "en": ["my phone arrived broken", "123456"]}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def chat(lines: list[str], cwd: Path) -> str:
    result = subprocess.run(
        [str(DIALOGKIT), "chat", str(SUPPORT), "--store", "memory://", "--session", "pipe"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=cwd, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@LANGS
def test_stats_shows_both_tracks_savings_and_state(lang: str, tmp_path: Path) -> None:
    out = chat([*TURNS[lang], "/stats", "/exit"], tmp_path)
    for key in ("full_tokens:", "sent_tokens:", "saved_tokens:", "saved_pct:", "messages: 4", "summary_chars:",
                "state: CONFIRMATION", "flow: report_issue"):
        assert key in out
    assert "123456" in out.split("/stats", 1)[1]


@LANGS
def test_context_lists_the_messages_with_priorities(lang: str, tmp_path: Path) -> None:
    out = chat([*TURNS[lang], "/context", "/exit"], tmp_path)
    table = out.split("you> /context", 1)[1]
    assert "priority" in table and "tokens" in table
    assert "system" in table and "user" in table
    assert TURNS[lang][0] in table


@LANGS
def test_export_writes_each_message_then_the_savings_line(lang: str, tmp_path: Path) -> None:
    target = tmp_path / "out" / "context.txt"
    out = chat([*TURNS[lang], f"/export {target}", "/exit"], tmp_path)
    assert f"exported to {target}" in out.replace("\n", "")
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("1, system, 100, ")
    assert any(line.endswith(TURNS[lang][1]) and ", user, 100, " in line for line in lines)
    assert lines[-1].startswith("Token saved: ")


def test_export_without_a_file_says_how(tmp_path: Path) -> None:
    out = chat(["/export", "/exit"], tmp_path)
    assert "usage: /export FILE" in out
