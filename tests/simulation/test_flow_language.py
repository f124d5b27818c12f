"""The simulation of the flow language's second part: choices, re-ask variants, ask_if, FAQ and
then (docs/bot-file.md), each checked on hand-made turns or against the shipped support bot."""

from __future__ import annotations

from dialogkit.bot import Bot
from dialogkit.engine.handoff import take_over_message
from dialogkit.model.reply import ActionRun, Reply
from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.harness import listed_choices
from dialogkit.simulation.invariants.asked_slot import bare_answer_goes_to_asked_slot
from dialogkit.simulation.invariants.conditional import unneeded_slot_neither_asked_nor_kept
from dialogkit.simulation.invariants.faq import faq_answered_in_place
from dialogkit.simulation.invariants.follow_up import follow_up_starts_with_carried_slots
from dialogkit.simulation.invariants.forgetting import forget_asks_first_empty_slot
from dialogkit.simulation.invariants.handoff import handoff_says_a_person_takes_over
from dialogkit.simulation.observation import Snapshot, TurnRecord
from dialogkit.simulation.values import SlotValues
from dialogkit.spec.schema import HandoffAction
from tests.simulation._records import ROOT, SUPPORT, catalog, judge, record, reply, said, utterance

FLOW_LANGUAGE = ROOT / "tests" / "conversations" / "bots" / "flow_language.yaml"
RETURN = Snapshot("PARAM_COLLECT", "return_order", {}, ("return_order",), (), "order_id")


def test_choices_slots_are_answered_from_the_actions_options_by_value_label_and_ordinal() -> None:
    bot = Bot.from_file(SUPPORT, store="memory://")
    try:
        cat = Catalog(bot.spec)
        choices = listed_choices(bot, cat)
    finally:
        bot.close()
    options = choices[("return_order", "order_id")]
    values = SlotValues(cat, 0, choices)
    values.prepare(("zh", "en"))
    slot = cat.flows["return_order"].slot("order_id")
    assert slot is not None
    valid, invalid = values.source(slot, "zh", True), values.source(slot, "zh", False)
    assert valid is not None and invalid is not None and invalid.pool is not None
    texts = {s.text: s.canonical for s in valid.listed}
    assert texts["第二个"] == options[1].value and texts[options[0].label("zh")] == options[0].value
    names = [str(c.value) for c in options]
    assert all(not any(n in s.text for n in names) and not s.valid for s in values.examples[invalid.pool])


def test_an_outside_value_refused_with_the_list_is_the_expected_answer() -> None:
    outside = said("99999999", entity="order_id", valid=False)
    turn = record(utterance("99999999", "answer", slot="order_id", mentions=(outside,)),
                  reply("“99999999”不在可选项中。要退哪个订单？可选：12345（已发货）。", state="PARAM_COLLECT",
                        flow="return_order"), before=RETURN, asked="order_id")
    assert bare_answer_goes_to_asked_slot(turn, judge()) is None
    taken = record(utterance("99999999", "answer", slot="order_id", mentions=(outside,)),
                   reply("退货原因是什么？", state="PARAM_COLLECT", flow="return_order", slots={"order_id": "99999999"}),
                   before=RETURN)
    finding = bare_answer_goes_to_asked_slot(taken, judge())
    assert finding is not None and finding.kind == "invalid_value_accepted"


def test_forgetting_accepts_any_re_ask_variant_of_the_first_empty_slot() -> None:
    second = "好的，已忘记。请从您最近的订单中选一个，也可以说“第二个”。可选：12345（已发货）。"
    turn = record(utterance("忘记刚才说的", "forget"), reply(second, state="PARAM_COLLECT", flow="return_order"),
                  before=RETURN)
    assert forget_asks_first_empty_slot(turn, judge()) is None
    wrong = record(utterance("忘记刚才说的", "forget"), reply("退货原因是什么？", state="PARAM_COLLECT",
                                                           flow="return_order"), before=RETURN)
    finding = forget_asks_first_empty_slot(wrong, judge())
    assert finding is not None and finding.expect == {"bot": "要退哪个订单？"}


def test_a_slot_whose_ask_if_is_false_is_neither_asked_nor_kept() -> None:
    flow = catalog().flows["return_order"]
    photo = flow.slot("photo_url")
    assert photo is not None and [s.name for s in flow.missing({"order_id": "1", "return_reason": "damaged"})] == [
        "photo_url"]
    assert not flow.missing({"order_id": "1", "return_reason": "wrong_item"})
    kept = record(utterance("不对，退货原因是发错货", "correct"), reply(
        "…", state="CONFIRMATION", flow="return_order",
        slots={"order_id": "1", "return_reason": "wrong_item", "photo_url": "http://x"}))
    finding = unneeded_slot_neither_asked_nor_kept(kept, judge())
    assert finding is not None and finding.kind == "unneeded_slot_kept"
    dropped = record(utterance("不对，退货原因是发错货", "correct"), reply(
        "…", state="CONFIRMATION", flow="return_order", slots={"order_id": "1", "return_reason": "wrong_item"}))
    assert unneeded_slot_neither_asked_nor_kept(dropped, judge()) is None


def test_an_faq_question_is_answered_and_the_pending_question_follows() -> None:
    asked = Snapshot("PARAM_COLLECT", "report_issue", {"product": "phone"}, ("report_issue",), (), "order_id")
    good = record(utterance("营业时间是什么", "faq", faq="opening_hours"), reply(
        "客服时间：每天 9:00–21:00。请提供您的订单号。", state="PARAM_COLLECT", flow="report_issue",
        slots={"product": "phone"}), before=asked, asked="order_id")
    assert faq_answered_in_place(good, judge()) is None
    moved = record(utterance("营业时间是什么", "faq", faq="opening_hours"), reply(
        "客服时间：每天 9:00–21:00。", state="IDLE"), before=asked)
    finding = faq_answered_in_place(moved, judge())
    assert finding is not None and finding.kind == "changed_state"


def _then_turn(answer: Reply) -> TurnRecord:
    before = Snapshot("CONFIRMATION", "report", {"order_id": "12345", "issue_type": "missing"}, ("report",))
    return record(utterance("yes", "yes", "en"), answer, before=before)


def test_a_then_flow_starts_with_the_slots_carried_by_name() -> None:
    bot_judge = judge(FLOW_LANGUAGE)
    started = Reply(text="Shall we notify you by text or by email?", state="PARAM_COLLECT", flow="notify",
                    slots={"order_id": "12345"}, session_id="s", language="en", transitions=["execute"])
    assert follow_up_starts_with_carried_slots(_then_turn(started), bot_judge) is None
    idle = Reply(text="Done.", state="IDLE", flow=None, slots={}, session_id="s", language="en",
                 transitions=["execute"])
    finding = follow_up_starts_with_carried_slots(_then_turn(idle), bot_judge)
    assert finding is not None and finding.kind == "not_started"


def test_a_handoff_to_a_person_must_say_a_person_takes_over() -> None:
    bot_judge = judge()
    object.__setattr__(bot_judge.catalog.spec.bot, "handoff_", HandoffAction(action="notify_agent"))
    before = Snapshot("PARAM_COLLECT", "report_issue", {}, ("report_issue",), (), "order_id")
    ran = [ActionRun("notify_agent", {})]
    turn = utterance("abc", "answer", slot="order_id")
    said_it = reply("订单号应为5到12位数字。" + take_over_message("zh"), actions=ran)
    assert handoff_says_a_person_takes_over(record(turn, said_it, before=before), bot_judge) is None
    silent = reply("订单号应为5到12位数字。", actions=ran)
    finding = handoff_says_a_person_takes_over(record(turn, silent, before=before), bot_judge)
    assert finding is not None and finding.kind == "no_take_over_line"
    kept = reply(take_over_message("zh"), state="PARAM_COLLECT", flow="report_issue", actions=ran)
    finding = handoff_says_a_person_takes_over(record(turn, kept, before=before), bot_judge)
    assert finding is not None and finding.kind == "task_kept"
