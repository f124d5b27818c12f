"""A question about what is around a thing is a question about that thing (docs/behaviours.md,
item 18): the flow of the thing runs, with the thing named; a search around it with wishes of its
own stays a search.

The bot is tests/engine/bots/city_guide.yaml: restaurants and sights, each searched at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from tests.engine._searches import search_bot, searched


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    yield from search_bot("city_guide", {"search_restaurants": {}, "search_sights": {}})


@pytest.mark.parametrize("text", ["金鸭餐厅周边有什么景点？", "what sights are near the Golden Duck?"])
def test_the_surroundings_of_a_named_thing_ask_about_it_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == ("search_restaurants", {"name": "golden_duck"})


@pytest.mark.parametrize("text", ["古塔附近有没有饭馆", "any restaurants close to Old Tower?"])
def test_whichever_kind_is_named_its_flow_answers_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == ("search_sights", {"name": "old_tower"})


@pytest.mark.parametrize(("first", "then"), [("帮我找个景点", "饭馆周边有什么景点？"),
                                             ("find me a sight", "any sights close to the restaurant?")])
def test_a_trigger_word_names_the_thing_zh_en(bot: Bot, first: str, then: str) -> None:
    assert searched(bot, first, then)[0] == "search_restaurants"


@pytest.mark.parametrize(("first", "then"), [("帮我找个景点", "周边有什么餐厅？"),
                                             ("find me a sight", "are there restaurants around?")])
def test_with_no_thing_named_it_is_the_last_one_zh_en(bot: Bot, first: str, then: str) -> None:
    assert searched(bot, first, then)[0] == "search_sights"


@pytest.mark.parametrize("text", ["金鸭餐厅附近免费的景点", "free sights near the Golden Duck"])
def test_a_search_around_it_with_wishes_stays_a_search_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == ("search_sights", {"ticket": "free"})


@pytest.mark.parametrize("text", ["帮我在金鸭餐厅附近找个景点", "find me a sight near the Golden Duck"])
def test_a_request_near_the_thing_is_no_question_about_it_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text)[0] == "search_sights"


@pytest.mark.parametrize(("text", "near", "after"), [
    ("故宫周边有什么餐馆？", "周边", True),
    ("what restaurants are near the Golden Duck?", "near", False),
    ("¿qué museos hay cerca del hotel Sol?", "cerca del", False),
])
def test_the_near_word_and_its_side_come_from_the_lexicon(text: str, near: str, after: bool) -> None:
    """Each language's near words are lexicon data: said after the thing (周边) or before it (near,
    cerca de/del); the rule reads which side the thing stands on."""
    from dialogkit.engine.rules.surroundings import _near
    from dialogkit.model.interpretation import Interpretation

    found = _near(Interpretation(text=text, language="en"))
    assert found is not None and text[found[0]:found[1]] == near and found[2] is after


@pytest.fixture(scope="module")
def trip_desk() -> Iterator[Bot]:
    """tests/engine/bots/trip_desk.yaml: a hotel search that asks how many nights, a sight search."""
    yield from search_bot("trip_desk", {"search_hotels": {}, "search_sights": {}})


@pytest.mark.parametrize(("first", "then", "answer"), [
    ("帮我找家酒店", "山景酒店附近有什么景点？", "住两晚"),
    ("find me a hotel", "what sights are near the Hillview Hotel?", "2 nights"),
])
def test_inside_a_task_a_question_about_its_own_kind_of_thing_is_no_digression_zh_en(
        trip_desk: Bot, first: str, then: str, answer: str) -> None:
    """The sight search's keyword is said, but the question is about a hotel: the hotel task takes
    the hotel named and goes on asking."""
    assert searched(trip_desk, first, then, answer) == ("search_hotels", {"name": "hill_inn", "nights": 2})


@pytest.mark.parametrize("text", ["金鸭餐厅的周边有什么景点？", "金鸭餐厅就近有什么景点？",
                                  "what sights are in the vicinity of the Golden Duck?"])
def test_the_surroundings_asked_in_other_words_ask_about_the_thing_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == ("search_restaurants", {"name": "golden_duck"})
