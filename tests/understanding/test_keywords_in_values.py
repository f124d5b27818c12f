"""A trigger keyword written wholly inside a longer value of the turn is part of that value, not a
request: "酒店" inside a hotel's name and "餐厅" inside the facility "中式餐厅" started the wrong flow.

A value that is a keyword itself, said as it is, still counts; so does the keyword said beside
the value. A keyword inside a name that its flow takes counts too, unless some keyword is said
outside every name: a route from a hotel to a sight asks for the metro, not the hotel search.
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


ROUTES = bot_from_yaml("""
    bot: {name: route_desk, language: auto}
    entities:
      hotel:
        kind: place
        values:
          river_inn: {aliases: [河畔酒店, Riverside Hotel], label: {zh: 河畔酒店, en: Riverside Hotel}}
      sight:
        kind: place
        values:
          old_tower: {aliases: [古塔, Old Tower], label: {zh: 古塔, en: Old Tower}}
      place:
        kind: place
        values:
          river_inn: {aliases: [河畔酒店, Riverside Hotel], label: {zh: 河畔酒店, en: Riverside Hotel}}
          old_tower: {aliases: [古塔, Old Tower], label: {zh: 古塔, en: Old Tower}}
    flows:
      find_hotel:
        description: 找酒店 / Find a hotel
        trigger:
          examples: [帮我找家酒店, find me a hotel]
          keywords: [酒店, hotel]
        slots:
          - {name: name, entity: hotel, required: false}
        execute: {action: find_hotel, say: {zh: 好的。, en: OK.}}
      metro_route:
        description: 查地铁路线 / Find a metro route
        trigger:
          examples: [坐地铁怎么去, how do I get there by metro]
          keywords: [坐地铁, 地铁, metro, subway]
        slots:
          - {name: origin, entity: place, role: [从, from], ask: {zh: 从哪里出发？, en: From where?}}
          - {name: destination, entity: place, role: [到, to], ask: {zh: 去哪里？, en: To where?}}
        execute: {action: metro_route, say: {zh: 好的。, en: OK.}}
""")


@pytest.fixture(scope="module")
def routes() -> RuleUnderstanding:
    return RuleUnderstanding(ROUTES, clock=fixed_clock)


@pytest.mark.parametrize(("text", "language"), [
    ("我想坐地铁从河畔酒店到古塔，应该在哪一站上车？", "zh"),
    ("which station do I take the subway at from the Riverside Hotel to Old Tower?", "en"),
])
def test_a_keyword_said_outside_the_names_outweighs_one_inside_them(routes: RuleUnderstanding, text: str,
                                                                    language: str) -> None:
    """The hotel's name says where the trip starts; the metro is what the words ask for, though
    the hotel search takes hotels."""
    top = routes.interpret(text, language).top_intent
    assert top is not None and top.flow == "metro_route", routes.interpret(text, language).intents


@pytest.mark.parametrize(("text", "language"), [("河畔酒店怎么样？", "zh"), ("how is the Riverside Hotel?", "en")])
def test_with_no_keyword_outside_it_the_name_still_asks_its_flow(routes: RuleUnderstanding, text: str,
                                                                 language: str) -> None:
    top = routes.interpret(text, language).top_intent
    assert top is not None and top.flow == "find_hotel"
