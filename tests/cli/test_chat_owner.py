"""``dialogkit chat --session S --user bob`` on Alice's session starts a fresh session instead of
joining hers (docs/cli.md): Bob never sees her values, nor does a chat that names no user."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIALOGKIT = ROOT / ".venv" / "bin" / "dialogkit"
SUPPORT = ROOT / "flows" / "support_ticket.yaml"


def chat(lines: list[str], store: str, user: str | None) -> str:
    named = ["--user", user] if user is not None else []
    result = subprocess.run(
        [str(DIALOGKIT), "chat", str(SUPPORT), "--store", store, "--session", "shared", *named],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.replace("\n", "")


def test_another_user_gets_a_fresh_session(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    chat(["my phone arrived broken, order 24680", "/exit"], store, "alice")
    out = chat(["my laptop is broken", "/state", "/exit"], store, "bob")
    assert "belongs to another user; new session chat-" in out
    assert "24680" not in out
    again = chat(["/state", "/exit"], store, "alice")
    assert "24680" in again


def test_a_chat_naming_no_user_gets_a_fresh_session_and_is_told_why(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    chat(["我的手机碎了，订单号 24680", "/exit"], store, "alice")
    out = chat(["我的笔记本坏了", "/state", "/exit"], store, None)
    assert "belongs to a user (name them with --user); new session chat-" in out
    assert "24680" not in out
