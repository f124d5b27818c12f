"""A flow named by its values: the one flow taking every type of value the turn brings, one of them
its own, when the turn asks or requests."""

from __future__ import annotations

import pytest

from dialogkit.engine.value_flows import flow_of_values
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec


def _flow(*types: str) -> FlowSpec:
    return FlowSpec.model_validate({"description": "d", "slots": [{"name": f"s{i}", "entity": t} for i, t in enumerate(types)]})


FLOWS = {"order": _flow("drink", "cup_size", "milk", "integer"), "book": _flow("date", "time", "integer"),
         "return": _flow("order_no", "product", "integer")}


def _said(text: str, *values: tuple[str, str]) -> list[Mention]:
    return [Mention(type=t, value=w, text=w, start=text.index(w), end=text.index(w) + len(w)) for t, w in values]


@pytest.mark.parametrize(("text", "values", "flow"), [
    ("明天晚上8点6个人有位子吗？", [("date", "明天"), ("time", "晚上8点"), ("integer", "6")], "book"),
    ("can I get a table tomorrow at 7pm?", [("date", "tomorrow"), ("time", "7pm")], "book"),
    ("给我来杯中杯摩卡，全脂奶，要两杯", [("cup_size", "中杯"), ("drink", "摩卡"), ("milk", "全脂奶"), ("integer", "两")], "order"),
    ("I'd like a medium mocha with oat milk", [("cup_size", "medium"), ("drink", "mocha"), ("milk", "oat milk")], "order"),
])
def test_values_only_one_flow_takes_with_a_request_or_question_name_it(
        text: str, values: list[tuple[str, str]], flow: str) -> None:
    assert flow_of_values(FLOWS, _said(text, *values), text) == flow


@pytest.mark.parametrize(("text", "values"), [
    ("明天晚上8点我们6个人聚餐", [("date", "明天"), ("time", "晚上8点"), ("integer", "6")]),       # a mention
    ("I had a medium mocha yesterday", [("cup_size", "medium"), ("drink", "mocha")]),
    ("明天有位子吗？", [("date", "明天")]),                                                  # one type alone
    ("can I get 2?", [("integer", "2")]),                                                     # every flow counts
    ("不要摩卡，有没有中杯的？", [("drink", "摩卡"), ("cup_size", "中杯")]),                      # the drink is waived
])
def test_a_mention_one_type_or_a_waived_value_names_no_flow(text: str, values: list[tuple[str, str]]) -> None:
    assert flow_of_values(FLOWS, _said(text, *values), text) is None
