"""``dialogkit chat`` in-chat commands /stats, /context and /export, driven through a pipe (docs/context-window.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import structlog

from dialogkit.cli.chat import run_chat

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
    target.parent.mkdir()          # /export never creates folders (a mistyped path is an error)
    out = chat([*TURNS[lang], f"/export {target}", "/exit"], tmp_path)
    assert f"exported to {target}" in out.replace("\n", "")
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("1, system, 100, ")
    assert any(line.endswith(TURNS[lang][1]) and ", user, 100, " in line for line in lines)
    assert lines[-1].startswith("Token saved: ")


def test_export_without_a_file_says_how(tmp_path: Path) -> None:
    out = chat(["/export", "/exit"], tmp_path)
    assert "usage: /export FILE" in out


# ---- --reload ----------------------------------------------------------------------------------

class ScriptedInput:
    """stdin for ``run_chat``: each line in turn; a callable in the script runs between two lines."""

    def __init__(self, script: list[str | Callable[[], None]]) -> None:
        self.script = list(script)

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        while self.script:
            item = self.script.pop(0)
            if isinstance(item, str):
                return item + "\n"
            item()
        return ""


def rewrite(path: Path, text: str) -> Callable[[], None]:
    """Write ``text`` to the bot file, moving its modification time on as an editor's save would."""
    def write() -> None:
        stamp = path.stat().st_mtime_ns
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
    return write


@pytest.fixture
def run_in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., int]]:
    """``run_chat`` on a scripted stdin, its logging configuration put back afterwards."""
    saved = structlog.get_config()
    monkeypatch.chdir(ROOT)                     # the support bot imports examples.support_actions

    def run(script: list[str | Callable[[], None]], bot_file: Path, *, reload: bool, stub_actions: bool = False) -> int:
        monkeypatch.setattr(sys, "stdin", ScriptedInput(script))
        return run_chat(bot_file, None, "pipe", "memory://", reload=reload, stub_actions=stub_actions)

    yield run
    structlog.configure(**saved)


RELOAD_TURNS = {
    "zh": ["我上周买的手机屏幕碎了", "算了", "你好"],
    "en": ["my phone arrived broken", "never mind", "hello there friend"],
}
GONE = {"zh": "之前的「报告订单问题并创建工单」已不再提供。",
        "en": 'The earlier "report a problem with an order and open a ticket" task is no longer available.'}


@LANGS
def test_reload_picks_up_a_changed_bot_file_between_turns_and_keeps_a_broken_one_out(
        lang: str, tmp_path: Path, run_in_process: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    bot_file = tmp_path / "support.yaml"
    original = SUPPORT.read_text(encoding="utf-8")
    bot_file.write_text(original, encoding="utf-8")
    first, cancel, hello = RELOAD_TURNS[lang]
    script: list[str | Callable[[], None]] = [
        first, rewrite(bot_file, original.replace("report_issue", "file_ticket")), cancel,
        rewrite(bot_file, original.replace("ask:", "asks:", 1)), hello, first, "/exit"]
    assert run_in_process(script, bot_file, reload=True) == 0
    out = capsys.readouterr().out
    after_cancel = " ".join(out.split(f"you> {cancel}", 1)[1].split())       # as said, before rich wraps it
    assert after_cancel.startswith(f"reloaded {bot_file} bot> {GONE[lang]}")
    after_hello = out.split(f"you> {hello}", 1)[1]
    assert "asks" in after_hello and f"{bot_file} not reloaded" in after_hello
    assert "flow=file_ticket" in after_hello.split(f"you> {first}", 1)[1]      # the last good file runs on
    assert out.count("reloaded") == 2


def test_without_reload_a_changed_bot_file_is_not_read(
        tmp_path: Path, run_in_process: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    bot_file = tmp_path / "support.yaml"
    original = SUPPORT.read_text(encoding="utf-8")
    bot_file.write_text(original, encoding="utf-8")
    script: list[str | Callable[[], None]] = [
        RELOAD_TURNS["zh"][0], rewrite(bot_file, original.replace("report_issue", "file_ticket")), "/state", "/exit"]
    assert run_in_process(script, bot_file, reload=False) == 0
    out = capsys.readouterr().out
    assert "reloaded" not in out and "flow: report_issue" in out


@pytest.mark.parametrize("said", ["我的手机 :cd: 碎了 :ok:", "my phone :cd: arrived broken :ok:"])
def test_the_transcript_shows_emoji_codes_as_typed(said: str, tmp_path: Path) -> None:
    """rich would print ':ok:' as an emoji; a transcript shows what was said."""
    out = chat([said, "/exit"], tmp_path)
    assert said in out and "🆗" not in out and "💿" not in out


# ---- --stub-actions ----------------------------------------------------------------------------

RESTAURANT = ROOT / "tests" / "conversations" / "bots" / "restaurant.yaml"
BOOKING = {"zh": ["帮我订一桌，明天晚上7点，4个人，室内，姓名：张三", "确认"],
           "en": ["book a table for 4 tomorrow at 7pm, indoor, name: Smith", "yes"]}
BOOKED = {"zh": "预订号 <booking_id>", "en": "reference <booking_id>"}


@LANGS
def test_stub_actions_let_a_bot_without_action_code_be_tried(
        lang: str, run_in_process: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    """A bot file written before its actions: with --stub-actions the task runs to its end, the
    action answering <key> for each key it returns; without, the file does not load."""
    assert run_in_process([*BOOKING[lang], "/exit"], RESTAURANT, reload=False, stub_actions=True) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "stand-ins for actions without code: book_table, cancel_booking" in out
    assert BOOKED[lang] in out
    assert run_in_process(["/exit"], RESTAURANT, reload=False) == 1
    assert "unknown action 'book_table'" in " ".join(capsys.readouterr().out.split())
