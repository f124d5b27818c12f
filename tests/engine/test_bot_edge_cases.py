"""``Bot.handle`` at the edges the YAML conversation tests cannot express (SPEC §2, §3, §7).

Huge, empty, binary and byte inputs; an action that raises; idempotency of a repeated "yes";
session expiry on an injected clock; two threads on one session; isolation across sessions and
users; ``reply.actions`` / ``reply.options``; the fields of ``bot.session(id)``. Each behaviour is
checked in Chinese and in English.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.actions.registry import ActionContext
from dialogkit.errors import DialogkitError
from dialogkit.store import open_store

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
MEETING = ROOT / "flows" / "meeting.yaml"

ZH = {"start": "我的手机碎了，订单号 12345", "yes": "确认", "no": "不对", "report": "我的笔记本坏了",
      "cancel": "取消", "ambiguous": ["我有两个订单 12345 和 67890", "它还没到"]}
EN = {"start": "my phone arrived broken, order 12345", "yes": "yes", "no": "no", "report": "my laptop is broken",
      "cancel": "cancel", "ambiguous": ["I have two orders, 12345 and 67890", "it never arrived"]}
LANGS = pytest.mark.parametrize("say", [ZH, EN], ids=["zh", "en"])


class Clock:
    """A settable clock for ``Bot(..., clock=...)``: session expiry without sleeping."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Recorder:
    """An action override that records every call, so a test can count runs and keys."""

    def __init__(self, result: dict[str, Any] | None = None, error: Exception | None = None) -> None:
        self.calls: list[ActionContext] = []
        self.result = result if result is not None else {"ticket_id": "T-1001"}
        self.error = error

    def __call__(self, ctx: ActionContext) -> dict[str, Any]:
        self.calls.append(ctx)
        if self.error is not None:
            raise self.error
        return dict(self.result)


@pytest.fixture
def make_bot(tmp_path: Path) -> Iterator[Callable[..., Bot]]:
    """Bots on one SQLite file per test; every bot made is closed afterwards."""
    made: list[Bot] = []
    url = f"sqlite:///{tmp_path / 'sessions.db'}"

    def make(path: Path = SUPPORT, *, clock: Callable[[], float] | None = None,
             actions: dict[str, Any] | None = None) -> Bot:
        loaded = load_bot_file(path, actions=actions or {"create_ticket": Recorder(), "order_status": {"status": "ok"}})
        bot = Bot(loaded, open_store(url), clock=clock) if clock is not None else Bot(loaded, open_store(url))
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()


# ---- unusual input ---------------------------------------------------------------------------

@LANGS
def test_a_one_megabyte_message_is_answered_and_stored_truncated(make_bot: Callable[..., Bot], say: dict) -> None:
    """A 1 MB message must not crash or stall a turn; the reply says only the start was read."""
    bot = make_bot()
    filler = ("很长的消息" if say is ZH else "a very long message ") * 70_000
    text = say["start"] + filler
    assert len(text.encode("utf-8")) >= 1_000_000
    reply = bot.handle("s1", text)
    assert reply.flow == "report_issue"
    assert reply.slots["order_id"] == "12345"
    assert ("消息过长" if say is ZH else "very long") in reply.text
    stored = bot.session("s1").history[0].content
    assert len(stored) < len(text)
    assert "truncated" in stored


@LANGS
def test_empty_text_in_idle_gives_help_and_inside_a_task_re_asks(make_bot: Callable[..., Bot], say: dict) -> None:
    """Empty or blank input fires nothing: help in IDLE, the pending question inside a task."""
    bot = make_bot()
    idle = bot.handle("s1", "")
    assert (idle.state, idle.flow, idle.actions) == ("IDLE", None, [])
    assert idle.text
    bot.handle("s1", "我的手机碎了" if say is ZH else "my phone arrived broken")
    blank = bot.handle("s1", "   \n\t ")
    assert (blank.state, blank.flow) == ("PARAM_COLLECT", "report_issue")
    assert ("订单号" if say is ZH else "order number") in blank.text
    assert blank.transitions == []


@LANGS
def test_control_characters_and_lone_surrogates_are_dropped(make_bot: Callable[..., Bot], say: dict) -> None:
    """Binary noise inside an utterance neither crashes the turn nor hides its meaning."""
    bot = make_bot()
    noisy = "\x00\x01" + say["start"][:3] + "\x07\x1b" + say["start"][3:] + "\ud800\x7f"
    reply = bot.handle("s1", noisy)
    assert reply.flow == "report_issue"
    assert reply.slots == {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
    stored = bot.session("s1").history[0].content
    assert not any(ch in stored for ch in "\x00\x01\x07\x1b\x7f\ud800")


@LANGS
def test_bytes_input_is_decoded(make_bot: Callable[..., Bot], say: dict) -> None:
    """UTF-8 bytes are text; undecodable bytes are replaced, never an exception."""
    bot = make_bot()
    reply = bot.handle("s1", say["start"].encode("utf-8"))
    assert reply.state == "CONFIRMATION"
    assert reply.slots["order_id"] == "12345"
    garbage = bot.handle("s1", b"\xff\xfe\x00\x80")
    assert garbage.state == "CONFIRMATION"
    assert garbage.actions == []


# ---- actions ----------------------------------------------------------------------------------

@LANGS
def test_an_action_raising_takes_the_on_error_path(make_bot: Callable[..., Bot], say: dict) -> None:
    """A raising action is `fail`: the on_error text with {error}, the run recorded with its error."""
    failing = Recorder(error=RuntimeError("disk full"))
    bot = make_bot(actions={"create_ticket": failing, "order_status": {"status": "ok"}})
    bot.handle("s1", say["start"])
    reply = bot.handle("s1", say["yes"])
    assert (reply.state, reply.flow) == ("IDLE", None)
    assert reply.transitions[-1] == "fail"
    assert "disk full" in reply.text
    assert ("工单创建失败" if say is ZH else "could not be created") in reply.text
    [run] = reply.actions
    assert (run.name, run.error, run.result) == ("create_ticket", "disk full", None)
    assert run.inputs == {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
    assert reply.slots["order_id"] == "12345"
    assert len(failing.calls) == 1


@LANGS
def test_a_repeated_yes_never_runs_the_action_twice(make_bot: Callable[..., Bot], say: dict) -> None:
    """Idempotency: the second "yes" finds no confirmation pending and runs nothing."""
    recorder = Recorder()
    bot = make_bot(actions={"create_ticket": recorder, "order_status": {"status": "ok"}})
    bot.handle("s1", say["start"])
    first = bot.handle("s1", say["yes"])
    second = bot.handle("s1", say["yes"])
    assert [r.name for r in first.actions] == ["create_ticket"]
    assert second.actions == []
    assert len(recorder.calls) == 1


@LANGS
def test_a_repeated_yes_after_a_restart_never_runs_the_action_twice(make_bot: Callable[..., Bot], say: dict) -> None:
    """The execution is saved with the state change, so a reloaded bot does not run it again."""
    recorder = Recorder()
    actions = {"create_ticket": recorder, "order_status": {"status": "ok"}}
    bot = make_bot(actions=actions)
    bot.handle("s1", say["start"])
    bot.handle("s1", say["yes"])
    bot.close()
    again = make_bot(actions=actions).handle("s1", say["yes"])
    assert again.actions == []
    assert len(recorder.calls) == 1


def test_idempotency_key_is_per_task_and_names_the_session(make_bot: Callable[..., Bot]) -> None:
    """Two confirmed tasks get two keys; each key carries the session id."""
    recorder = Recorder()
    bot = make_bot(actions={"create_ticket": recorder, "order_status": {"status": "ok"}})
    for text in (ZH["start"], ZH["yes"], EN["start"], EN["yes"]):
        bot.handle("sess-key", text)
    keys = [c.idempotency_key for c in recorder.calls]
    assert len(keys) == 2 and keys[0] != keys[1]
    assert all("sess-key" in k for k in keys)


# ---- sessions ---------------------------------------------------------------------------------

@LANGS
def test_a_session_expires_after_session_timeout(make_bot: Callable[..., Bot], say: dict) -> None:
    """30 minutes idle drops the task; 29 minutes does not; user-scoped values survive expiry."""
    clock = Clock()
    bot = make_bot(clock=clock)
    bot.handle("s1", say["start"], user_id="alice")
    bot.handle("s1", say["yes"], user_id="alice")           # order_id 12345 persisted for alice
    bot.handle("s1", "我的手机碎了" if say is ZH else "my phone arrived broken", user_id="alice")
    assert bot.session("s1").state == "CONFIRMATION"
    clock.now += 29 * 60
    still = bot.handle("s1", "今天天气不错" if say is ZH else "nice weather today", user_id="alice")
    assert still.flow == "report_issue"
    clock.now += 31 * 60
    expired = bot.handle("s1", say["yes"], user_id="alice")
    assert (expired.state, expired.flow, expired.actions) == ("IDLE", None, [])
    fresh = bot.handle("s1", say["report"], user_id="alice")
    assert fresh.state == "CONFIRMATION"
    assert fresh.slots["order_id"] == "12345"


def test_two_threads_on_one_session_lose_no_turn(make_bot: Callable[..., Bot]) -> None:
    """Turns on one session are serialised: every message of both threads is in the history."""
    bot = make_bot()
    texts = [[f"线程一 第{i}句" for i in range(8)], [f"thread two says number {i}" for i in range(8)]]
    errors: list[BaseException] = []

    def talk(lines: list[str]) -> None:
        try:
            for line in lines:
                bot.handle("shared", line)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=talk, args=(lines,)) for lines in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    history = bot.session("shared").history
    users = [m.content for m in history if m.role == "user"]
    assert sorted(users) == sorted(texts[0] + texts[1])
    assert len(history) == 32
    assert [m.role for m in history] == ["user", "assistant"] * 16


@LANGS
def test_sessions_are_isolated(make_bot: Callable[..., Bot], say: dict) -> None:
    """Another session sees neither the task, the entities, nor a pending clarification."""
    bot = make_bot()
    bot.handle("a", say["ambiguous"][0], user_id="alice")
    asked = bot.handle("a", say["ambiguous"][1], user_id="alice")
    assert asked.clarification == ["12345", "67890"]
    other = bot.handle("b", say["ambiguous"][1], user_id="alice")
    assert other.clarification is None
    assert other.slots.get("order_id") is None
    assert {e.value for e in bot.session("b").entities}.isdisjoint({"12345", "67890"})
    assert bot.session("a").pending == ["12345", "67890"]


@LANGS
def test_user_scoped_values_do_not_leak_to_another_user(make_bot: Callable[..., Bot], say: dict) -> None:
    """alice's persisted order number prefills alice's next task, never bob's."""
    bot = make_bot()
    bot.handle("a1", say["start"], user_id="alice")
    bot.handle("a1", say["yes"], user_id="alice")
    bob = bot.handle("b1", say["report"], user_id="bob")
    assert bob.state == "PARAM_COLLECT"
    assert bob.slots.get("order_id") is None
    assert "order_id" not in bot.session("b1").slots
    alice = bot.handle("a2", say["report"], user_id="alice")
    assert alice.slots["order_id"] == "12345"


def test_unknown_session_is_an_error(make_bot: Callable[..., Bot]) -> None:
    """bot.session() of a session that never spoke says so instead of inventing one."""
    with pytest.raises(DialogkitError):
        make_bot().session("never-seen")


# ---- what a reply and a session report ---------------------------------------------------------

@LANGS
def test_reply_options_and_actions(make_bot: Callable[..., Bot], say: dict) -> None:
    """yes/no quick replies at a confirmation, none after; the action run with inputs and result."""
    bot = make_bot()
    confirm = bot.handle("s1", say["start"])
    assert confirm.options == (["确认", "取消"] if say is ZH else ["yes", "no"])
    assert confirm.actions == []
    done = bot.handle("s1", say["yes"])
    assert done.options == []
    [run] = done.actions
    assert run.name == "create_ticket"
    assert run.inputs == {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
    assert run.result == {"ticket_id": "T-1001"}
    assert run.error is None
    assert done.transitions == ["confirm", "complete"]


@LANGS
def test_clarification_offers_its_candidates_as_options(make_bot: Callable[..., Bot], say: dict) -> None:
    """The clarification's candidates, in order of first mention, are the quick replies."""
    bot = make_bot()
    bot.handle("s1", say["ambiguous"][0])
    asked = bot.handle("s1", say["ambiguous"][1])
    assert asked.clarification == ["12345", "67890"]
    assert asked.options == ["12345", "67890"]
    assert asked.transitions == []


@LANGS
def test_reply_state_flow_slots_after_cancel_and_resume(make_bot: Callable[..., Bot], say: dict) -> None:
    """After a cancel: IDLE, no flow, empty slots; after a digression ends: the resumed task's."""
    bot = make_bot()
    bot.handle("s1", "我的手机碎了" if say is ZH else "my phone arrived broken")
    digress = bot.handle("s1", "我的订单到哪了" if say is ZH else "where is my order")
    assert (digress.flow, digress.state, digress.slots) == ("check_status", "PARAM_COLLECT", {})
    assert bot.session("s1").stack == ["report_issue", "check_status"]
    resumed = bot.handle("s1", say["cancel"])
    assert (resumed.flow, resumed.state) == ("report_issue", "PARAM_COLLECT")
    assert resumed.slots == {"product": "phone", "issue_type": "damaged"}
    cancelled = bot.handle("s1", say["cancel"])
    assert (cancelled.state, cancelled.flow, cancelled.slots) == ("IDLE", None, {})
    assert bot.session("s1").stack == []


@LANGS
def test_session_view_fields(make_bot: Callable[..., Bot], say: dict) -> None:
    """bot.session(id): state, flow, slots (with persisted values), summary, entities, history."""
    bot = make_bot()
    bot.handle("s1", say["start"], user_id="alice")
    bot.handle("s1", say["yes"], user_id="alice")
    bot.handle("s1", "我的订单到哪了" if say is ZH else "where is my order", user_id="alice")
    view = bot.session("s1")
    assert (view.id, view.user_id, view.language) == ("s1", "alice", "zh" if say is ZH else "en")
    assert (view.state, view.flow) == ("IDLE", None)      # check_status ran at once on the prefilled number
    assert view.slots["order_id"] == "12345"
    assert ("等待工单处理" if say is ZH else "waiting for the ticket") in view.summary
    order = next(e for e in view.entities if e.value == "12345")
    assert order.type == "order_id" and order.mentions >= 1
    assert order.attributes.get("status") == "ok"          # the action's result became an attribute
    assert [m.role for m in view.history] == ["user", "assistant"] * 3
    assert view.history[0].content == say["start"]
    assert view.pending is None and view.stack == []


@LANGS
def test_reply_summary_is_the_summary_after_its_own_turn(make_bot: Callable[..., Bot], say: dict) -> None:
    """reply.summary is rendered on first read, yet reads as it was when the turn ended."""
    bot = make_bot()
    started = bot.handle("s1", say["start"])
    confirmed = bot.handle("s1", say["yes"])
    done = "已创建工单" if say is ZH else "Ticket"
    assert "12345" in started.summary and done not in started.summary   # read after a later turn
    assert started.summary == started.summary                            # rendered once, then kept
    assert "12345" in confirmed.summary and done in confirmed.summary
    assert confirmed.summary == bot.session("s1").summary


@pytest.mark.parametrize(("lang", "ask"), [("zh", "问一下张经理项目进度"), ("en", "ask Manager Zhang about the project progress")])
def test_the_summary_of_a_completed_task_names_values_in_each_language(
        make_bot: Callable[..., Bot], lang: str, ask: str) -> None:
    """A completed task's line is kept in both languages, each with that language's value labels:
    a Chinese conversation summarised in English says "Manager Zhang", not "张经理"."""
    from dialogkit.memory.summary import render_summary

    bot = make_bot(MEETING, actions={"send_question": {}, "create_meeting": {"meeting_id": "M-1"}})
    reply = bot.handle("s1", ask)
    assert reply.state == "IDLE" and reply.actions and reply.actions[0].name == "send_question"
    summary = bot.session("s1").data.summary
    assert "已向张经理询问项目进度" in render_summary(summary, "zh")
    assert "I've asked Manager Zhang about project progress" in render_summary(summary, "en")
