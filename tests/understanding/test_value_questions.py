"""A question about a value, or a value waived, sets nothing (docs/behaviours.md, item 4): "它家有
两居吗？" / "does it have a two-bedroom?" ask; "没开间也行", "除了老城" / "anything except the old
town", "no studio is fine" waive. The bot is tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from dialogkit.understanding.value_questions import sets_nothing
from tests.understanding.flat_finder import open_bot, slots_after


def about(text: str, value: str) -> bool:
    start = text.index(value)
    return sets_nothing(text, start, start + len(value))


@pytest.mark.parametrize(("text", "value"), [
    ("它家有健身房吗？", "健身房"), ("没停车位也行", "停车位"), ("除了朝阳区都可以", "朝阳区"),
    ("does it have a balcony?", "balcony"), ("anything except the ground floor", "ground floor"),
    ("no balcony is fine", "balcony"),
])
def test_a_value_asked_about_or_waived_sets_nothing(text: str, value: str) -> None:
    assert about(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("要有健身房的", "健身房"), ("哪家有健身房？", "健身房"), ("停车位也行", "停车位"),
    ("can I have a balcony?", "balcony"), ("I want a balcony", "balcony"),
])
def test_a_value_wished_for_is_not(text: str, value: str) -> None:
    assert not about(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("河畔公寓有没有健身房？", "健身房"), ("这套房子是否提供停车位？", "停车位"), ("公寓是否包含宽带？", "宽带"),
    ("does the Riverside flat have a balcony?", "balcony"), ("will the landlord provide a parking space?", "parking space"),
])
def test_whether_a_named_thing_has_a_value_sets_nothing_zh_en(text: str, value: str) -> None:
    assert about(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("哪套房子有停车位？", "停车位"), ("帮我找有阳台的房子", "阳台"), ("房子要有停车位", "停车位"),
    ("这几套里哪套便宜，有停车位吗？", "停车位"), ("有没有带阳台、租金便宜的呢？", "阳台"),
    ("which flats have a balcony?", "balcony"), ("do you have flats with a balcony?", "balcony"),
    ("of these, which is cheap, and does it have a balcony?", "balcony"),
])
def test_a_search_for_things_that_have_it_still_sets_it_zh_en(text: str, value: str) -> None:
    assert not about(text, value)


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = open_bot()
    yield made
    made.close()



@pytest.mark.parametrize("turns", [
    ("我想租房", "它家有两居吗？"), ("我想租房", "没开间也行"), ("我想租房", "除了老城"),
    ("find me a flat", "does it have a two-bedroom?"), ("find me a flat", "anything except the old town"),
    ("find me a flat", "no studio is fine"),
])
def test_the_flow_sets_nothing_from_it(bot: Bot, turns: tuple[str, ...]) -> None:
    held = slots_after(bot, *turns)
    assert held.get("layout") is None and held.get("district") is None
