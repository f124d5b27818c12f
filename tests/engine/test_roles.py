"""Role words on their own: which of two slots of one type a value fills, from the words the slots
declare before and after their values."""

from __future__ import annotations

import pytest

from dialogkit.engine.roles import RoleWords, by_role, role_words
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec, SlotSpec

FLOW = FlowSpec.model_validate({"slots": [
    {"name": "origin", "entity": "station", "role": {"before": ["从", "from", "leaving"], "after": ["出发", "上车"]}},
    {"name": "destination", "entity": "station", "role": ["到", "去", "to", "towards"]},
    {"name": "via", "entity": "station"},
]})
SLOTS: tuple[SlotSpec, ...] = tuple(FLOW.slots)
WORDS = role_words(FLOW)


def _stations(text: str, *names: str) -> list[Mention]:
    return [Mention(type="station", value=name, text=name, start=text.index(name), end=text.index(name) + len(name))
            for name in names]


def _placed(text: str, *names: str) -> tuple[dict[str, list[str]], list[str]]:
    placed, rest = by_role(WORDS, SLOTS, _stations(text, *names), text)
    return {slot: [m.value for m in said] for slot, said in placed.items()}, [m.value for m in rest]


def test_only_slots_with_role_words_are_kept() -> None:
    assert set(WORDS) == {"origin", "destination"}
    assert RoleWords.of(SLOTS[2]) is None


@pytest.mark.parametrize(("text", "names", "expected"), [
    ("从西单到国贸", ("西单", "国贸"), {"origin": ["西单"], "destination": ["国贸"]}),
    ("到国贸", ("国贸",), {"destination": ["国贸"]}),
    ("去国贸，东单上车", ("国贸", "东单"), {"destination": ["国贸"], "origin": ["东单"]}),
    ("西单出发", ("西单",), {"origin": ["西单"]}),
    ("from Victoria to Kings Cross", ("Victoria", "Kings Cross"),
     {"origin": ["Victoria"], "destination": ["Kings Cross"]}),
    ("leaving the Bank towards Victoria", ("Bank", "Victoria"), {"origin": ["Bank"], "destination": ["Victoria"]}),
    ("no, to Bank", ("Bank",), {"destination": ["Bank"]}),
])
def test_role_words_place_values_zh_en(text: str, names: tuple[str, ...], expected: dict[str, list[str]]) -> None:
    assert _placed(text, *names) == (expected, [])


@pytest.mark.parametrize(("text", "names"), [
    ("西单", ("西单",)),             # a bare value: left to the order of mention (the asked slot first)
    ("Bank", ("Bank",)),
    ("Bank into Victoria", ("Victoria",)),      # "into" holds "to" but is no role word: words stand whole
    ("西单和国贸", ("西单", "国贸")),
])
def test_values_without_role_words_are_left_in_order(text: str, names: tuple[str, ...]) -> None:
    assert _placed(text, *names) == ({}, list(names))


def test_the_word_before_decides_before_the_word_after() -> None:
    """In 从西单到国贸 the 到 after 西单 names 国贸's slot; 西单's own 从 decides."""
    assert _placed("从西单到国贸", "西单")[0] == {"origin": ["西单"]}
    # Without a word before it, a word after decides: 西单出发.
    assert _placed("西单出发去国贸", "西单")[0] == {"origin": ["西单"]}


def test_a_slot_without_role_words_of_its_type_takes_what_is_left() -> None:
    placed, rest = by_role(WORDS, SLOTS[2:], _stations("从西单", "西单"), "从西单")
    assert (placed, [m.value for m in rest]) == ({}, ["西单"])
