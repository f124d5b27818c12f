"""A new value offered ("what about X?", "那X呢？") replaces the value its slot holds, as a
correction does (docs/behaviours.md, item 23). The bot is the flat-hunting desk of
tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from dialogkit.understanding.cues import detect_cues
from tests.understanding.flat_finder import open_bot, slots_after


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = open_bot()
    yield made
    made.close()



@pytest.mark.parametrize("text", ["那河畔呢？", "那么开间呢", "换成周末的呢？",
                                  "what about riverside?", "ok, how about a studio", "How about the weekend?"])
def test_an_offered_value_is_a_correction_cue(text: str) -> None:
    assert "correction" in detect_cues(text)


@pytest.mark.parametrize("text", ["河畔的房子多吗", "那他呢？", "what is riverside like", "what about him", "I asked about the rent"])
def test_words_about_a_value_offer_nothing(text: str) -> None:
    assert "correction" not in detect_cues(text)


@pytest.mark.parametrize(("first", "offer", "district"), [
    ("我想租房，老城的", "那河畔呢？", "riverside"),
    ("find me a flat in the old town", "what about riverside?", "riverside"),
    ("find me a flat in the old town", "How about riverside then", "riverside"),
])
def test_the_offered_value_replaces_the_one_held(bot: Bot, first: str, offer: str, district: str) -> None:
    assert slots_after(bot, first, offer)["district"] == district


@pytest.mark.parametrize(("turns", "layout"), [
    (("我想租房，老城的", "开间", "那两居呢"), "two_bed"),
    (("find me a flat in the old town", "a studio", "what about a two bedroom?"), "two_bed"),
])
def test_an_offer_for_a_slot_not_asked_replaces_it_too(bot: Bot, turns: tuple[str, ...], layout: str) -> None:
    assert slots_after(bot, *turns)["layout"] == layout
