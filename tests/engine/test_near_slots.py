"""A search around a named place: a slot whose role is ``near`` holds the place the search looks
around ("紫禁宫周边的酒店" / "a hotel near the Palace Museum"), read with each language's near words
from the lexicon (docs/behaviours.md §18).

The bot is tests/engine/bots/hotel_guide.yaml: a hotel search that may look around a sight, and a
sight search.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from tests.engine._searches import BOTS, search_bot, searched


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    yield from search_bot("hotel_guide", {"search_hotels": {}, "search_sights": {}})


@pytest.mark.parametrize("text", ["紫禁宫周边的酒店，要有健身房", "湖心公园附近有健身房的酒店帮我找一家",
                                  "a hotel near the Palace Museum with a gym", "find me a hotel with a gym close to Lake Park",
                                  "un hotel cerca del Museo del Palacio con gimnasio"])
def test_the_place_named_with_a_near_word_fills_the_near_slot_zh_en_es(bot: Bot, text: str) -> None:
    name, values = searched(bot, text)
    assert name == "search_hotels" and values["facility"] == "gym" and values["near"] in {"palace", "lake_park"}


@pytest.mark.parametrize("text", ["帮我找家有游泳池的酒店，我明天去紫禁宫",
                                  "find me a hotel with a pool, I'm visiting the Palace Museum tomorrow"])
def test_a_place_named_without_a_near_word_is_no_place_looked_around_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == ("search_hotels", {"facility": "pool"})


@pytest.mark.parametrize("text", ["紫禁宫周边有什么酒店？", "what hotels are near the Palace Museum?"])
def test_a_question_about_the_surroundings_still_asks_the_places_own_flow_zh_en(bot: Bot, text: str) -> None:
    """The near slot makes the hotel search take sights; the sights are still the sight search's."""
    assert searched(bot, text) == ("search_sights", {"name": "palace"})


@pytest.mark.parametrize("turns", [("帮我找个景点，紫禁宫", "找一家它附近有健身房的酒店"),
                                   ("find me a sight, Palace Museum", "find a hotel with a gym near it")])
def test_a_referent_never_fills_the_near_slot_zh_en(bot: Bot, turns: tuple[str, ...]) -> None:
    assert searched(bot, *turns) == ("search_hotels", {"facility": "gym"})


def test_a_near_slot_alone_with_its_type_is_no_lone_role() -> None:
    """Its words decide whether the value is the place looked around, so `validate` keeps quiet."""
    from dialogkit.spec.checks_warnings import bot_warnings
    from dialogkit.spec.loader import check_bot_text

    checked = check_bot_text((BOTS / "hotel_guide.yaml").read_text(encoding="utf-8"), "hotel_guide.yaml")
    assert checked.spec is not None and checked.problems == []
    assert bot_warnings(checked.spec, checked.document) == []


@pytest.mark.parametrize("text", ["帮我找一家紫禁宫的附近有健身房的酒店", "找一家湖心公园的周边有健身房的酒店",
                                  "a hotel with a gym in the vicinity of the Palace Museum",
                                  "find me a hotel with a gym within walking distance of Lake Park"])
def test_the_near_word_may_follow_a_possessive_or_be_a_longer_phrase_zh_en(bot: Bot, text: str) -> None:
    """"紫禁宫的附近" is "紫禁宫附近" with a possessive between; "in the vicinity of" is "near" at
    length: each is a near word of the lexicon."""
    name, values = searched(bot, text)
    assert name == "search_hotels" and values["facility"] == "gym" and values["near"] in {"palace", "lake_park"}
