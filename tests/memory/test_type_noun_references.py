"""A type noun limits what a reference binds: "这家餐馆" / "this restaurant" is a restaurant or
nothing, never the dish or hotel said last; "这家" and "它家" point at places only."""

from __future__ import annotations

import pytest

from dialogkit.memory.references import find_references, resolve
from dialogkit.model.interpretation import Mention
from tests.memory._builders import bot_texts, mention, new_session, say

DELI = "tests/conversations/bots/deli.yaml"


@pytest.mark.parametrize(("text", "expression"), [("这家周边有什么景点", "这家"), ("那家几点开门", "那家"),
                                                  ("它家的评分怎么样", "它")])
def test_jia_points_at_places_only(text: str, expression: str) -> None:
    ref = next(r for r in find_references(text, "zh") if r.expression == expression)
    assert ref.kinds is not None and set(ref.kinds) == {"place"}     # no dish, no value


@pytest.mark.parametrize("text", ["这个多少钱", "它多少钱"])
def test_other_classifiers_and_pronouns_still_point_at_things(text: str) -> None:
    kinds = find_references(text, "zh")[0].kinds
    assert kinds is not None and "thing" in kinds


@pytest.mark.parametrize(("text", "language"), [("这家餐馆的周边有哪些景点", "zh"),
                                                ("what sights are near this restaurant", "en")])
def test_a_restaurant_noun_with_no_restaurant_known_binds_no_dish_and_no_area(text: str, language: str) -> None:
    session = new_session()
    say(session, 1, mention("area", "old_town", "老城区", kind="place"), mention("dish", "duck", "烤鸭", kind="thing"))
    resolution = resolve(session, text, language, turn=2, mentions=[], texts=bot_texts(DELI))
    assert resolution.bindings == [] and resolution.ambiguity is None


@pytest.mark.parametrize(("text", "language"), [("这家餐馆的周边有哪些景点", "zh"),
                                                ("what sights are near this restaurant", "en")])
def test_a_restaurant_noun_binds_the_restaurant_known(text: str, language: str) -> None:
    session = new_session()
    say(session, 1, mention("restaurant", "golden_duck", "金鸭餐厅", kind="place"))
    say(session, 2, mention("dish", "duck", "烤鸭", kind="thing"))
    resolution = resolve(session, text, language, turn=3, mentions=[], texts=bot_texts(DELI))
    assert [b.entity.value for b in resolution.bindings] == ["golden_duck"]


LODGING = "tests/memory/lodging_bot.yaml"
GOLDEN_DUCK = mention("restaurant", "golden_duck", "金鸭餐厅", kind="place")
DUCK = mention("dish", "duck", "烤鸭", kind="thing")


def _bound(text: str, language: str, *turns: Mention, bot: str = DELI) -> list[object]:
    """What ``text`` binds after ``turns`` (one mention each), asking nothing."""
    session = new_session()
    for turn, said in enumerate(turns, 1):
        say(session, turn, said)
    resolution = resolve(session, text, language, turn=len(turns) + 1, mentions=[], texts=bot_texts(bot))
    assert resolution.ambiguity is None
    return [b.entity.value for b in resolution.bindings]


@pytest.mark.parametrize(("text", "language"), [("这家酒店的电话是多少", "zh"), ("what is the phone of this hotel", "en")])
def test_a_thing_noun_binds_no_category_of_that_thing(text: str, language: str) -> None:
    # hotel_type reads "hotel" once "type" is taken as a suffix; the category is no hotel
    budget = mention("hotel_type", "budget", "经济型" if language == "zh" else "budget", kind="other")
    assert _bound(text, language, budget, bot=LODGING) == []


@pytest.mark.parametrize(("text", "language"), [("这家酒店的电话是多少", "zh"), ("what is the phone of this hotel", "en")])
def test_a_thing_noun_still_binds_its_thing_over_a_later_category(text: str, language: str) -> None:
    inn, luxury = mention("hotel", "lakeside_inn", "湖畔客栈", kind="place"), mention("hotel_type", "luxury", "豪华型")
    assert _bound(text, language, inn, luxury, bot=LODGING) == ["lakeside_inn"]


@pytest.mark.parametrize(("text", "language"), [("它周边有什么景点", "zh"), ("它附近有酒店吗", "zh"),
                                                ("what sights are near it", "en"), ("any hotels close to it?", "en")])
def test_a_pronoun_whose_surroundings_are_asked_points_at_a_place(text: str, language: str) -> None:
    assert _bound(text, language, GOLDEN_DUCK, DUCK) == ["golden_duck"]


@pytest.mark.parametrize(("text", "language"), [("它周边有什么景点", "zh"), ("what sights are near it", "en")])
def test_a_pronoun_whose_surroundings_are_asked_binds_no_dish(text: str, language: str) -> None:
    assert _bound(text, language, DUCK) == []


@pytest.mark.parametrize(("text", "language"), [("它多少钱", "zh"), ("how much is it", "en")])
def test_a_pronoun_with_no_surroundings_still_prefers_the_thing(text: str, language: str) -> None:
    assert _bound(text, language, GOLDEN_DUCK, DUCK) == ["duck"]


@pytest.mark.parametrize(("text", "language"), [("那也行", "zh"), ("那还行吧", "zh"), ("这也不错", "zh"),
                                                ("that's fine too", "en"), ("that is okay", "en")])
def test_accepting_what_was_said_points_at_nothing(text: str, language: str) -> None:
    assert _bound(text, language, DUCK) == []


@pytest.mark.parametrize(("text", "language"), [("那还没到", "zh"), ("that is broken", "en")])
def test_a_bare_demonstrative_before_a_statement_still_points_back(text: str, language: str) -> None:
    assert _bound(text, language, DUCK) == ["duck"]


@pytest.mark.parametrize(("text", "language"), [("这个想法挺好，还有别的吗", "zh"), ("那个价位能接受", "zh"),
                                                ("这个时段我有空", "zh"), ("that idea is good, anything else", "en"),
                                                ("this score is fine", "en")])
def test_a_demonstrative_determining_an_idea_or_a_measure_binds_nothing(text: str, language: str) -> None:
    """The noun after the demonstrative is what it points at, and that names no thing of the bot."""
    assert _bound(text, language, DUCK) == []


@pytest.mark.parametrize(("text", "language"), [("这个多少钱", "zh"), ("那个还没到", "zh"), ("this one is broken", "en")])
def test_a_demonstrative_standing_alone_still_binds_the_thing(text: str, language: str) -> None:
    assert _bound(text, language, DUCK) == ["duck"]


SICHUAN = mention("cuisine", "sichuan", "川菜", kind="other")
CANTONESE = mention("cuisine", "cantonese", "粤菜", kind="other")
POSSESSIVES = [("它的电话是多少", "zh"), ("它们的地址在哪", "zh"), ("what is its phone number", "en"),
               ("I would like their phone number and address", "en")]


@pytest.mark.parametrize(("text", "language"), POSSESSIVES)
def test_a_possessive_points_at_the_place_not_the_category_said_after(text: str, language: str) -> None:
    assert _bound(text, language, GOLDEN_DUCK, SICHUAN) == ["golden_duck"]


@pytest.mark.parametrize(("text", "language"), [("它们的地址在哪", "zh"), ("他们的电话是多少", "zh"),
                                                ("I would like their phone number and address", "en"),
                                                ("what are their opening hours", "en")])
def test_categories_said_together_have_no_phone_number(text: str, language: str) -> None:
    """Two cuisines (values of kind other) said together own nothing: a plural possessive binds
    neither, and never asks which of the two is meant."""
    session = new_session()
    say(session, 1, SICHUAN, CANTONESE)
    resolution = resolve(session, text, language, turn=2, mentions=[], texts=bot_texts(DELI))
    assert resolution.bindings == [] and resolution.ambiguity is None


@pytest.mark.parametrize(("text", "language"), [("它多少钱", "zh"), ("is it spicy", "en")])
def test_a_pronoun_that_owns_nothing_may_still_be_a_category(text: str, language: str) -> None:
    assert _bound(text, language, SICHUAN) == ["sichuan"]
