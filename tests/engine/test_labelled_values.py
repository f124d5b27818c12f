"""A value said right after one slot's label is no other slot's, though its type reads it."""

from __future__ import annotations

import re

import pytest

from dialogkit.engine.labelled_values import misplaced
from dialogkit.engine.slot_layout import SlotLayout, SlotOffer
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.spec.schema import FlowSpec

FLOW = FlowSpec.model_validate({
    "description": "退货 / return goods",
    "slots": [
        {"name": "order_no", "entity": "order_no", "label": {"zh": "订单号", "en": "order number"}},
        {"name": "quantity", "entity": "integer", "label": {"zh": "数量", "en": "quantity"}},
    ],
})
LAYOUT = SlotLayout.of(FLOW)


def _offer(text: str, number: str) -> tuple[SlotOffer, list[Mention]]:
    start = text.index(number)
    said = Mention(type="integer", value=int(number), text=number, start=start, end=start + len(number))
    return SlotOffer(values={"quantity": int(number)}, surfaces={"quantity": number}), [said]


@pytest.mark.parametrize(("text", "number"), [
    ("我的订单号是3", "3"), ("订单号 123", "123"),
    ("my order number is 3", "3"), ("the order number: 123", "123"),
])
def test_a_number_after_the_order_number_label_is_not_the_quantity(text: str, number: str) -> None:
    offer, mentions = _offer(text, number)
    found = list(misplaced(offer, LAYOUT, Interpretation(text=text, language="zh", mentions=mentions)))
    assert [(m.labelled.name, m.taken_by, m.text) for m in found] == [("order_no", "quantity", number)]


@pytest.mark.parametrize(("text", "number"), [
    ("数量是3", "3"), ("退3件", "3"), ("订单号我忘了，要退3件", "3"),
    ("the quantity is 3", "3"), ("3 of them", "3"), ("the order number I forgot, return 3", "3"),
])
def test_a_number_said_elsewhere_stays_where_the_offer_put_it(text: str, number: str) -> None:
    offer, mentions = _offer(text, number)
    assert list(misplaced(offer, LAYOUT, Interpretation(text=text, language="zh", mentions=mentions))) == []


class _Asked:
    """A turn's reading of its words that records the patterns asked of it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.asked: list[re.Pattern[str]] = []

    def matches(self, pattern: re.Pattern[str]) -> tuple[re.Match[str], ...]:
        self.asked.append(pattern)
        return tuple(pattern.finditer(self.text))

    def leading_answer(self) -> None:
        return None


@pytest.mark.parametrize(("text", "number"), [("我的订单号是3", "3"), ("my order number is 3", "3")])
def test_the_labels_are_the_turns_reading(text: str, number: str) -> None:
    """The labels are asked of the turn's reading (``Interpretation.matches``: once a turn, as the
    offer asked), not looked for in the words again."""
    offer, mentions = _offer(text, number)
    words = _Asked(text)
    found = list(misplaced(offer, LAYOUT, Interpretation(text=text, language="zh", mentions=mentions, words=words)))
    order_no_label = next(p for slot, p in LAYOUT.labels if slot.name == "order_no")
    assert [m.labelled.name for m in found] == ["order_no"]
    assert words.asked == [LAYOUT.any_label, order_no_label]


@pytest.mark.parametrize(("text", "number"), [("退3件", "3"), ("return 3 of them", "3")])
def test_words_holding_no_label_are_asked_for_none(text: str, number: str) -> None:
    """No label's words at all (most turns): one look at every label's words at once, none per slot."""
    offer, mentions = _offer(text, number)
    words = _Asked(text)
    assert list(misplaced(offer, LAYOUT, Interpretation(text=text, language="zh", mentions=mentions, words=words))) == []
    assert words.asked == [LAYOUT.any_label]


@pytest.mark.parametrize(("text", "label"), [
    ("好的，我的订单号是3", "订单号是"), ("订单号：123", "订单号："),
    ("OK, The Order Number is 3", "The Order Number is "), ("MY ORDER NUMBER: 123", "MY ORDER NUMBER: "),
    ("returning 2, order number 123", "order number "),
])
def test_a_label_is_found_whatever_its_case_and_wherever_it_starts(text: str, label: str) -> None:
    """The label's pattern looks first at the letters a label or its determiner can start with: a
    capital, a Chinese label, a label after other words are all found, the determiner with it."""
    pattern = next(p for slot, p in LAYOUT.labels if slot.name == "order_no")
    assert [m.group() for m in pattern.finditer(text)] == [label]
