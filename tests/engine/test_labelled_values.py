"""A value said right after one slot's label is no other slot's, though its type reads it."""

from __future__ import annotations

import pytest

from dialogkit.engine.labelled_values import misplaced
from dialogkit.engine.slot_layout import SlotLayout, SlotOffer
from dialogkit.model.interpretation import Mention
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
    found = list(misplaced(offer, LAYOUT, text, mentions))
    assert [(m.labelled.name, m.taken_by, m.text) for m in found] == [("order_no", "quantity", number)]


@pytest.mark.parametrize(("text", "number"), [
    ("数量是3", "3"), ("退3件", "3"), ("订单号我忘了，要退3件", "3"),
    ("the quantity is 3", "3"), ("3 of them", "3"), ("the order number I forgot, return 3", "3"),
])
def test_a_number_said_elsewhere_stays_where_the_offer_put_it(text: str, number: str) -> None:
    offer, mentions = _offer(text, number)
    assert list(misplaced(offer, LAYOUT, text, mentions)) == []
