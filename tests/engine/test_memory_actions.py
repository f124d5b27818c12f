"""``MemoryActions`` on its own: what each built-in writes to the session, custom actions, phases.

Each test binds one turn's context to a task and a trigger, as a transition would, and runs the
memory action by name (``MemoryActions.run``) or fires the transition it is bound to.
"""

from __future__ import annotations

import textwrap
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dialogkit.engine.memory_actions import MemoryActions
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.model.session import Message, PersistedValue, Session, SlotChange, Task, user_scope
from dialogkit.spec.schema import BUILTIN_MEMORY_ACTIONS
from tests.engine._parts import T0, Parts, build, new_session

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"zh": "报告订单问题并创建工单", "en": "Report a problem with an order and open a ticket"}
FULL = {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
SAID = {"zh": "好的。", "en": "OK."}


@pytest.fixture
def parts() -> Parts:
    return build()


@contextmanager
def transition(parts: Parts, session: Session, task: Task, trigger: str, *, text: str = "OK",
               updates: dict[str, Any] | None = None) -> Iterator[TurnContext]:
    """A turn bound to ``task`` as ``trigger`` fires on it (the state the after-phase actions see)."""
    with parts.turn(session, text) as ctx:
        ctx.task, ctx.flow = task, parts.flows[task.flow]
        ctx.trigger, ctx.updates = trigger, dict(updates or {})
        yield ctx


class TestSummarize:
    @LANGS
    def test_facts_are_recorded_with_both_languages_labels(self, parts: Parts, lang: str) -> None:
        """Whatever language the turn is in, each fact carries its zh and en label and value label."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT", {"order_id": "12345", "product": "phone"})
        with transition(parts, session, task, "provide_param", updates={"order_id": "12345", "product": "phone"}) as ctx:
            parts.memory.run("summarize", ctx)
        facts = {item.key: (item.zh, item.en) for item in session.summary.facts}
        key = f"report_issue#{task.id}"
        assert facts == {
            key: (REPORT["zh"], REPORT["en"]),
            f"{key}.order_id": ("订单号 12345", "order number 12345"),
            f"{key}.product": ("商品 手机", "product phone"),
        }

    @LANGS
    def test_a_sensitive_slot_is_never_recorded(self, parts: Parts, lang: str) -> None:
        """The note slot is sensitive: neither its name nor its value reaches the summary."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT")
        with transition(parts, session, task, "provide_param",
                        updates={"product": "phone", "note": "PIN 4321"}) as ctx:
            parts.memory.run("summarize", ctx)
        assert all(not item.key.endswith(".note") for item in session.summary.facts)
        assert all("4321" not in item.zh + item.en for item in session.summary.facts)
        assert any(item.key.endswith(".product") for item in session.summary.facts)

    def test_two_tasks_of_one_flow_keep_their_facts_apart(self, parts: Parts) -> None:
        """A second ticket adds its facts beside the first one's instead of replacing them."""
        session = new_session()
        for order in ("12345", "67890"):
            task = parts.task(session, "report_issue", "PARAM_COLLECT")
            with transition(parts, session, task, "start_task", updates={"order_id": order}) as ctx:
                parts.memory.run("summarize", ctx)
            session.stack.pop()
        values = [item.en for item in session.summary.facts if item.key.endswith(".order_id")]
        assert values == ["order number 12345", "order number 67890"]

    def test_confirm_records_the_agreement_and_the_pending_run(self, parts: Parts) -> None:
        """After "yes" the summary says what was agreed and that running it is pending."""
        session = new_session("zh")
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        with transition(parts, session, task, "confirm") as ctx:
            parts.memory.run("summarize", ctx)
        confirmed, pending = session.summary.confirmed, session.summary.pending
        assert [(i.key, i.zh, i.en) for i in confirmed] == [(f"{task.id}:confirmed", REPORT["zh"], REPORT["en"])]
        assert [(i.key, i.zh, i.en) for i in pending] == [
            (f"{task.id}:run", f"执行{REPORT['zh']}", f"run: {REPORT['en']}")]

    def test_complete_replaces_the_pending_run_with_the_outcome_and_the_follow_up(self, parts: Parts) -> None:
        """The outcome is what the action's say said, in both languages; the follow-up becomes pending."""
        session = new_session("en")
        task = parts.task(session, "report_issue", "EXECUTION", FULL)
        with transition(parts, session, task, "confirm") as ctx:
            parts.memory.run("summarize", ctx)
        with transition(parts, session, task, "complete") as ctx:
            ctx.said = {"zh": "已创建工单 T-1。", "en": "Ticket T-1 has been created."}
            parts.memory.run("summarize", ctx)
        done = next(i for i in session.summary.confirmed if i.key == f"{task.id}:done")
        assert (done.zh, done.en) == ("已创建工单 T-1。", "Ticket T-1 has been created.")
        assert [(i.key, i.zh, i.en) for i in session.summary.pending] == [
            (f"{task.id}:follow_up", "等待工单处理", "waiting for the ticket to be handled")]

    @pytest.mark.parametrize(("trigger", "suffix", "zh", "en"), [
        ("fail", "failed", f"{REPORT['zh']}失败", f"failed: {REPORT['en']}"),
        ("cancel", "cancelled", f"已取消{REPORT['zh']}", f"cancelled: {REPORT['en']}"),
    ])
    def test_a_failed_or_cancelled_task_is_recorded_and_its_run_no_longer_pending(
            self, parts: Parts, trigger: str, suffix: str, zh: str, en: str) -> None:
        """Fail and cancel each leave a line of their own, and the run they ended is not pending."""
        session = new_session()
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        with transition(parts, session, task, "confirm") as ctx:
            parts.memory.run("summarize", ctx)
        with transition(parts, session, task, trigger) as ctx:
            parts.memory.run("summarize", ctx)
        assert session.summary.pending == []
        assert (session.summary.confirmed[-1].key, session.summary.confirmed[-1].zh,
                session.summary.confirmed[-1].en) == (f"{task.id}:{suffix}", zh, en)


class TestPersistSlots:
    def test_user_scoped_values_are_written_to_the_store(self, parts: Parts) -> None:
        """``persist: user`` slots outlive the session: they are staged and committed with the turn."""
        session = new_session(user_id="u")
        task = parts.task(session, "report_issue", "EXECUTION", FULL)
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("persist_slots", ctx)
        stored = parts.store.user_slots(user_scope(parts.spec.bot.name, "u"))
        assert list(stored) == ["order_id"]                 # product and issue_type are persist: none
        assert (stored["order_id"].value, stored["order_id"].flow, stored["order_id"].at) == ("12345", "report_issue",
                                                                                              ctx.now)
        assert session.session_slots == {}

    def test_session_scoped_values_stay_on_the_session(self, parts: Parts) -> None:
        """``persist: session`` slots are kept on the session, not the user."""
        session = new_session(user_id="u")
        task = parts.task(session, "check_status", "EXECUTION", {"order_id": "12345"})
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("persist_slots", ctx)
        assert session.session_slots["order_id"].value == "12345"
        assert parts.store.user_slots(user_scope(parts.spec.bot.name, "u")) == {}

    def test_a_new_user_value_keeps_the_old_one_as_history(self, parts: Parts) -> None:
        """A superseded user-scoped value is kept, with when it was set and when it was replaced."""
        with parts.store.transaction("earlier") as txn:
            txn.set_user_slot(user_scope(parts.spec.bot.name, "u"), "order_id",
                              PersistedValue(value="12345", at=T0, flow="report_issue"))
        session = new_session(user_id="u")
        task = parts.task(session, "report_issue", "EXECUTION", {**FULL, "order_id": "67890"})
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("persist_slots", ctx)
        stored = parts.store.user_slots(user_scope(parts.spec.bot.name, "u"))["order_id"]
        assert stored.value == "67890"
        assert stored.history == [SlotChange(value="12345", turn=ctx.turn, at=T0, superseded_at=ctx.now)]

    def test_a_new_session_value_keeps_the_old_one_as_history(self, parts: Parts) -> None:
        """The same holds for session-scoped values."""
        session = new_session()
        session.session_slots["order_id"] = PersistedValue(value="12345", at=T0)
        task = parts.task(session, "check_status", "EXECUTION", {"order_id": "67890"})
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("persist_slots", ctx)
        assert session.session_slots["order_id"].value == "67890"
        assert [c.value for c in session.session_slots["order_id"].history] == ["12345"]

    def test_the_same_value_again_adds_no_history(self, parts: Parts) -> None:
        """Persisting an unchanged value only refreshes when it was stated."""
        session = new_session()
        session.session_slots["order_id"] = PersistedValue(value="12345", at=T0)
        task = parts.task(session, "check_status", "EXECUTION", {"order_id": "12345"})
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("persist_slots", ctx)
        assert session.session_slots["order_id"].history == []
        assert session.session_slots["order_id"].at == ctx.now


class TestPin:
    @LANGS
    def test_pin_pins_the_current_user_message_only(self, parts: Parts, lang: str) -> None:
        """The message of this turn is pinned; earlier messages and the bot's are not."""
        session = new_session(lang)
        session.history = [Message(role="user", content="12345", turn=1), Message(role="assistant", content="OK", turn=1)]
        session.turn = 1
        task = parts.task(session, "report_issue", "PARAM_COLLECT")
        text = {"zh": "记住：订单号 67890", "en": "remember: order 67890"}[lang]
        with transition(parts, session, task, "provide_param", text=text) as ctx:
            parts.memory.run("pin", ctx)
        assert [m.pinned for m in session.history] == [False, False, True]
        assert session.history[-1].content == text


class TestForget:
    def test_forget_drops_what_a_correction_replaced_and_the_tasks_details(self, parts: Parts) -> None:
        """A value corrected away during the task stops being something "it" could mean."""
        session = new_session()
        parts.mentioned(session, "order 12345")
        parts.mentioned(session, "no, order 67890")
        task = parts.task(session, "report_issue", "EXECUTION", {**FULL, "order_id": "67890"}, pending_slot="product")
        task.started_turn, task.reprompts = 1, 1
        task.slot_history = {"order_id": [SlotChange(value="12345", turn=1, at=T0, superseded_at=T0 + 2)]}
        with transition(parts, session, task, "complete") as ctx:
            parts.memory.run("forget", ctx)
        assert [e.value for e in session.entities] == ["67890"]
        assert (task.slot_history, task.pending_slot, task.reprompts) == ({}, None, 0)
        assert task.slots["order_id"] == "67890"


class TestTrackEntities:
    @LANGS
    def test_mentions_are_tracked_once_per_turn(self, parts: Parts, lang: str) -> None:
        """A transition's list and the every-turn list both name it; the turn's mentions count once."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT")
        text = {"zh": "订单 12345 的手机", "en": "the phone of order 12345"}[lang]
        with transition(parts, session, task, "provide_param", text=text) as ctx:
            parts.memory.run("track_entities", ctx)
            parts.memory.run("track_entities", ctx)
        assert sorted((e.type, e.value, e.mentions) for e in session.entities) == [
            ("order_id", "12345", 1), ("product", "phone", 1)]
        assert session.last_turn_added["entity_turn"] == ctx.turn


class TestPhases:
    @pytest.mark.parametrize("name", BUILTIN_MEMORY_ACTIONS)
    def test_only_the_actions_that_may_stop_a_transition_run_before_it(self, parts: Parts, name: str) -> None:
        """resolve_references and track_entities run before the state changes; the others after."""
        expected = "before" if name in ("resolve_references", "track_entities") else "after"
        assert parts.memory.callback(name).phase == expected

    @LANGS
    def test_an_ambiguous_reference_stops_the_transition_before_any_slot_changes(self, parts: Parts,
                                                                                 lang: str) -> None:
        """"它还没到" with two orders: the question is raised before the slot values are written."""
        session = new_session(lang)
        parts.mentioned(session, {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders, 12345 and 67890"}[lang])
        task = parts.task(session, "report_issue", "PARAM_COLLECT", pending_slot="order_id")
        with parts.turn(session, {"zh": "它还没到", "en": "it never arrived"}[lang]) as ctx:
            parts.lookahead.run(ctx)
            ctx.task, ctx.flow, ctx.updates = task, parts.flows["report_issue"], {"issue_type": "missing"}
            with pytest.raises(ClarificationNeeded) as stopped:
                ctx.fire("provide_param")
        assert [c.value for c in stopped.value.pending.candidates] == ["12345", "67890"]
        assert task.slots == {} and task.state == "PARAM_COLLECT"
        assert ctx.memory_run == ["resolve_references"]

    def test_a_transition_runs_its_list_in_order_around_the_state_change(self, parts: Parts) -> None:
        """start_task runs resolve_references and track_entities, writes the values, then summarizes."""
        session = new_session()
        task = Task(flow="report_issue", state="IDLE")
        session.stack.append(task)
        with transition(parts, session, task, "start_task", updates={"order_id": "12345"}) as ctx:
            ctx.fire("start_task")
        assert ctx.memory_run == ["resolve_references", "track_entities", "summarize"]
        assert task.state == "TASK_INIT" and task.slots == {"order_id": "12345"}
        assert any(item.key.endswith(".order_id") for item in session.summary.facts)


class TestCustom:
    def test_a_custom_memory_action_is_called_with_the_turn(self, parts: Parts) -> None:
        """A ``module:function`` action receives the turn's context and is recorded as run."""
        seen: list[TurnContext] = []
        memory = MemoryActions(parts.texts, {"probe:record": seen.append})
        session = new_session()
        task = parts.task(session, "report_issue", "PARAM_COLLECT")
        with transition(parts, session, task, "provide_param") as ctx:
            memory.run("probe:record", ctx)
        assert seen == [ctx] and ctx.memory_run == ["probe:record"]
        assert memory.callback("probe:record").phase == "after"

    def test_a_custom_action_cannot_replace_a_built_in(self, parts: Parts) -> None:
        """A custom entry named like a built-in is ignored: "summarize" stays the summary."""
        seen: list[TurnContext] = []
        memory = MemoryActions(parts.texts, {"summarize": seen.append})
        session = new_session()
        task = parts.task(session, "report_issue", "PARAM_COLLECT")
        with transition(parts, session, task, "provide_param", updates={"product": "phone"}) as ctx:
            memory.run("summarize", ctx)
        assert seen == [] and session.summary.facts != []

    @LANGS
    def test_a_custom_action_in_the_bot_file_runs_after_its_transition(self, tmp_path: Path, lang: str) -> None:
        """Named in a flow's memory list, it runs after the before-phase actions and sees the values just written."""
        module = f"probe_{uuid.uuid4().hex[:10]}"
        (tmp_path / f"{module}.py").write_text(textwrap.dedent("""\
            from dialogkit import memory_action

            @memory_action
            def observe(ctx):
                ctx.say.append(f"observed {ctx.trigger} {sorted(ctx.task.slots.items())}")
            """), encoding="utf-8")
        parts = build(textwrap.dedent(f"""\
            bot: {{name: probe}}
            entities:
              order_id: {{pattern: '\\d{{5}}'}}
            flows:
              report:
                description: 报告问题 / Report a problem
                trigger: {{keywords: [坏了, broken]}}
                slots:
                  - {{name: order_id, entity: order_id}}
                memory:
                  start_task: [resolve_references, "{module}:observe"]
            """), actions={}, base_dir=tmp_path)
        text = {"zh": "订单 12345 坏了", "en": "order 12345 is broken"}[lang]
        ctx = parts.respond(new_session(lang), text)
        assert ctx.say[0] == "observed start_task [('order_id', '12345')]"
        assert ctx.memory_run[:2] == ["resolve_references", f"{module}:observe"]

    def test_run_ignores_a_name_it_does_not_know(self, parts: Parts) -> None:
        """The bot file's checks refuse unknown names; at run time one is simply not run."""
        session = new_session()
        with parts.turn(session, "hello") as ctx:
            parts.memory.run("no_such_action", ctx)
        assert ctx.memory_run == []
