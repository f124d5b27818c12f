"""List slots on their own: the list a turn leaves in the slot (values said, added, removed), the
rules checked per value, and the list said in a reply in either language."""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.engine.list_slots import as_list, edited_list
from dialogkit.engine.slots import validate_slot
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import SlotSpec
from dialogkit.text.phrases import spoken_list

WORDS = {"SPA": "spa", "叫醒服务": "wake_up", "健身房": "gym", "spa": "spa", "wake-up call": "wake_up", "gym": "gym",
         "laundry": "laundry"}


def _said(text: str) -> list[Mention]:
    found = []
    for word, value in WORDS.items():
        start = text.find(word)
        if start >= 0 and not any(m.start <= start < m.end for m in found):
            found.append(Mention(type="service", value=value, text=word, start=start, end=start + len(word)))
    return sorted(found, key=lambda m: m.start)


def _edit(text: str, held: Any = None) -> tuple[list[Any] | None, bool]:
    return edited_list(_said(text), text, held)


@pytest.mark.parametrize("text", ["SPA和叫醒服务", "spa and wake-up call"])
def test_values_said_together_are_the_list_zh_en(text: str) -> None:
    assert _edit(text) == (["spa", "wake_up"], False)
    assert _edit(text, held=["gym"]) == (["spa", "wake_up"], False)     # said anew, they replace the list


@pytest.mark.parametrize("text", ["再加一个健身房", "健身房也要", "also a gym", "add the gym", "gym too"])
def test_adding_keeps_the_list_held_zh_en(text: str) -> None:
    assert _edit(text, held=["spa", "wake_up"]) == (["spa", "wake_up", "gym"], True)


@pytest.mark.parametrize("text", ["不要叫醒服务了", "叫醒服务不要了", "去掉叫醒服务", "drop the wake-up call",
                                  "no wake-up call", "remove the wake-up call"])
def test_removing_keeps_the_rest_zh_en(text: str) -> None:
    assert _edit(text, held=["spa", "wake_up"]) == (["spa"], True)


def test_removing_the_last_value_leaves_no_value() -> None:
    assert _edit("drop the spa", held=["spa"]) == (None, True)


def test_a_removal_and_a_new_value_in_one_turn() -> None:
    assert _edit("不要叫醒服务了，换成健身房", held=["spa", "wake_up"]) == (["spa", "gym"], True)


def test_one_value_is_a_list_of_one() -> None:
    assert as_list("spa") == ["spa"]
    assert as_list(["spa"]) == ["spa"]
    assert as_list([]) is None and as_list(None) is None


@pytest.mark.parametrize(("items", "lang", "said"), [
    (["SPA", "叫醒服务"], "zh", "SPA和叫醒服务"),
    (["SPA", "叫醒服务", "健身房"], "zh", "SPA、叫醒服务和健身房"),
    (["spa", "wake-up call"], "en", "spa and wake-up call"),
    (["spa", "wake-up call", "gym"], "en", "spa, wake-up call and gym"),
    (["spa"], "en", "spa"),
])
def test_a_list_is_said_in_the_turns_language(items: list[str], lang: str, said: str) -> None:
    assert spoken_list(items, lang) == said


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_rules_hold_for_every_value(lang: str) -> None:
    slot = SlotSpec.model_validate({"name": "services", "entity": "service", "list": True, "validate": [
        {"one_of": ["spa", "gym"], "error": {"zh": "泳池今天不开放。", "en": "The pool is closed today."}}]})
    refused = "泳池今天不开放。" if lang == "zh" else "The pool is closed today."
    assert validate_slot(slot, ["spa", "gym"], lang, lambda a, v: None) is None
    assert validate_slot(slot, ["spa", "pool"], lang, lambda a, v: None) == refused
    assert validate_slot(slot, "pool", lang, lambda a, v: None) == refused
