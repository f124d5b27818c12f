"""(m) A value offered for a slot of the active task, asked or not, is set, or the reply clarifies
or says why not: on hand-made turns of real bot files, in Chinese and in English, and on the moves
that offer such values."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialogkit.model.reply import ActionRun
from dialogkit.simulation.harness import Options, Simulation, listed_choices, request_types
from dialogkit.simulation.invariants.offered_values import offered_value_is_set
from dialogkit.simulation.moves import Scene, offer, several, trigger_with_values
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.runner import open_bot
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import SlotValues
from tests.simulation._records import ROOT, SUPPORT, TRANSFER, catalog, judge, record, reply, said, utterance

HELPDESK = ROOT / "tests" / "conversations" / "bots" / "it_helpdesk.yaml"
FAULT = Snapshot("PARAM_COLLECT", "report_fault", {"symptom": "no_boot"}, ("report_fault",), (), "asset_tag")
ASSET_QUESTION = {"zh": "请提供电脑的资产编号（例如 IT-0042）。", "en": "What is the laptop's asset tag (like IT-0042)?"}
NOT_URGENT = {"zh": "紧急：否", "en": "urgent: no"}


def _not_urgent(language: str) -> Utterance:
    text = NOT_URGENT[language]
    answer = "否" if language == "zh" else "no"
    return utterance(text, "offer", language, slot="urgent",
                     fills={"urgent": said(answer, False, "yes_no", form="builtin")})


@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_unasked_yes_no_answer_that_is_ignored_is_caught(language: str) -> None:
    """The it-helpdesk bot asks for the asset tag; the user says it is not urgent."""
    ignored = reply(ASSET_QUESTION[language], state="PARAM_COLLECT", flow="report_fault",
                    slots={"symptom": "no_boot"}, language=language)
    finding = offered_value_is_set(record(_not_urgent(language), ignored, before=FAULT, asked="asset_tag"),
                                   judge(HELPDESK))
    assert finding is not None and finding.kind == "unasked_yes_no_ignored"
    assert finding.expect == {"slots": {"urgent": False}}
    assert repr(NOT_URGENT[language]) in finding.message and "left empty" in finding.message


@pytest.mark.parametrize("language", ["zh", "en"])
def test_an_unasked_yes_no_answer_that_is_set_passes(language: str) -> None:
    taken = reply(ASSET_QUESTION[language], state="PARAM_COLLECT", flow="report_fault",
                  slots={"symptom": "no_boot", "urgent": False}, language=language)
    assert offered_value_is_set(record(_not_urgent(language), taken, before=FAULT, asked="asset_tag"),
                                judge(HELPDESK)) is None


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_clarification_is_an_answer_too(language: str) -> None:
    asked = reply("?", state="PARAM_COLLECT", flow="report_fault", slots={"symptom": "no_boot"}, language=language,
                  clarification=[True, False])
    assert offered_value_is_set(record(_not_urgent(language), asked, before=FAULT), judge(HELPDESK)) is None


PAYING = Snapshot("PARAM_COLLECT", "transfer", {"payee": "John Smith"}, ("transfer",), (), "amount")


@pytest.mark.parametrize(("language", "text", "refused"), [
    ("zh", "金额是100，币种是欧元", "只支持人民币和美元。"),
    ("en", "the amount is 100, the currency is euros", "Only yuan and dollars are supported."),
])
def test_several_values_one_set_one_refused_with_its_rule_message(language: str, text: str, refused: str) -> None:
    several = utterance(text, "several", language, fills={"amount": said("100", 100, "number", form="number"),
                                                          "currency": said("欧元", "EUR", "currency")})
    slots = {"payee": "John Smith", "amount": 100}
    told = reply(f"{refused} ?", state="PARAM_COLLECT", flow="transfer", slots=slots, language=language)
    assert offered_value_is_set(record(several, told, before=PAYING), judge(TRANSFER)) is None
    silent = reply("?", state="PARAM_COLLECT", flow="transfer", slots=slots, language=language)
    finding = offered_value_is_set(record(several, silent, before=PAYING), judge(TRANSFER))
    assert finding is not None and finding.kind == "unasked_value_ignored"
    assert finding.expect == {"slots": {"currency": "EUR"}}


@pytest.mark.parametrize(("language", "text"), [("zh", "金额是100"), ("en", "the amount is 100")])
def test_a_labelled_answer_to_the_question_asked_that_is_ignored_is_caught(language: str, text: str) -> None:
    named = utterance(text, "several", language, fills={"amount": said("100", 100, "number", form="number")})
    silent = reply("?", state="PARAM_COLLECT", flow="transfer", slots=PAYING.slots, language=language)
    finding = offered_value_is_set(record(named, silent, before=PAYING), judge(TRANSFER))
    assert finding is not None and finding.kind == "asked_value_ignored"


@pytest.mark.parametrize(("language", "text"), [("zh", "不对，收款人是玛丽"), ("en", "no, the payee is Mary")])
def test_a_correction_that_changes_nothing_is_caught(language: str, text: str) -> None:
    fix = utterance(text, "correct", language, slot="payee", fills={"payee": said("Mary", "Mary Jones", "payee")})
    kept = reply("?", state="PARAM_COLLECT", flow="transfer", slots=PAYING.slots, language=language)
    finding = offered_value_is_set(record(fix, kept, before=PAYING), judge(TRANSFER))
    assert finding is not None and finding.kind == "correction_ignored" and "still holds 'John Smith'" in finding.message
    changed = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "Mary Jones"}, language=language)
    assert offered_value_is_set(record(fix, changed, before=PAYING), judge(TRANSFER)) is None


@pytest.mark.parametrize(("language", "text"), [("zh", "给约翰转账，金额是100"), ("en", "send money to John, the amount is 100")])
def test_values_with_the_request_count_once_the_task_started_or_ran(language: str, text: str) -> None:
    request = utterance(text, "trigger_with_values", language, flow="transfer",
                        fills={"amount": said("100", 100, "number", form="number")})
    not_started = reply("?", language=language)
    assert offered_value_is_set(record(request, not_started), judge(TRANSFER)) is None
    started = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith"}, language=language)
    finding = offered_value_is_set(record(request, started), judge(TRANSFER))
    assert finding is not None and finding.kind == "unasked_value_ignored"
    inputs = {"payee": "John Smith", "amount": 100, "currency": "CNY"}
    ran = reply("done", slots=inputs, language=language, actions=[ActionRun("send_money", inputs)])
    assert offered_value_is_set(record(request, ran), judge(TRANSFER)) is None


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_task_left_or_a_pending_clarification_is_not_judged(language: str) -> None:
    cancelled = reply("OK", language=language)
    assert offered_value_is_set(record(_not_urgent(language), cancelled, before=FAULT), judge(HELPDESK)) is None
    pending = Snapshot(FAULT.state, FAULT.flow, FAULT.slots, FAULT.stack, ("IT-0042", "IT-0043"), FAULT.asked)
    ignored = reply("?", state="PARAM_COLLECT", flow="report_fault", slots=FAULT.slots, language=language)
    assert offered_value_is_set(record(_not_urgent(language), ignored, before=pending), judge(HELPDESK)) is None


# -- the moves that offer values -----------------------------------------------------------------------

def _scene(path: object, before: Snapshot, language: str) -> Scene:
    cat = catalog(path)  # type: ignore[arg-type]
    values = SlotValues(cat)
    values.prepare(("zh", "en"))
    return Scene(cat, values, {}, before, UserMemory(language), language)


@pytest.mark.parametrize(("language", "frames"), [("zh", {"紧急：是", "紧急：否"}), ("en", {"urgent: yes", "urgent: no"})])
def test_an_unasked_yes_no_value_is_offered_after_its_label(language: str, frames: set[str]) -> None:
    scene = _scene(HELPDESK, FAULT, language)
    said_: set[str] = set()

    @settings(max_examples=60, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        turn = offer(data, scene)
        assert turn.move == "offer" and turn.slot != "asset_tag" and turn.slot in turn.fills
        if turn.slot == "urgent":
            said_.add(turn.text)

    check()
    assert said_ == frames


def test_values_said_with_a_request_go_to_slots_it_does_not_fill_already() -> None:
    """"转100元给玛丽" gives the payee, the amount and the currency: no second value for any of them."""
    bot, _ = open_bot(TRANSFER)
    try:
        scene = _scene(TRANSFER, Snapshot(), "zh")
        scene.catalog.request_types.update(request_types(bot, scene.catalog))
    finally:
        bot.close()
    assert {"payee", "number", "currency"} <= scene.catalog.request_types["转100元给玛丽"]

    @settings(max_examples=80, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        turn = trigger_with_values(data, scene)
        request = turn.text.split("，")[0]
        read = scene.catalog.request_types[request]
        slots = [scene.catalog.slot(turn.flow, name) for name in turn.fills]
        assert all(slot is not None and slot.entity not in read for slot in slots)

    check()


def test_an_ordinal_names_an_option_only_for_the_question_that_listed_the_options() -> None:
    """"我要退货，订单号是第一个" points at no list: the return desk shows its orders with the question."""
    bot, _ = open_bot(SUPPORT)
    try:
        cat = catalog(SUPPORT)
        values = SlotValues(cat, 0, listed_choices(bot, cat))
    finally:
        bot.close()
    values.prepare(("zh", "en"))
    slot = cat.flows["return_order"].slot("order_id")
    assert slot is not None and any(s.form == "ordinal" for s in values.source(slot, "zh").listed)  # type: ignore[union-attr]
    asking = Snapshot("PARAM_COLLECT", "return_order", {}, ("return_order",), (), "order_id")
    forms: dict[str, set[str]] = {"idle": set(), "asked": set()}

    @settings(max_examples=150, database=None, deadline=None)
    @given(st.data(), st.sampled_from(["zh", "en"]))
    def check(data: st.DataObject, language: str) -> None:
        idle = trigger_with_values(data, Scene(cat, values, {}, Snapshot(), UserMemory(language), language))
        forms["idle"] |= {s.form for s in idle.fills.values()}
        listed = several(data, Scene(cat, values, {}, asking, UserMemory(language), language))
        forms["asked"] |= {s.form for s in listed.fills.values()}

    check()
    assert "ordinal" not in forms["idle"] and "ordinal" in forms["asked"]


@pytest.mark.parametrize(("language", "read"), [("zh", True), ("en", False)])
def test_a_value_is_named_after_its_label_only_where_the_bots_pattern_reads_it_there(language: str,
                                                                                      read: bool) -> None:
    """The bank-card bot reads a card's last four digits after "尾号" / "后四位" or alone: "卡号后四位是0000"
    gives the card, "the card ending is 0000" does not (a limit of this bot file, not of the engine)."""
    from tests.simulation._records import BANK_CARD

    cat = catalog(BANK_CARD)
    values = SlotValues(cat)
    values.prepare(("zh", "en"))
    before = Snapshot("PARAM_COLLECT", "freeze_card", {"reason": "lost"}, ("freeze_card",), (), "delivery_address")
    offered: set[str] = set()

    @settings(max_examples=80, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        pools = data.draw(values.draw_pools())
        turn = offer(data, Scene(cat, values, pools, before, UserMemory(language), language))
        offered.update(turn.fills)

    check()
    assert ("card_last4" in offered) is read and "send_replacement" in offered


PHARMACY = ROOT / "examples" / "pharmacy" / "pharmacy.yaml"
PICKING_UP = Snapshot("PARAM_COLLECT", "refill", {"medicine": "metformin"}, ("refill",), (), "rx_number")
CLOSED = "周日不营业，请另选一天。/ We are closed on Sundays; please pick another day."
ASK_RX = {"zh": "请提供处方号（例如 RX123456）。", "en": "What is your prescription number (for example RX123456)?"}


@pytest.mark.parametrize(("language", "text"), [("zh", "取药日期是2026年9月27日"),
                                                ("en", "the pick-up day is September 27, 2026")])
def test_a_refusal_by_the_bots_validator_code_says_why(language: str, text: str) -> None:
    """The pharmacy's ``not_on_sunday`` refuses a Sunday with a message of its own; the simulation
    runs that validator on the value offered, so the message counts as the slot's rule message."""
    bot, stubs = open_bot(PHARMACY)
    sim = Simulation(bot, Options(conversations=1), stubs)
    sunday = utterance(text, "offer", language, fills={"pickup_date": said(text, "2026-09-27", "date")})
    refusals = sim.refusals(sunday)
    assert refusals == (CLOSED,)
    told = reply(f"{CLOSED}{ASK_RX[language]}", state="PARAM_COLLECT", flow="refill",
                 slots={"medicine": "metformin"}, language=language)
    turn = replace(record(sunday, told, before=PICKING_UP), refusals=refusals)
    assert offered_value_is_set(turn, judge(PHARMACY)) is None
    silent = replace(turn, reply=reply(ASK_RX[language], state="PARAM_COLLECT", flow="refill",
                                       slots={"medicine": "metformin"}, language=language))
    finding = offered_value_is_set(silent, judge(PHARMACY))
    assert finding is not None and finding.kind == "unasked_value_ignored"
