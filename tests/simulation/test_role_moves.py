"""Role words in the simulator: one end or both ends of a trip said with their slots' words
("从西单到国贸" / "from Xidan to Guomao"), and the invariant that the value goes where they say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialogkit.simulation.harness import request_types
from dialogkit.simulation.invariants.offered_values import offered_value_is_set
from dialogkit.simulation.moves import Scene
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.role_moves import can_say_roles, phrasings, roles
from dialogkit.simulation.runner import open_bot
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.values import SlotValues
from tests.simulation._records import ROOT, catalog, judge, record, reply, said, utterance

METRO = ROOT / "tests" / "conversations" / "bots" / "metro.yaml"
CONCIERGE = ROOT / "tests" / "conversations" / "bots" / "concierge.yaml"
TRIP = "plan_trip"
ORIGIN_ASKED = Snapshot("PARAM_COLLECT", TRIP, {}, (TRIP,), (), "origin")
WORDS = {"zh": {"origin": ("从", "由", "出发", "上车"), "destination": ("到", "去", "前往")},
         "en": {"origin": ("from ", "leaving "), "destination": ("to ", "towards ")}}


def _scene(path: Path, before: Snapshot, language: str) -> Scene:
    cat = catalog(path)
    bot, _ = open_bot(path)
    try:
        cat.request_types.update(request_types(bot, cat))    # "坐地铁从西单到国贸" gives both ends already
    finally:
        bot.close()
    values = SlotValues(cat)
    values.prepare(("zh", "en"))
    return Scene(cat, values, {}, before, UserMemory(language), language)


def test_a_slots_role_words_are_phrased_in_each_language_before_or_after_the_value() -> None:
    origin = catalog(METRO).flows[TRIP].slot("origin")
    assert origin is not None
    assert phrasings(origin, "zh") == ["从{value}", "由{value}", "{value}出发", "{value}上车"]
    assert phrasings(origin, "en") == ["from {value}", "leaving {value}"]


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("before", [ORIGIN_ASKED, Snapshot()], ids=["in the task", "with the request"])
def test_each_end_is_said_with_its_own_slots_words(language: str, before: Snapshot) -> None:
    scene = _scene(METRO, before, language)
    ends: set[tuple[str, ...]] = set()

    @settings(max_examples=80, database=None, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        turn = roles(data, scene)
        assert turn.move == "roles" and turn.fills and (turn.flow == TRIP) is (before.flow is None)
        for slot, value in turn.fills.items():
            assert any(w + value.text in turn.text or value.text + w in turn.text for w in WORDS[language][slot])
        if len(turn.fills) == 2:
            assert turn.fills["origin"].canonical != turn.fills["destination"].canonical
            assert turn.text.index(turn.fills["origin"].text) < turn.text.rindex(turn.fills["destination"].text)
        assert "从西单到国贸，" not in turn.text
        ends.add(tuple(turn.fills))

    check()
    assert ends == {("origin",), ("destination",), ("origin", "destination")}


def test_no_role_move_for_a_bot_without_two_slots_of_one_type_with_role_words() -> None:
    assert not can_say_roles(_scene(CONCIERGE, Snapshot(), "zh"))
    assert can_say_roles(_scene(METRO, Snapshot(), "en"))


@pytest.mark.parametrize(("language", "text", "alias"), [("zh", "到国贸", "国贸"), ("en", "to Guomao", "Guomao")])
def test_a_value_said_with_the_other_slots_words_that_fills_the_asked_slot_is_caught(language: str, text: str,
                                                                                    alias: str) -> None:
    to = utterance(text, "roles", language, fills={"destination": said(alias, "guomao", "station")})
    wrong = reply("?", state="PARAM_COLLECT", flow=TRIP, slots={"origin": "guomao"}, language=language)
    finding = offered_value_is_set(record(to, wrong, before=ORIGIN_ASKED, asked="destination"), judge(METRO))
    assert finding is not None and finding.kind == "role_value_ignored"
    assert finding.expect == {"slots": {"destination": "guomao"}}
    right = reply("?", state="PARAM_COLLECT", flow=TRIP, slots={"destination": "guomao"}, language=language)
    assert offered_value_is_set(record(to, right, before=ORIGIN_ASKED, asked="origin"), judge(METRO)) is None


@pytest.mark.parametrize(("language", "text"), [("zh", "我想坐地铁，从西单到国贸"), ("en", "plan a metro trip, from Xidan to Guomao")])
def test_both_ends_with_the_request_are_judged_in_the_task_it_starts(language: str, text: str) -> None:
    request = utterance(text, "roles", language, flow=TRIP, fills={
        "origin": said("西单", "xidan", "station"), "destination": said("国贸", "guomao", "station")})
    swapped = reply("?", state="CONFIRMATION", flow=TRIP, slots={"origin": "guomao", "destination": "xidan"},
                    language=language)
    finding = offered_value_is_set(record(request, swapped), judge(METRO))
    assert finding is not None and finding.kind == "role_value_ignored"
    right = reply("?", state="CONFIRMATION", flow=TRIP, slots={"origin": "xidan", "destination": "guomao"},
                  language=language)
    assert offered_value_is_set(record(request, right), judge(METRO)) is None
