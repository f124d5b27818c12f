"""``Turns`` on its own: one turn from text to reply, driving the parts it is given.

The parts are the real ones (wired as ``Bot`` wires them) over a ``MemoryStore`` and a settable
clock; where a test is about the order of the steps or a failing step, one part is replaced.
"""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.engine.context_view import ContextView
from dialogkit.engine.ownership import SessionOwnerError
from dialogkit.engine.pipeline import Turns
from dialogkit.engine.policy import Policy
from dialogkit.engine.turn import TurnContext
from dialogkit.model.reply import ActionRun
from dialogkit.strings.limits import MAX_STORED_CHARS, MAX_UNDERSTOOD_CHARS
from tests.engine._parts import T0, Parts, build

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"zh": "我的手机碎了，订单号 12345", "en": "my phone arrived broken, order 12345"}
YES = {"zh": "确认", "en": "yes"}
HELLO = {"zh": "你好", "en": "hello"}
STATUS = {"zh": "查看订单 12345 的状态", "en": "check the status of order 12345"}
FULL = {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
TIMEOUT = 30 * 60          # the support bot's session_timeout


class Clock:
    """A settable clock: expiry without sleeping."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def turns_of(parts: Parts, clock: Clock, *, policy: Any = None) -> Turns:
    """``Turns`` over the given parts, with ``policy`` standing in for the real one when given."""
    view = ContextView(parts.spec, parts.texts, parts.understanding)
    return Turns(parts.spec, parts.store, parts.understanding, parts.flows, policy or parts.policy,
                 parts.lookahead, parts.memory, view, None, clock)


@pytest.fixture
def parts() -> Parts:
    return build()


@pytest.fixture
def clock() -> Clock:
    return Clock()


class TestSession:
    @LANGS
    def test_a_first_turn_creates_and_saves_the_session(self, parts: Parts, clock: Clock, lang: str) -> None:
        """A new id starts a session (anonymous: no user was named) and the turn is saved with both messages."""
        reply = turns_of(parts, clock).handle("s1", HELLO[lang])
        saved = parts.store.load("s1")
        assert saved is not None
        assert (saved.user_id, saved.turn, saved.language, saved.updated_at) == (None, 1, lang, clock.now)
        assert [(m.role, m.content) for m in saved.history] == [("user", HELLO[lang]), ("assistant", reply.text)]
        assert saved.full_tokens > 0

    def test_a_session_belongs_to_the_user_who_started_it(self, parts: Parts, clock: Clock) -> None:
        """Another user id on the session, or none, is refused and changes nothing."""
        turns = turns_of(parts, clock)
        turns.handle("s", "hello", user_id="alice")
        with pytest.raises(SessionOwnerError):
            turns.handle("s", "hello", user_id="bob")
        with pytest.raises(SessionOwnerError):
            turns.handle("s", "hello")
        saved = parts.store.load("s")
        assert saved is not None and (saved.user_id, saved.turn) == ("alice", 1)

    @LANGS
    def test_a_session_within_its_timeout_continues(self, parts: Parts, clock: Clock, lang: str) -> None:
        """A reply just before the timeout is still part of the task."""
        turns = turns_of(parts, clock)
        turns.handle("s", REPORT[lang])
        clock.now += TIMEOUT - 1
        assert turns.handle("s", YES[lang]).transitions == ["confirm", "complete"]

    @LANGS
    def test_a_session_idle_past_its_timeout_starts_afresh(self, parts: Parts, clock: Clock, lang: str) -> None:
        """Past the timeout the task is gone; the user, the language and the stored history go on."""
        turns = turns_of(parts, clock)
        turns.handle("s", REPORT[lang], user_id="alice")
        clock.now += TIMEOUT + 1
        reply = turns.handle("s", YES[lang], user_id="alice")
        saved = parts.store.load("s")
        assert reply.transitions == [] and reply.state == "IDLE"
        assert saved is not None and (saved.user_id, saved.language, saved.turn) == ("alice", lang, 1)
        assert [(m.turn, m.content) for m in parts.store.history("s")[::2]] == [(1, REPORT[lang]), (1, YES[lang])]

    def test_a_turn_that_fails_saves_nothing(self, parts: Parts, clock: Clock) -> None:
        """An exception inside the turn leaves the store as it was before the turn."""
        turns_of(parts, clock).handle("s", "hello")

        class Broken:
            def respond(self, ctx: TurnContext) -> None:
                raise RuntimeError("policy broke")

        with pytest.raises(RuntimeError):
            turns_of(parts, clock, policy=Broken()).handle("s", "my phone arrived broken")
        saved = parts.store.load("s")
        assert saved is not None and saved.turn == 1 and len(saved.history) == 2


class TestTurn:
    @LANGS
    def test_the_reply_reports_what_the_turn_did(self, parts: Parts, clock: Clock, lang: str) -> None:
        """State, flow, slots, triggers, memory actions and quick replies of the turn."""
        reply = turns_of(parts, clock).handle("s", REPORT[lang])
        assert (reply.state, reply.flow, reply.slots) == ("CONFIRMATION", "report_issue", FULL)
        assert reply.transitions == ["start_task", "collect", "request_confirmation"]
        assert reply.trigger == "request_confirmation"
        assert reply.memory_actions == ["resolve_references", "track_entities", "summarize", "track_entities"]
        assert reply.options == parts.texts.yes_no(lang)
        assert (reply.language, reply.session_id, reply.resolved) == (lang, "s", REPORT[lang])
        assert "12345" in reply.summary

    @LANGS
    def test_the_reply_of_a_finished_task_keeps_its_slots(self, parts: Parts, clock: Clock, lang: str) -> None:
        """When the last task ends, the reply still shows the values it ran with, and the action run."""
        turns = turns_of(parts, clock)
        turns.handle("s", REPORT[lang])
        reply = turns.handle("s", YES[lang])
        assert (reply.state, reply.flow, reply.slots) == ("IDLE", None, FULL)
        assert reply.actions == [ActionRun("create_ticket", FULL, {"ticket_id": "T-1001"}, None)]

    @LANGS
    def test_every_turn_memory_runs_when_nothing_fires(self, parts: Parts, clock: Clock, lang: str) -> None:
        """Things named in IDLE are remembered: the every-turn list runs on a turn without transitions."""
        text = {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders, 12345 and 67890"}[lang]
        reply = turns_of(parts, clock).handle("s", text)
        saved = parts.store.load("s")
        assert reply.transitions == [] and reply.memory_actions == ["track_entities"]
        assert saved is not None and [e.value for e in saved.entities] == ["12345", "67890"]

    @LANGS
    def test_an_actions_result_becomes_an_attribute_of_its_entity(self, parts: Parts, clock: Clock,
                                                                  lang: str) -> None:
        """Order 12345 checked as shipped: the order in entity memory now carries status shipped."""
        turns_of(parts, clock).handle("s", STATUS[lang])
        saved = parts.store.load("s")
        assert saved is not None
        order = next(e for e in saved.entities if e.value == "12345")
        assert order.attributes == {"status": "shipped"}

    @LANGS
    def test_the_policy_decides_on_the_looked_ahead_text(self, parts: Parts, clock: Clock, lang: str) -> None:
        """"它现在怎么样？" after order 12345: the status of 12345 is checked, and the reply says what was read."""
        turns = turns_of(parts, clock)
        turns.handle("s", {"zh": "订单 12345", "en": "order 12345"}[lang])
        reply = turns.handle("s", {"zh": "它现在怎么样？", "en": "how is it now?"}[lang])
        assert [run.inputs for run in reply.actions] == [{"order_id": "12345"}]
        assert "12345" in (reply.resolved or "")

    def test_the_steps_run_in_order(self, parts: Parts, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
        """Look-ahead, then the policy, then the every-turn memory actions."""
        steps: list[str] = []

        def spy(name: str, func: Any) -> Any:
            def wrapped(*args: Any) -> Any:
                steps.append(name)
                return func(*args)
            return wrapped

        monkeypatch.setattr(parts.lookahead, "run", spy("look-ahead", parts.lookahead.run))
        monkeypatch.setattr(parts.policy, "respond", spy("policy", parts.policy.respond))
        monkeypatch.setattr(parts.memory, "run", spy("memory", parts.memory.run))
        turns_of(parts, clock).handle("s", "hello")
        assert steps == ["look-ahead", "policy", "memory"]

    @LANGS
    def test_a_very_long_message_is_read_in_part_and_stored_cut(self, parts: Parts, clock: Clock, lang: str) -> None:
        """Past the caps, the bot says how much it read, and the stored message ends with a mark."""
        text = {"zh": "好", "en": "a"}[lang] * (MAX_STORED_CHARS + 10)
        reply = turns_of(parts, clock).handle("s", text)
        saved = parts.store.load("s")
        n, k = len(text), MAX_UNDERSTOOD_CHARS
        said = {"zh": f"（消息过长：共 {n} 个字符，只读取了前 {k} 个。）",
                "en": f"(Your message is very long: {n} characters; I read the first {k}.)"}[lang]
        assert reply.text.startswith(said)
        assert saved is not None and saved.history[0].content == text[:MAX_STORED_CHARS] + "…[truncated]"

    def test_the_policy_is_the_one_given(self, parts: Parts, clock: Clock) -> None:
        """``Turns`` drives the parts handed to it and looks nothing up: a stand-in policy answers."""

        class Echo(Policy):
            def __init__(self) -> None:
                """Nothing to wire: this policy only echoes."""

            def respond(self, ctx: TurnContext) -> None:
                ctx.say.append(f"echo: {ctx.text}")

        assert turns_of(parts, clock, policy=Echo()).handle("s", "hello").text == "echo: hello"
