"""``slot_units``: which of a flow's number slots a number counts, from the bot's own words for
each (its label and its questions) and the word said after the number."""

from __future__ import annotations

import pytest

from dialogkit.engine.slot_units import Units, counts_a_value, slot_units, unit_after
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import SlotSpec

NIGHTS = slot_units(SlotSpec.model_validate({"name": "nights", "entity": "integer", "label": {"zh": "入住晚数", "en": "nights"},
                                             "ask": {"zh": "住几晚？", "en": "How many nights?"}}))
GUESTS = slot_units(SlotSpec.model_validate({"name": "guests", "entity": "integer", "label": {"zh": "人数", "en": "guests"},
                                             "ask": {"zh": "几位入住？", "en": "How many guests?"}}))


def number(text: str, said: str) -> Mention:
    start = text.index(said)
    return Mention(type="integer", value=0, text=said, start=start, end=start + len(said), builtin=True)


class TestUnitAfter:
    @pytest.mark.parametrize(("text", "said", "unit"), [
        ("住两晚", "两晚", ("han", "晚")), ("两个人", "两个", ("han", "人")), ("3位", "3位", ("han", "位")),
        ("for 2 nights", "2", ("latin", "night")), ("5 guests", "5", ("latin", "guest")), ("三个", "三个", ("han", "个")),
    ])
    def test_the_word_a_number_is_counted_in(self, text: str, said: str, unit: tuple[str, str]) -> None:
        assert unit_after(number(text, said), text) == unit

    @pytest.mark.parametrize("text", ["5", "五"])
    def test_a_number_alone_has_none(self, text: str) -> None:
        assert unit_after(number(text, text), text) is None


class TestFits:
    @pytest.mark.parametrize("unit", [("han", "晚"), ("latin", "night")])
    def test_nights_count_nights(self, unit: tuple[str, str]) -> None:
        assert NIGHTS.fits(unit) and not GUESTS.fits(unit)

    @pytest.mark.parametrize("unit", [("han", "人"), ("han", "位"), ("han", "名"), ("latin", "guest"), ("latin", "people"),
                                      ("latin", "adult")])
    def test_any_word_for_people_counts_the_people(self, unit: tuple[str, str]) -> None:
        assert GUESTS.fits(unit) and not NIGHTS.fits(unit)

    def test_a_generic_measure_word_says_nothing(self) -> None:
        assert NIGHTS.fits(("han", "个")) is None and GUESTS.fits(("han", "个")) is None

    def test_a_slot_without_words_for_people_takes_none(self) -> None:
        assert not Units(frozenset("晚数"), frozenset({"night"})).fits(("latin", "people"))


PASSENGERS_EN_ONLY = slot_units(SlotSpec.model_validate({"name": "passengers", "entity": "integer",
                                                         "label": {"zh": "乘客", "en": "passengers"},
                                                         "ask": {"zh": "几位乘客？", "en": "How many passengers?"}}))


class TestHeadcounts:
    def test_a_slot_counting_people_in_one_language_counts_them_in_both(self) -> None:
        assert GUESTS.counts_people and not NIGHTS.counts_people
        assert PASSENGERS_EN_ONLY.fits(("han", "人")) and PASSENGERS_EN_ONLY.fits(("latin", "adult"))

    @pytest.mark.parametrize(("text", "said", "value_at"), [
        ("两节瑜伽课", "两节", "瑜伽"), ("two yoga classes", "two", "yoga"), ("3  lattes", "3", "lattes"),
    ])
    def test_a_number_right_before_a_value_counts_that_value(self, text: str, said: str, value_at: str) -> None:
        start = text.index(value_at)
        value = Mention(type="class", value="v", text=value_at, start=start, end=start + len(value_at))
        assert counts_a_value(number(text, said), [value], text)

    @pytest.mark.parametrize(("text", "said", "value_at"), [
        ("2 people for yoga", "2", "yoga"), ("两位，瑜伽课", "两位", "瑜伽"),
    ])
    def test_a_number_with_words_between_counts_no_value(self, text: str, said: str, value_at: str) -> None:
        start = text.index(value_at)
        value = Mention(type="class", value="v", text=value_at, start=start, end=start + len(value_at))
        assert not counts_a_value(number(text, said), [value], text)


def test_a_spanish_headcount_counts_people_by_the_lexicon() -> None:
    diners = slot_units(SlotSpec.model_validate({"name": "diners", "entity": "integer", "label": "comensales",
                                                 "ask": "¿Para cuántas personas?"}))
    assert diners.counts_people and diners.fits(("latin", "persona")) and not NIGHTS.fits(("latin", "persona"))
