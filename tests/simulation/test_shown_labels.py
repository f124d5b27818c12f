"""The labels of a type's values, indexed once: which other values' labels hold a value's form."""

from __future__ import annotations

from dialogkit.simulation.catalog import EntityInfo, ValueForms
from dialogkit.simulation.shown_labels import ShownLabels


def _value(canonical: str, zh: str, en: str) -> ValueForms:
    return ValueForms(canonical, {"zh": (zh,), "en": (en,)}, {"zh": zh, "en": en})


CURRENCY = EntityInfo("currency", "currency", (
    _value("CNY", "元", "yuan"), _value("USD", "美元", "US dollar"), _value("HKD", "港元", "HK dollar"),
    _value("AUD", "澳元", "Australian dollar"),
))
DRINK = EntityInfo("drink", "drink", (
    _value("latte", "拿铁", "Latte"), _value("iced_latte", "冰拿铁", "Iced Latte"), _value("mocha", "摩卡", "Mocha"),
))


def test_zh_the_labels_holding_a_form_are_the_other_values_ones() -> None:
    assert ShownLabels(CURRENCY.values).holding("元", besides="CNY") == {"美元", "港元", "澳元"}


def test_en_the_labels_holding_a_form_ignore_case_and_leave_the_form_itself_out() -> None:
    labels = ShownLabels(DRINK.values)
    assert labels.holding("latte", besides="latte") == {"Iced Latte"}
    assert labels.holding("Iced Latte", besides="latte") == set()


def test_a_label_of_the_value_taken_back_is_no_other_label() -> None:
    assert ShownLabels(DRINK.values).holding("拿铁", besides="iced_latte") == set()
    assert ShownLabels(DRINK.values).holding("拿铁", besides="mocha") == {"冰拿铁"}


def test_no_label_spans_two_values() -> None:
    assert ShownLabels(DRINK.values).holding("latte\x00iced", besides="mocha") == set()
    assert ShownLabels(DRINK.values).holding("铁冰", besides="mocha") == set()


def test_a_value_is_found_by_its_canonical_name() -> None:
    labels = ShownLabels(DRINK.values)
    assert labels.value("mocha") == DRINK.values[2]
    assert labels.value("tea") is None
    assert labels.value(["latte", "mocha"]) is None      # a list holds no one canonical name
