"""A trigger keyword written wholly inside a longer value of the turn is part of that value, not a
request: "酒店" inside a hotel's name and "餐厅" inside the facility "中式餐厅" started the wrong flow.

A value that is a keyword itself, said as it is, still counts; so does the keyword said beside
the value.
"""

from __future__ import annotations

import pytest

from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import bot_from_yaml, fixed_clock

DESK = bot_from_yaml("""
    bot: {name: travel_desk, language: auto}
    entities:
      hotel:
        kind: place
        values:
          jw: {aliases: [北京JW万豪酒店, 万豪, JW Marriott Hotel Beijing, JW Marriott], label: {zh: 北京JW万豪酒店, en: JW Marriott Hotel Beijing}}
      facility:
        kind: thing
        values:
          chinese_restaurant: {aliases: [中式餐厅, Chinese restaurant], label: {zh: 中式餐厅, en: Chinese restaurant}}
          gym: {aliases: [健身房, gym], label: {zh: 健身房, en: gym}}
    flows:
      ask_facility:
        description: 询问酒店设施 / Ask about a hotel's facilities
        trigger:
          examples: [万豪有健身房吗, 这家有没有中式餐厅, does the JW Marriott have a gym, is there a Chinese restaurant]
          keywords: [设施, 有没有, facilities, does it have]
        slots:
          - {name: hotel, entity: hotel, ask: {zh: 哪家酒店？, en: Which hotel?}}
          - {name: facility, entity: facility, ask: {zh: 什么设施？, en: Which facility?}}
        execute: {action: facility, say: {zh: 好的。, en: OK.}}
      find_hotel:
        description: 找酒店 / Find a hotel
        trigger:
          examples: [帮我找个酒店, 推荐一家酒店, find me a hotel, recommend a hotel]
          keywords: [酒店, 住宿, hotel]
        slots:
          - {name: area, ask: {zh: 哪个区域？, en: Which area?}}
        execute: {action: find_hotel, say: {zh: 好的。, en: OK.}}
      find_restaurant:
        description: 找餐厅 / Find a restaurant
        trigger:
          examples: [帮我找个餐厅, 推荐一家餐厅, find me a restaurant, recommend a restaurant]
          keywords: [餐厅, 饭馆, restaurant]
        slots:
          - {name: cuisine, ask: {zh: 什么菜？, en: Which cuisine?}}
        execute: {action: find_restaurant, say: {zh: 好的。, en: OK.}}
""")


@pytest.fixture(scope="module")
def desk() -> RuleUnderstanding:
    return RuleUnderstanding(DESK, clock=fixed_clock)


def flows(desk: RuleUnderstanding, text: str, language: str) -> list[str]:
    return [s.flow for s in desk.interpret(text, language).intents]


@pytest.mark.parametrize(("text", "language"), [
    ("北京JW万豪酒店有中式餐厅吗", "zh"),
    ("北京JW万豪酒店有健身房吗", "zh"),
    ("does the JW Marriott Hotel Beijing have a Chinese restaurant", "en"),
    ("does the JW Marriott Hotel Beijing have a gym", "en"),
])
def test_a_keyword_inside_a_value_starts_nothing(desk: RuleUnderstanding, text: str, language: str) -> None:
    """The facility question, not a hotel search nor a restaurant search."""
    found = flows(desk, text, language)
    assert "find_hotel" not in found and "find_restaurant" not in found, found


@pytest.mark.parametrize(("text", "language", "flow"), [
    ("万豪附近帮我找个餐厅", "zh", "find_restaurant"),
    ("帮我找个酒店", "zh", "find_hotel"),
    ("find me a restaurant near the JW Marriott", "en", "find_restaurant"),
    ("find me a hotel", "en", "find_hotel"),
])
def test_the_keyword_said_beside_a_value_still_counts(desk: RuleUnderstanding, text: str, language: str,
                                                       flow: str) -> None:
    top = desk.interpret(text, language).top_intent
    assert top is not None and top.flow == flow
