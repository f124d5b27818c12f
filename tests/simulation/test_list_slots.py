"""List slots in the simulator: two values said together, one added, one dropped, in Chinese and
English, and the invariants that read a list as a set of values (the concierge bot's services)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialogkit.model.reply import ActionRun
from dialogkit.simulation.invariants.asked_slot import bare_answer_goes_to_asked_slot
from dialogkit.simulation.invariants.offered_values import offered_value_is_set
from dialogkit.simulation.invariants.rejected_values import action_never_runs_with_taken_back_value
from dialogkit.simulation.list_moves import add_value, drop_value, list_values
from dialogkit.simulation.moves import Scene
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.user_memory import UserMemory, slot_key
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import Said, SlotValues
from tests.simulation._records import ROOT, catalog, judge, record, remember, reply, said, utterance

CONCIERGE = ROOT / "tests" / "conversations" / "bots" / "concierge.yaml"
FLOW = "book_services"
ROOM_ASKED = Snapshot("PARAM_COLLECT", FLOW, {"services": ["spa", "wake_up"]}, (FLOW,), (), "room")
CONFIRMING = Snapshot("CONFIRMATION", FLOW, {"services": ["spa", "wake_up"], "room": 101}, (FLOW,))
SERVICES_ASKED = Snapshot("PARAM_COLLECT", FLOW, {}, (FLOW,), (), "services")


def _scene(before: Snapshot, language: str) -> Scene:
    cat = catalog(CONCIERGE)
    values = SlotValues(cat)
    values.prepare(("zh", "en"))
    return Scene(cat, values, {}, before, UserMemory(language), language)


def _meant(text: str, canonical: Any) -> Said:
    return said(text, canonical, "service") if canonical is not None else Said(text, None, "service")


def test_a_list_is_compared_as_the_set_of_its_values() -> None:
    assert slot_key(["spa", "gym"]) == slot_key(["gym", "spa"]) != slot_key(["spa"])
    assert slot_key(["spa"]) == slot_key("spa")


# -- the moves --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "joiners"), [("zh", ("和", "、")), ("en", (" and ",))])
def test_two_values_are_the_list_bare_to_its_question_and_after_its_label_otherwise(
        language: str, joiners: tuple[str, ...]) -> None:
    asked, other = _scene(SERVICES_ASKED, language), _scene(ROOM_ASKED, language)
    label = "服务是" if language == "zh" else "the services is "

    @settings(max_examples=40, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        bare = list_values(data, asked)
        meant = bare.fills["services"].canonical
        assert bare.move == "answer" and bare.slot == "services" and len(set(meant)) == 2
        assert any(j in bare.text for j in joiners) and not bare.text.startswith(label)
        labelled = list_values(data, other)
        assert labelled.move == "list_values" and labelled.text.startswith(label)
        assert len(set(labelled.fills["services"].canonical)) == 2

    check()


@pytest.mark.parametrize(("language", "words"), [("zh", ("再加一个", "也要")), ("en", ("also ", "add "))])
def test_an_added_value_is_one_the_list_lacks_and_the_list_meant_keeps_the_others(
        language: str, words: tuple[str, ...]) -> None:
    scene = _scene(CONFIRMING, language)

    @settings(max_examples=40, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        turn = add_value(data, scene)
        meant = turn.fills["services"].canonical
        assert turn.move == "add_value" and any(w in turn.text for w in words)
        assert meant[:2] == ["spa", "wake_up"] and len(meant) == 3 and meant[2] not in ("spa", "wake_up")

    check()


@pytest.mark.parametrize(("language", "words"), [("zh", ("不要", "去掉")), ("en", ("drop the ", "remove "))])
def test_a_dropped_value_is_one_the_list_holds_and_the_last_one_leaves_nothing(
        language: str, words: tuple[str, ...]) -> None:
    two, one = _scene(ROOM_ASKED, language), _scene(
        Snapshot("PARAM_COLLECT", FLOW, {"services": ["gym"]}, (FLOW,), (), "room"), language)

    @settings(max_examples=40, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        turn = drop_value(data, two)
        assert turn.move == "drop_value" and any(w in turn.text for w in words)
        assert turn.fills["services"].canonical in (["spa"], ["wake_up"])
        assert drop_value(data, one).fills["services"].canonical is None

    check()


def test_no_list_move_without_a_list_slot_or_a_task_that_asks() -> None:
    from dialogkit.simulation.list_moves import can_add, can_drop, can_list

    coffee_idle = _scene(Snapshot(), "zh")
    assert not (can_list(coffee_idle) or can_add(coffee_idle) or can_drop(coffee_idle))
    empty = _scene(SERVICES_ASKED, "en")
    assert can_list(empty) and not can_add(empty) and not can_drop(empty)


def test_a_bot_without_list_slots_or_roles_draws_from_the_table_it_had_before_them() -> None:
    from dialogkit.simulation.moves import move_table

    new = {"list_values", "add_value", "drop_value", "roles"}
    assert not new & {move.name for move, _ in move_table(("zh", "en"), "zh", catalog(ROOT / "flows" / "support_ticket.yaml"))}
    assert {move.name for move, _ in move_table(("zh", "en"), "zh", catalog(CONCIERGE))} & new == new - {"roles"}
    assert "roles" in {move.name for move, _ in move_table(("zh", "en"), "en", catalog(ROOT / "tests" / "conversations"
                                                                                        / "bots" / "metro.yaml"))}


# -- the invariants on lists ---------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text"), [("zh", "服务是水疗"), ("en", "the services is spa")])
def test_one_value_offered_for_a_list_slot_is_held_as_a_list_of_one(language: str, text: str) -> None:
    offer = utterance(text, "several", language, fills={"services": said("水疗", "spa", "service")})
    held = reply("?", state="CONFIRMATION", flow=FLOW, slots={"services": ["spa"], "room": 1}, language=language)
    assert offered_value_is_set(record(offer, held, before=ROOM_ASKED), judge(CONCIERGE)) is None


@pytest.mark.parametrize(("language", "text"), [("zh", "SPA和叫醒服务"), ("en", "spa and wake-up call")])
def test_a_list_answer_is_held_in_any_order_and_a_missing_value_is_caught(language: str, text: str) -> None:
    answer = utterance(text, "answer", language, slot="services", fills={"services": _meant(text, ["spa", "wake_up"])})
    both = reply("?", state="PARAM_COLLECT", flow=FLOW, slots={"services": ["wake_up", "spa"]}, language=language)
    assert bare_answer_goes_to_asked_slot(record(answer, both, before=SERVICES_ASKED), judge(CONCIERGE)) is None
    one = reply("?", state="PARAM_COLLECT", flow=FLOW, slots={"services": ["spa"]}, language=language)
    finding = bare_answer_goes_to_asked_slot(record(answer, one, before=SERVICES_ASKED), judge(CONCIERGE))
    assert finding is not None and finding.kind == "answer_not_taken"


def _edit(move: str, text: str, language: str, meant: Any) -> Utterance:
    return utterance(text, move, language, slot="services", fills={"services": _meant(text, meant)})


@pytest.mark.parametrize(("language", "text"), [("zh", "再加一个健身房"), ("en", "also gym")])
def test_an_added_value_the_list_lacks_afterwards_is_caught(language: str, text: str) -> None:
    added = _edit("add_value", text, language, ["spa", "wake_up", "gym"])
    kept = reply("?", state="PARAM_COLLECT", flow=FLOW, slots=ROOM_ASKED.slots, language=language)
    finding = offered_value_is_set(record(added, kept, before=ROOM_ASKED), judge(CONCIERGE))
    assert finding is not None and finding.kind == "list_edit_ignored"
    grown = reply("?", state="PARAM_COLLECT", flow=FLOW, slots={"services": ["spa", "wake_up", "gym"]},
                  language=language)
    assert offered_value_is_set(record(added, grown, before=ROOM_ASKED), judge(CONCIERGE)) is None


@pytest.mark.parametrize(("language", "text"), [("zh", "不要叫醒服务了"), ("en", "drop the wake-up call")])
def test_a_dropped_value_must_be_absent_and_the_last_one_leaves_the_slot_empty(language: str, text: str) -> None:
    dropped = _edit("drop_value", text, language, ["spa"])
    kept = reply("?", state="PARAM_COLLECT", flow=FLOW, slots=ROOM_ASKED.slots, language=language)
    finding = offered_value_is_set(record(dropped, kept, before=ROOM_ASKED), judge(CONCIERGE))
    assert finding is not None and finding.kind == "list_edit_ignored"
    gone = reply("?", state="PARAM_COLLECT", flow=FLOW, slots={"services": ["spa"]}, language=language)
    assert offered_value_is_set(record(dropped, gone, before=ROOM_ASKED), judge(CONCIERGE)) is None
    only = Snapshot("PARAM_COLLECT", FLOW, {"services": ["wake_up"]}, (FLOW,), (), "room")
    emptied = _edit("drop_value", text, language, None)
    asked_again = reply("?", state="PARAM_COLLECT", flow=FLOW, slots={"services": None}, language=language)
    assert offered_value_is_set(record(emptied, asked_again, before=only), judge(CONCIERGE)) is None
    still = reply("?", state="PARAM_COLLECT", flow=FLOW, slots=only.slots, language=language)
    assert offered_value_is_set(record(emptied, still, before=only), judge(CONCIERGE)) is not None


@pytest.mark.parametrize(("language", "text", "yes"), [("zh", "不要叫醒服务了", "确认"),
                                                       ("en", "drop the wake-up call", "yes")])
def test_an_action_run_with_a_dropped_value_in_its_list_is_caught(language: str, text: str, yes: str) -> None:
    memory = UserMemory(language)
    first = record(_edit("drop_value", text, language, ["spa"]),
                   reply("?", state="CONFIRMATION", flow=FLOW, slots={"services": ["spa"], "room": 101},
                         language=language), before=CONFIRMING)
    remember(memory, first)
    after = first.after
    inputs = {"services": ["spa", "wake_up"], "room": 101}
    ran = reply("done", slots=inputs, language=language, actions=[ActionRun("book_services", inputs)])
    confirm = record(utterance(yes, "yes", language), ran, before=after, index=1)
    memory.take_back(confirm)
    finding = action_never_runs_with_taken_back_value(confirm, judge(CONCIERGE, memory))
    assert finding is not None and finding.kind == "corrected" and "wake_up" in finding.message
    right = {"services": ["spa"], "room": 101}
    fine = record(utterance(yes, "yes", language), reply("done", slots=right, language=language,
                                                         actions=[ActionRun("book_services", right)]),
                  before=after, index=1)
    assert action_never_runs_with_taken_back_value(fine, judge(CONCIERGE, memory)) is None


@pytest.mark.parametrize(("language", "text"), [("zh", "燕麦奶"), ("en", "oat milk")])
def test_a_list_value_forgotten_and_said_again_is_no_longer_taken_back(language: str, text: str) -> None:
    """Forgetting the turn that set extras takes oat milk back; naming it again gives it back."""
    coffee = "order_coffee"
    memory = UserMemory(language)
    asked = Snapshot("PARAM_COLLECT", coffee, {}, (coffee,), (), "drink")
    offered = utterance(text, "offer", language, slot="extras", fills={"extras": said(text, "oat_milk", "extra")})
    with_milk = reply("?", state="PARAM_COLLECT", flow=coffee, slots={"extras": ["oat_milk"]}, language=language)
    forget = reply("?", state="PARAM_COLLECT", flow=coffee, slots={}, language=language)
    turns = [record(offered, with_milk, before=asked),
             record(utterance("forget", "forget", language), forget, before=Snapshot(
                 "PARAM_COLLECT", coffee, {"extras": ["oat_milk"]}, (coffee,)), index=1)]
    remember(memory, *turns)
    assert [t.value for t in memory.taken_back] == ["oat_milk"]
    again = record(offered, with_milk, before=turns[1].after, index=2)
    memory.take_back(again)
    assert memory.taken_back == []
