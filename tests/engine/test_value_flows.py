"""A flow named by its values: the one flow taking every type of value the turn brings, one of them
its own, when the turn asks or requests."""

from __future__ import annotations

import re

import pytest

from dialogkit.engine import value_flows
from dialogkit.engine.value_flows import flow_of_values, last_flow_of_values
from dialogkit.lexicon import alternation, words
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec


def _flow(*types: str) -> FlowSpec:
    return FlowSpec.model_validate({"description": "d", "slots": [{"name": f"s{i}", "entity": t} for i, t in enumerate(types)]})


FLOWS = {"order": _flow("drink", "cup_size", "milk", "integer"), "book": _flow("date", "time", "integer"),
         "return": _flow("order_no", "product", "integer"),
         "visit": _flow("sight", "integer"), "taxi": _flow("stop", "time"), "metro": _flow("stop")}


def _said(text: str, *values: tuple[str, str], kind: str = "other") -> list[Mention]:
    return [Mention(type=t, value=w, text=w, start=text.index(w), end=text.index(w) + len(w), kind=kind)
            for t, w in values]


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


@pytest.mark.parametrize(("text", "sight"), [
    ("颐和园的门票多少钱？", "颐和园"), ("请把景山公园的电话发给我", "景山公园"),
    ("what's the phone number of Kew Gardens?", "Kew Gardens"), ("is the Eden Project open on Sundays?", "Eden Project"),
])
def test_a_question_about_one_named_place_only_one_flow_takes_names_that_flow(text: str, sight: str) -> None:
    assert flow_of_values(FLOWS, _said(text, ("sight", sight), kind="place"), text) == "visit"


@pytest.mark.parametrize(("text", "values", "kind"), [
    ("我上周去了颐和园", [("sight", "颐和园")], "place"),                  # a mention: no question
    ("I walked round Kew Gardens yesterday", [("sight", "Kew Gardens")], "place"),
    ("西直门怎么走？", [("stop", "西直门")], "place"),                      # two flows take the place
    ("how do I get to Paddington?", [("stop", "Paddington")], "place"),
    ("有没有大杯的？", [("cup_size", "大杯")], "other"),                    # one value, not a named referent
    ("do you have it in large?", [("cup_size", "large")], "other"),
])
def test_one_value_names_no_flow_unless_a_named_referent_is_asked_about(
        text: str, values: list[tuple[str, str]], kind: str) -> None:
    assert flow_of_values(FLOWS, _said(text, *values, kind=kind), text) is None


def _details(*types: str) -> FlowSpec:
    """A question about a search's result, naming which by the search's wishes, never asking them."""
    return FlowSpec.model_validate({"description": "d", "slots": [{"name": f"s{i}", "entity": t, "required": False}
                                                                  for i, t in enumerate(types)]})


SEARCH_AND_DETAILS = {"search": _flow("cuisine", "district"), "details": _details("cuisine", "district")}


@pytest.mark.parametrize(("text", "values"), [
    ("城东有什么好吃的川菜吗？", [("district", "城东"), ("cuisine", "川菜")]),
    ("anything good and thai in the old town?", [("cuisine", "thai"), ("district", "old town")]),
])
def test_of_two_flows_taking_the_values_the_one_that_needs_them_is_named(
        text: str, values: list[tuple[str, str]]) -> None:
    assert flow_of_values(SEARCH_AND_DETAILS, _said(text, *values), text) == "search"
    both = {"search": _flow("cuisine", "district"), "nearby": _flow("cuisine", "district")}
    assert flow_of_values(both, _said(text, *values), text) is None


@pytest.mark.parametrize(("text", "values"), [
    ("那就燕麦奶吧", [("milk", "燕麦奶")]), ("大杯也行", [("cup_size", "大杯")]), ("摩卡呢？", [("drink", "摩卡")]),
    ("oat milk is fine", [("milk", "oat milk")]), ("I would prefer a large one", [("cup_size", "large")]),
    ("mocha, then.", [("drink", "mocha")]), ("a large please", [("cup_size", "large")]),
])
def test_a_value_the_last_flow_takes_said_as_a_wish_repeats_it_zh_en(text: str, values: list[tuple[str, str]]) -> None:
    assert last_flow_of_values(FLOWS, "order", _said(text, *values), text) == "order"


@pytest.mark.parametrize(("text", "values", "last"), [
    ("我昨天喝了燕麦奶", [("milk", "燕麦奶")], "order"), ("I had oat milk yesterday", [("milk", "oat milk")], "order"),
    ("燕麦奶吧", [("milk", "燕麦奶")], "book"), ("oat milk is fine", [("milk", "oat milk")], None),
    ("不要燕麦奶了吧", [("milk", "燕麦奶")], "order"), ("它家有燕麦奶吗？", [("milk", "燕麦奶")], "order"),
    ("does it have oat milk?", [("milk", "oat milk")], "order"),
    ("它家有燕麦奶和豆奶吗？", [("milk", "燕麦奶"), ("milk", "豆奶")], "order"),
    ("does it have oat milk and soy milk?", [("milk", "oat milk"), ("milk", "soy milk")], "order"),
])
def test_a_mention_another_flow_or_no_last_task_repeats_nothing_zh_en(
        text: str, values: list[tuple[str, str]], last: str | None) -> None:
    assert last_flow_of_values(FLOWS, last, _said(text, *values), text) is None


@pytest.mark.parametrize(("text", "label", "values"), [
    ("预订号 A123 和 B456 的日期是明天", "预订号", [("booking", "A123"), ("date", "明天")]),
    ("my booking ref A123 and order ref B456, date tomorrow", "order ref", [("booking", "A123"), ("date", "tomorrow")]),
])
def test_a_request_word_inside_the_words_naming_a_slot_asks_for_nothing(
        text: str, label: str, values: list[tuple[str, str]]) -> None:
    """预订 and "order" ask in "帮我预订" / "I'd like to order", not in a slot's label ("预订号", "order ref")."""
    flows = {"change": _flow("booking", "date"), "book": _flow("date", "time")}
    start = text.index(label)
    said = _said(text, *values)
    assert flow_of_values(flows, said, text) == "change"
    assert flow_of_values(flows, said, text, [(start, start + len(label))]) is None


@pytest.mark.parametrize(("text", "values"), [
    ("不，燕麦奶也行", [("milk", "燕麦奶")]), ("no, oat milk is fine", [("milk", "oat milk")]),
])
def test_a_no_set_apart_before_the_value_waives_nothing_zh_en(text: str, values: list[tuple[str, str]]) -> None:
    """"不，" / "no," answers what was said; "不要燕麦奶" waives the milk (above)."""
    assert last_flow_of_values(FLOWS, "order", _said(text, *values), text) == "order"


@pytest.mark.parametrize(("text", "value"), [
    ("我想要川菜", "川菜"), ("I'd like something thai please", "thai"),
    ("我对川菜比较感兴趣", "川菜"), ("I am interested in a thai one", "thai"),     # interest asks too
])
def test_one_value_with_a_request_names_the_flow_that_needs_it_zh_en(text: str, value: str) -> None:
    """A request word asks for the value; a question about one value alone ("有没有大杯的？") still
    names no flow (above), nor does a mention."""
    assert flow_of_values(SEARCH_AND_DETAILS, _said(text, ("cuisine", value)), text) == "search"


@pytest.mark.parametrize(("text", "value"), [("我对川菜不感兴趣", "川菜"), ("thai, I don't want", "thai")])
def test_a_request_word_after_a_negation_asks_for_nothing_zh_en(text: str, value: str) -> None:
    assert flow_of_values(SEARCH_AND_DETAILS, _said(text, ("cuisine", value)), text) is None


@pytest.mark.parametrize(("text", "value"), [("我昨天吃了川菜", "川菜"), ("we had thai yesterday", "thai")])
def test_one_value_mentioned_names_no_flow_zh_en(text: str, value: str) -> None:
    assert flow_of_values(SEARCH_AND_DETAILS, _said(text, ("cuisine", value)), text) is None


@pytest.mark.parametrize(("text", "value"), [("都可以联系", "都可以联系"), ("the book club", "book club")])
def test_a_request_word_inside_the_value_asks_for_nothing_zh_en(text: str, value: str) -> None:
    """可以 / "book" ask in "可以帮我…" / "book a table", not inside a value's own words."""
    flows = {"contact": _flow("method"), "other": _flow("date")}
    assert flow_of_values(flows, _said(text, ("method", value)), text) is None


_PLAIN_NEGATION = re.compile(rf"(?:{alternation(words('value_negations'))})\W{{0,2}}$", re.IGNORECASE)


@pytest.mark.parametrize(("text", "value"), [
    ("不爱吃烤鸭", "烤鸭"), ("我不要川菜", "川菜"), ("不，川菜", "川菜"), ("我想吃川菜", "川菜"),
    ("no pork please", "pork"), ("NOT INTERESTED IN british", "british"), ("without onions", "onions"),
    ("I'd like british", "british"), ("knot pork", "pork")])
def test_a_negation_is_looked_for_where_one_can_start_zh_en(text: str, value: str) -> None:
    """The negation pattern opens with a lookahead on the negations' first characters, and finds
    what the plain alternation finds right before the value."""
    assert value_flows._NEGATION.pattern.startswith("(?=[")
    start = text.index(value)
    plain = _PLAIN_NEGATION.search(text, max(0, start - value_flows._REACH), start)
    assert value_flows.negation_before(text, start) == (plain.group(0).rstrip() if plain else None)
