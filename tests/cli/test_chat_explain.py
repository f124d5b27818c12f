"""``dialogkit chat --explain``: under each reply, one dim line per decision of the turn."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIALOGKIT = ROOT / ".venv" / "bin" / "dialogkit"
SUPPORT = ROOT / "flows" / "support_ticket.yaml"


def chat(lines: list[str], cwd: Path, *options: str) -> str:
    result = subprocess.run(
        [str(DIALOGKIT), "chat", str(SUPPORT), "--store", "memory://", "--stub-actions", *options],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=cwd, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize(("lines", "why"), [
    (["我的手机坏了", "12345", "不对，是耳机", "确认"],
     ["intent_keyword → started report_issue (score ", "slot_offer → set order_id = 12345 (12345)",
      "correction → corrected product: phone → headphones (耳机)", "confirm → confirmed (确认)"]),
    (["my phone arrived broken", "12345", "no, it was the headphones", "yes"],
     ["intent_keyword → started report_issue (score ", "slot_offer → set order_id = 12345 (12345)",
      "correction → corrected product: phone → headphones (headphones)", "confirm → confirmed (yes)"]),
])
def test_explain_prints_each_decision_under_its_reply(tmp_path: Path, lines: list[str], why: list[str]) -> None:
    out = chat(lines, tmp_path, "--explain")
    shown = [line.strip() for line in out.splitlines()]
    for line in why:
        assert any(s.startswith(line) for s in shown), out
    # each under the reply of its own turn
    turns = out.split("you> ")[1:]
    assert [any(w in turn for w in why) for turn in turns] == [True] * len(lines)


def test_without_explain_no_decision_is_printed(tmp_path: Path) -> None:
    out = chat(["my phone arrived broken", "12345"], tmp_path)
    assert "→" not in out
