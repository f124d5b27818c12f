"""``migrate_session``: a stored session brought up to date with a changed bot file (docs/lifecycle.md).

Each kind of change a release can make (a flow renamed or removed, a slot renamed, removed or made
required, a stricter rule) is applied to a session saved mid-task, in Chinese and in English; the
migration never fails, drops only what no longer exists, and keeps entity memory and the summary.
``SHOP`` and ``variant`` are shared with the conversation-level tests in tests/test_bot_reload.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from dialogkit.actions.loading import LoadedBot, parse_bot_text, spec_version
from dialogkit.engine.migration import Migration, migrate_session
from dialogkit.errors import ActionError
from dialogkit.model.session import (
    Candidate,
    Entity,
    PendingClarification,
    PersistedValue,
    Session,
    SummaryItem,
    Task,
)
from dialogkit.text.labels import Texts

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
ACTIONS: dict[str, Any] = {"return_it": {"return_id": "R-1"}, "track_it": {"status": "shipped"}}

SHOP: dict[str, Any] = {
    "bot": {"name": "shop", "language": "auto"},
    "entities": {
        "order_id": {"pattern": r"(?<!\d)\d{5,12}(?!\d)", "kind": "thing"},
        "product": {"kind": "thing", "values": {
            "phone": {"aliases": ["手机", "phone"], "label": {"zh": "手机", "en": "phone"}},
            "laptop": {"aliases": ["笔记本", "laptop"], "label": {"zh": "笔记本电脑", "en": "laptop"}},
        }},
    },
    "flows": {
        "return_item": {
            "description": "退货 / Return an item",
            "trigger": {"intent": "return_item", "examples": ["我要退货", "I want to return an item"],
                        "keywords": ["退货", "return"]},
            "slots": [
                {"name": "order_id", "entity": "order_id", "persist": "session",
                 "label": {"zh": "订单号", "en": "order number"},
                 "ask": {"zh": "请提供订单号。", "en": "What is your order number?"}},
                {"name": "product", "entity": "product", "ask": {"zh": "退哪件商品？", "en": "Which product is it?"}},
                {"name": "reason", "required": False, "ask": {"zh": "退货原因是什么？", "en": "Why are you returning it?"}},
            ],
            "confirm": {"ask": {"zh": "为订单 {order_id} 退{product}，确认吗？",
                                "en": "Return the {product} of order {order_id}. Shall I go ahead?"}},
            "execute": {"action": "return_it", "say": {"zh": "已提交退货 {return_id}。", "en": "Return {return_id} filed."}},
        },
        "track": {
            "description": "查询物流 / Track an order",
            "trigger": {"intent": "track", "examples": ["我的快递到哪了", "where is my parcel"],
                        "keywords": ["快递", "物流", "parcel", "track"]},
            "slots": [{"name": "order_id", "entity": "order_id", "persist": "session",
                       "ask": {"zh": "请提供订单号。", "en": "Which order?"}}],
            "execute": {"action": "track_it", "say": {"zh": "订单 {order_id}：{status}。", "en": "Order {order_id}: {status}."}},
        },
    },
}
"""A two-flow bot: returns (with a confirmation) and tracking. JSON is YAML, so it is written as data."""


def _rename_flow(bot: dict[str, Any]) -> None:
    flows = bot["flows"]
    flows["send_back"] = flows.pop("return_item")
    flows["send_back"]["trigger"]["intent"] = "send_back"


def _remove_flow(bot: dict[str, Any]) -> None:
    del bot["flows"]["return_item"]


def _rename_slot(bot: dict[str, Any]) -> None:
    flow = bot["flows"]["return_item"]
    flow["slots"][0]["name"] = "order_number"
    flow["confirm"]["ask"] = {k: v.replace("{order_id}", "{order_number}") for k, v in flow["confirm"]["ask"].items()}


def _remove_slot(bot: dict[str, Any]) -> None:
    flow = bot["flows"]["return_item"]
    flow["slots"] = [s for s in flow["slots"] if s["name"] != "product"]
    flow["confirm"]["ask"] = {"zh": "为订单 {order_id} 退货，确认吗？", "en": "Return order {order_id}. Shall I go ahead?"}


def _require_slot(bot: dict[str, Any]) -> None:
    bot["flows"]["return_item"]["slots"][2]["required"] = True


def _stricter_rule(bot: dict[str, Any]) -> None:
    bot["flows"]["return_item"]["slots"][0]["validate"] = [
        {"pattern": r"^\d{8,12}$", "error": {"zh": "订单号应为8到12位数字。", "en": "An order number has 8 to 12 digits."}}]


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "flow_renamed": _rename_flow, "flow_removed": _remove_flow, "slot_renamed": _rename_slot,
    "slot_removed": _remove_slot, "slot_made_required": _require_slot, "stricter_rule": _stricter_rule,
}


def variant(*changes: str) -> str:
    """The bot file's text after the named changes (``CHANGES``); no change gives ``SHOP`` itself."""
    bot = copy.deepcopy(SHOP)
    for change in changes:
        CHANGES[change](bot)
    return json.dumps(bot, ensure_ascii=False, indent=1)


def load(*changes: str, actions: dict[str, Any] | None = None) -> LoadedBot:
    return parse_bot_text(variant(*changes), actions=actions or ACTIONS)


def saved(lang: str, state: str = "PARAM_COLLECT", **slots: Any) -> Session:
    """A session saved mid-return with the original bot: order 12345 given, a phone named, the
    product or confirmation asked; entity memory and the summary hold what was said."""
    values = {"order_id": "12345", "product": "phone", **slots}
    task = Task(flow="return_item", state=state, slots=values, slot_turns={name: 1 for name in values},
                pending_slot="product" if state == "PARAM_COLLECT" else None, reprompts=1, started_turn=1,
                prefilled=["order_id"])
    session = Session(id="s1", user_id="u1", language=lang, turn=1, stack=[task], last_flow="return_item",
                      bot_version=load().version)
    session.entities = [Entity(id="e1", type="order_id", kind="thing", value="12345", mentions=1)]
    session.summary.facts = [SummaryItem(key=f"return_item#{task.id}", zh="退货", en="Return an item", turn=1)]
    return session


def migrate(session: Session, *changes: str) -> Migration:
    loaded = load(*changes)
    return migrate_session(session, loaded.spec, Texts(loaded.spec), loaded.actions.validate)


class TestVersion:
    def test_comments_and_formatting_do_not_change_the_version(self) -> None:
        text = variant()
        compact = json.dumps(json.loads(text), ensure_ascii=False)
        commented = "# a comment\n" + text
        versions = {parse_bot_text(t, actions=ACTIONS).version for t in (text, compact, commented)}
        assert len(versions) == 1

    def test_a_default_written_out_does_not_change_the_version(self) -> None:
        bot = copy.deepcopy(SHOP)
        bot["flows"]["track"]["slots"][0]["required"] = True
        assert parse_bot_text(json.dumps(bot), actions=ACTIONS).version == load().version

    @pytest.mark.parametrize("change", sorted(CHANGES))
    def test_every_change_a_session_can_notice_gives_a_new_version(self, change: str) -> None:
        assert load(change).version != load().version

    def test_the_version_is_the_spec_version(self) -> None:
        loaded = load()
        assert loaded.version == spec_version(loaded.spec) and len(loaded.version) == 16


class TestUnchanged:
    @LANGS
    def test_a_session_of_the_same_bot_is_left_as_it_is(self, lang: str) -> None:
        session = saved(lang)
        before = session.model_dump()
        result = migrate(session)
        assert not result.changed and result.messages == []
        assert session.model_dump() == before


class TestFlows:
    @LANGS
    def test_a_renamed_flow_cancels_the_task_and_names_it_by_its_summary_line(self, lang: str) -> None:
        session = saved(lang)
        result = migrate(session, "flow_renamed")
        assert session.stack == [] and session.state == "IDLE"
        assert result.flows_dropped == ["return_item"]
        assert result.messages == [{"zh": "之前的「退货」已不再提供。",
                                    "en": 'The earlier "return an item" task is no longer available.'}[lang]]
        assert session.last_flow is None

    @LANGS
    def test_a_removed_flow_without_a_summary_line_is_named_by_its_flow_name(self, lang: str) -> None:
        session = saved(lang)
        session.summary.facts = []
        result = migrate(session, "flow_removed")
        assert session.stack == []
        assert result.messages == [{"zh": "之前的「return item」已不再提供。",
                                    "en": 'The earlier "return item" task is no longer available.'}[lang]]

    @LANGS
    def test_a_suspended_task_of_a_gone_flow_is_dropped_and_the_active_one_kept(self, lang: str) -> None:
        session = saved(lang)
        session.stack.append(Task(flow="track", state="PARAM_COLLECT", pending_slot="order_id"))
        result = migrate(session, "flow_removed")
        assert [t.flow for t in session.stack] == ["track"]
        assert session.task is not None and session.task.pending_slot == "order_id"     # untouched
        assert result.flows_dropped == ["return_item"] and len(result.messages) == 1

    @LANGS
    def test_a_pending_clarification_of_a_gone_flow_is_dropped(self, lang: str) -> None:
        session = saved(lang)
        session.pending = PendingClarification(
            kind="slot_value", flow="return_item", slot="product", original_text="手机或者笔记本",
            candidates=[Candidate(value="phone", type="product", label="手机"),
                        Candidate(value="laptop", type="product", label="笔记本电脑")])
        result = migrate(session, "flow_renamed")
        assert session.pending is None and result.clarification_dropped


class TestSlots:
    @LANGS
    def test_a_renamed_slot_drops_the_old_value_and_asks_again(self, lang: str) -> None:
        session = saved(lang)
        result = migrate(session, "slot_renamed")
        task = session.task
        assert task is not None
        assert task.slots == {"product": "phone"} and "order_id" not in task.slot_turns
        assert task.prefilled == [] and task.pending_slot is None and task.reprompts == 0
        assert task.state == "PARAM_COLLECT"
        assert result.slots_dropped == ["return_item.order_id"]
        assert result.tasks_reset == ["return_item"] and result.messages == []

    @LANGS
    def test_a_removed_slot_drops_its_value_and_the_question_for_it(self, lang: str) -> None:
        session = saved(lang)
        result = migrate(session, "slot_removed")
        task = session.task
        assert task is not None and task.slots == {"order_id": "12345"} and task.pending_slot is None
        assert result.slots_dropped == ["return_item.product"]

    @LANGS
    def test_a_confirmation_whose_slots_changed_is_asked_again_before_anything_runs(self, lang: str) -> None:
        session = saved(lang, "CONFIRMATION")
        migrate(session, "slot_removed")
        task = session.task
        assert task is not None and task.state == "PARAM_COLLECT" and task.slots == {"order_id": "12345"}

    @LANGS
    def test_a_slot_made_required_takes_a_confirmation_back_to_asking(self, lang: str) -> None:
        session = saved(lang, "CONFIRMATION")
        result = migrate(session, "slot_made_required")
        task = session.task
        assert task is not None and task.state == "PARAM_COLLECT" and task.pending_slot is None
        assert task.slots == {"order_id": "12345", "product": "phone"}
        assert result.tasks_reset == ["return_item"] and result.slots_dropped == []

    @LANGS
    def test_a_confirmation_keeps_its_place_unless_a_required_value_went(self, lang: str) -> None:
        refused = saved(lang, "CONFIRMATION")
        migrate(refused, "stricter_rule")
        assert refused.state == "PARAM_COLLECT"          # 12345 is refused: asked again
        valid = saved(lang, "CONFIRMATION", order_id="12345678")
        assert not migrate(valid, "stricter_rule").changed and valid.state == "CONFIRMATION"

    @LANGS
    def test_a_value_the_new_rules_refuse_is_dropped_and_asked_again(self, lang: str) -> None:
        session = saved(lang)
        result = migrate(session, "stricter_rule")
        task = session.task
        assert task is not None and "order_id" not in task.slots and task.pending_slot is None
        assert result.values_refused == ["return_item.order_id"] and result.slots_dropped == []
        assert result.messages == {"zh": ["之前提供的订单号已不再有效。", "订单号应为8到12位数字。"],
                                   "en": ["The order number you gave earlier is no longer valid.",
                                          "An order number has 8 to 12 digits."]}[lang]
        assert "12345" not in json.dumps(result.event())      # the event names slots, never values

    def test_a_refused_value_of_a_suspended_task_is_dropped_without_a_word(self) -> None:
        session = saved("zh")
        session.stack.append(Task(flow="track", state="PARAM_COLLECT", pending_slot="order_id"))
        result = migrate(session, "stricter_rule")
        assert result.values_refused == ["return_item.order_id"] and result.messages == []
        assert "order_id" not in session.stack[0].slots

    @LANGS
    def test_a_custom_validator_that_fails_keeps_the_value(self, lang: str) -> None:
        def broken(value: Any) -> str | None:
            raise ActionError("validator down")

        bot = copy.deepcopy(SHOP)
        bot["flows"]["return_item"]["slots"][0]["validate"] = [{"action": "check_order"}]
        loaded = parse_bot_text(json.dumps(bot), actions={**ACTIONS, "check_order": broken})
        session = saved(lang)
        result = migrate_session(session, loaded.spec, Texts(loaded.spec), loaded.actions.validate)
        assert session.task is not None and session.task.slots["order_id"] == "12345"
        assert result.values_refused == []

    def test_session_values_of_slots_no_flow_declares_are_dropped(self) -> None:
        session = saved("zh")
        session.session_slots = {"order_id": PersistedValue(value="12345"), "coupon": PersistedValue(value="X1")}
        result = migrate(session, "slot_renamed")
        assert list(session.session_slots) == ["order_id"]      # track still declares order_id
        assert "session.coupon" in result.slots_dropped

    def test_a_pending_clarification_of_a_gone_slot_is_dropped_and_of_a_kept_one_kept(self) -> None:
        pending = PendingClarification(
            kind="slot_value", flow="return_item", slot="product", original_text="手机或者笔记本",
            candidates=[Candidate(value="phone", type="product", label="手机")])
        session = saved("zh")
        session.pending = pending
        assert migrate(session, "slot_renamed").clarification_dropped is False and session.pending is not None
        session.pending = pending
        assert migrate(session, "slot_removed").clarification_dropped is True and session.pending is None


class TestMemory:
    @pytest.mark.parametrize("change", sorted(CHANGES))
    def test_entity_memory_and_the_summary_survive_every_change(self, change: str) -> None:
        session = saved("zh")
        entities, facts = list(session.entities), list(session.summary.facts)
        migrate(session, change)
        assert session.entities == entities and session.summary.facts == facts
