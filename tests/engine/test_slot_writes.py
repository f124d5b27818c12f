"""``slot_writes`` on its own: writing a transition's values, prefilling a new task, taking a turn back."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from transitions import EventData

from dialogkit.engine.slot_writes import apply_updates, forget_turn, prefill
from dialogkit.engine.turn import TurnContext
from dialogkit.memory import tracker
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import PersistedValue, SlotChange, Task, user_scope
from tests.engine._parts import T0, Parts, build, new_session

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
FORGET = {"zh": "忘记刚才说的", "en": "forget what I just said"}


@pytest.fixture
def parts() -> Parts:
    return build()


def event(ctx: TurnContext) -> EventData:
    """What ``transitions`` hands a before-hook: the turn rides in the event's kwargs."""
    return cast(EventData, SimpleNamespace(kwargs={"ctx": ctx}))


def write(parts: Parts, task: Task, updates: dict[str, Any], *, prefilled: list[str] | None = None) -> TurnContext:
    """Apply ``updates`` to ``task`` in the next turn of a session holding it."""
    session = new_session()
    session.turn = 4
    session.stack.append(task)
    with parts.turn(session, "order 67890") as ctx:
        ctx.task, ctx.updates, ctx.prefilled = task, dict(updates), list(prefilled or [])
        apply_updates(event(ctx))
    return ctx


def remember_for_user(parts: Parts, user_id: str, name: str, value: Any, at: float) -> None:
    """Store a user-scoped value before the turn, as an earlier session's persist_slots would have."""
    with parts.store.transaction("earlier") as txn:
        txn.set_user_slot(user_scope(parts.spec.bot.name, user_id), name,
                          PersistedValue(value=value, at=at, flow="report_issue"))


class TestApplyUpdates:
    def test_a_new_value_is_written_with_its_turn(self, parts: Parts) -> None:
        """A slot filled for the first time records the turn that filled it and has no history."""
        task = Task(flow="report_issue", state="PARAM_COLLECT")
        ctx = write(parts, task, {"order_id": "67890"})
        assert task.slots == {"order_id": "67890"} and task.slot_turns == {"order_id": ctx.turn}
        assert task.slot_history == {}

    def test_a_changed_value_keeps_the_old_one_as_history(self, parts: Parts) -> None:
        """A correction keeps what was there, with the turn that had written it."""
        task = Task(flow="report_issue", state="CONFIRMATION", slots={"order_id": "12345"}, slot_turns={"order_id": 2})
        ctx = write(parts, task, {"order_id": "67890"})
        assert task.slots["order_id"] == "67890" and task.slot_turns["order_id"] == ctx.turn
        assert task.slot_history["order_id"] == [SlotChange(value="12345", turn=2, at=ctx.now, superseded_at=ctx.now)]

    def test_the_same_value_again_adds_no_history(self, parts: Parts) -> None:
        """12345 written over "12345" is no change: nothing goes to history."""
        task = Task(flow="report_issue", state="PARAM_COLLECT", slots={"order_id": "12345"}, slot_turns={"order_id": 2})
        write(parts, task, {"order_id": 12345})
        assert task.slot_history == {}

    def test_a_prefilled_value_the_user_replaces_is_no_longer_prefilled(self, parts: Parts) -> None:
        """Once the user gives the value, the task no longer says it was taken from memory."""
        task = Task(flow="report_issue", state="PARAM_COLLECT", slots={"order_id": "12345"}, prefilled=["order_id"])
        write(parts, task, {"order_id": "67890"})
        assert task.prefilled == []

    def test_a_value_prefilled_in_this_turn_stays_prefilled(self, parts: Parts) -> None:
        """The turn that prefills the slot writes it too, and it is still a prefilled value."""
        task = Task(flow="report_issue", state="IDLE", prefilled=["order_id"])
        write(parts, task, {"order_id": "12345"}, prefilled=["order_id"])
        assert task.prefilled == ["order_id"]


class TestPrefill:
    @pytest.mark.parametrize(("session_at", "user_at", "expected"),
                             [(T0 + 5, T0 + 9, "67890"), (T0 + 9, T0 + 5, "12345")],
                             ids=["user-newer", "session-newer"])
    def test_the_newer_of_session_and_user_value_wins(self, parts: Parts, session_at: float, user_at: float,
                                                      expected: str) -> None:
        """The value stated last, in whichever scope, is the one a new task starts with."""
        remember_for_user(parts, "u", "order_id", "67890", user_at)
        session = new_session(user_id="u")
        session.session_slots["order_id"] = PersistedValue(value="12345", at=session_at)
        with parts.turn(session, "my phone arrived broken") as ctx:
            values = prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate)
        assert values == {"order_id": expected}

    def test_a_user_value_alone_is_used(self, parts: Parts) -> None:
        """A value from an earlier session of the same user fills the slot."""
        remember_for_user(parts, "u", "order_id", "67890", T0)
        with parts.turn(new_session(user_id="u"), "my phone arrived broken") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate) == {"order_id": "67890"}

    def test_another_users_value_is_not_used(self, parts: Parts) -> None:
        """User-scoped values belong to their user."""
        remember_for_user(parts, "someone-else", "order_id", "67890", T0)
        with parts.turn(new_session(user_id="u"), "my phone arrived broken") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate) == {}

    def test_excluded_slots_are_skipped(self, parts: Parts) -> None:
        """A slot the utterance itself fills is not prefilled."""
        session = new_session()
        session.session_slots["order_id"] = PersistedValue(value="12345", at=T0)
        with parts.turn(session, "order 67890 arrived broken") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude={"order_id"}, validator=parts.loaded.actions.validate) == {}

    def test_slots_that_do_not_persist_are_not_prefilled(self, parts: Parts) -> None:
        """A remembered value of a ``persist: none`` slot (product) is never used."""
        session = new_session()
        session.session_slots["product"] = PersistedValue(value="phone", at=T0)
        with parts.turn(session, "my order never arrived") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate) == {}


class TestPersistedValuesBelongToTheBot:
    def test_another_bots_value_is_not_used(self, parts: Parts) -> None:
        """Two bots on one store: the other bot's order id never prefills this bot's task."""
        with parts.store.transaction("earlier") as txn:
            txn.set_user_slot(user_scope("another_bot", "u"), "order_id",
                              PersistedValue(value="67890", at=T0, flow="report_issue"))
        with parts.turn(new_session(user_id="u"), "my phone arrived broken") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate) == {}

    def test_a_value_stored_before_values_were_kept_per_bot_is_still_read(self, parts: Parts) -> None:
        """A store written by an older dialogkit (values under the bare user id) keeps working."""
        with parts.store.transaction("earlier") as txn:
            txn.set_user_slot("u", "order_id", PersistedValue(value="67890", at=T0, flow="report_issue"))
        with parts.turn(new_session(user_id="u"), "my phone arrived broken") as ctx:
            values = prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate)
        assert values == {"order_id": "67890"}

    @pytest.mark.parametrize("value", ["1234", "ABC-99"])
    def test_a_value_the_slots_rules_refuse_is_not_prefilled(self, parts: Parts, value: str) -> None:
        """A persisted value prefills only when it passes the slot's validation rules."""
        remember_for_user(parts, "u", "order_id", value, T0)
        with parts.turn(new_session(user_id="u"), "my phone arrived broken") as ctx:
            assert prefill(ctx, parts.spec.flows["report_issue"], exclude=set(), validator=parts.loaded.actions.validate) == {}


class TestForgetTurn:
    @LANGS
    def test_a_corrected_slot_gets_its_previous_value_back(self, parts: Parts, lang: str) -> None:
        """Forgetting the turn of a correction restores the value it replaced, and the turn that gave it."""
        session = new_session(lang)
        session.turn = 3
        task = parts.task(session, "report_issue", "CONFIRMATION", {"order_id": "67890", "product": "phone"})
        task.slot_turns = {"order_id": 3, "product": 2}
        task.slot_history = {"order_id": [SlotChange(value="12345", turn=2, at=T0, superseded_at=T0 + 3)]}
        with parts.turn(session, FORGET[lang]) as ctx:
            assert forget_turn(ctx, 3) is True
        assert task.slots == {"order_id": "12345", "product": "phone"}
        assert task.slot_turns == {"order_id": 2, "product": 2} and task.slot_history["order_id"] == []

    @LANGS
    def test_a_slot_first_filled_that_turn_is_emptied(self, parts: Parts, lang: str) -> None:
        """A value with no earlier one is removed; values of other turns stay."""
        session = new_session(lang)
        session.turn = 3
        task = parts.task(session, "report_issue", "PARAM_COLLECT", {"order_id": "12345", "product": "phone"})
        task.slot_turns = {"order_id": 3, "product": 2}
        with parts.turn(session, FORGET[lang]) as ctx:
            forget_turn(ctx, 3)
        assert task.slots == {"product": "phone"} and task.slot_turns == {"product": 2}

    @LANGS
    def test_a_suspended_task_is_restored_too(self, parts: Parts, lang: str) -> None:
        """Every task on the stack loses what that turn wrote, not only the active one."""
        session = new_session(lang)
        session.turn = 3
        below = parts.task(session, "report_issue", "PARAM_COLLECT", {"order_id": "12345"})
        below.slot_turns = {"order_id": 3}
        parts.task(session, "check_status", "PARAM_COLLECT")
        with parts.turn(session, FORGET[lang]) as ctx:
            assert forget_turn(ctx, 3) is True
        assert below.slots == {}

    @LANGS
    def test_an_entity_only_that_turn_mentioned_is_forgotten(self, parts: Parts, lang: str) -> None:
        """A turn that filled no slot still took something: the things it mentioned."""
        session = new_session(lang)
        session.turn = 3
        tracker.track_mentions(session, [Mention(type="order_id", value="12345", text="12345", start=0, end=5)], turn=3)
        with parts.turn(session, FORGET[lang]) as ctx:
            assert forget_turn(ctx, 3) is True
        assert session.entities == []

    @LANGS
    def test_nothing_from_that_turn_is_nothing_forgotten(self, parts: Parts, lang: str) -> None:
        """A turn that added nothing has nothing to take back."""
        session = new_session(lang)
        session.turn = 3
        task = parts.task(session, "report_issue", "PARAM_COLLECT", {"order_id": "12345"})
        task.slot_turns = {"order_id": 2}
        with parts.turn(session, FORGET[lang]) as ctx:
            assert forget_turn(ctx, 3) is False
        assert task.slots == {"order_id": "12345"}
