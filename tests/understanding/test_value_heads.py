"""A value said with an empty head ("the riverside one", "河畔的那个", "两居那套") or with the noun of
the thing a task looks for names a value: no ordinal, no reference back, and a slot already filled
takes it (docs/behaviours.md, item 4). The bot is tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from dialogkit.understanding.value_heads import names_by_value
from tests.understanding.flat_finder import open_bot, slots_after


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = open_bot()
    yield made
    made.close()



@pytest.mark.parametrize(("text", "surface"), [
    ("河畔的那个", "河畔"), ("两居那套吧", "两居"), ("I'd take the riverside one", "riverside"),
    ("any studio ones?", "studio"),
])
def test_a_value_with_an_empty_head_names_by_value(text: str, surface: str) -> None:
    assert names_by_value(text, surface)


@pytest.mark.parametrize(("text", "surface"), [
    ("河畔的房子多吗", "河畔"), ("riverside is one option", "riverside"), ("a studio only", "studio"),
])
def test_a_value_followed_by_other_words_does_not(text: str, surface: str) -> None:
    assert not names_by_value(text, surface)


def test_the_noun_of_the_thing_sought_is_a_head_too() -> None:
    assert names_by_value("is there a riverside flat?", "riverside", ("flat",))
    assert names_by_value("有没有河畔的房子", "河畔", ("房子",))
    assert not names_by_value("is there a riverside flat?", "riverside")


@pytest.mark.parametrize(("turns", "district"), [
    (("我想租房，老城的", "河畔的那个"), "riverside"),
    (("find me a flat in the old town", "I'd prefer a riverside one"), "riverside"),
])
def test_the_value_replaces_the_one_held(bot: Bot, turns: tuple[str, ...], district: str) -> None:
    assert slots_after(bot, *turns)["district"] == district


@pytest.mark.parametrize(("turns", "layout"), [
    (("我想租房，老城的", "开间", "两居那套"), "two_bed"),
    (("find me a flat in the old town", "a studio", "the two bedroom one"), "two_bed"),
])
def test_a_slot_not_asked_takes_it_too(bot: Bot, turns: tuple[str, ...], layout: str) -> None:
    assert slots_after(bot, *turns)["layout"] == layout


@pytest.mark.parametrize("turns", [("我想租房，老城的", "河畔的那个"), ("我想租房，老城的", "老城那个")])
def test_the_demonstrative_after_a_value_points_back_at_nothing(bot: Bot, turns: tuple[str, ...]) -> None:
    session = f"head-{turns[-1]}"
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None and reply.clarification is None and reply.resolved == turns[-1]


@pytest.mark.parametrize(("turns", "district"), [
    (("我想租房，老城的", "开间", "河畔"), "riverside"),
    (("find me a flat in the old town", "a studio", "riverside"), "riverside"),
])
def test_a_bare_value_for_a_filled_slot_replaces_it(bot: Bot, turns: tuple[str, ...], district: str) -> None:
    assert slots_after(bot, *turns)["district"] == district
