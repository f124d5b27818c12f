"""No preference said after a search, with no question pending (docs/behaviours.md, "No
preference after a search").

- "无所谓。" / "I don't care." after a search's answer: the search again, where the first wish
  the session leaves open (in the flow's order) takes its ``any`` value.
- "城区无所谓" / "the district doesn't matter" names the wish.
- Said beside the request of a digression, the waiting task's wishes are not open.

The bot is tests/engine/bots/eatery.yaml: a search and a question about its result, both keeping
their wishes for the session.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.model.reply import Reply
from tests.engine._searches import search_bot

ADDRESS = {"zh": "便宜的川菜馆地址是什么？", "en": "what is the address of a cheap sichuan place?"}


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    yield from search_bot("eatery", {"search_eateries": {}, "eatery_address": {}})


_sessions = itertools.count()


def talk(bot: Bot, *turns: str) -> tuple[Reply, dict[str, Any]]:
    """The last reply, and the wishes the session holds after the turns."""
    session = f"s{next(_sessions)}"
    replies = [bot.handle(session, text) for text in turns]
    view = bot.session(session)
    held = dict(view.slots)
    for task in view.data.stack:
        held.update(task.slots)
    return replies[-1], held


class TestAfterAnAnswer:
    @pytest.mark.parametrize(("language", "answer"), [("zh", "无所谓。"), ("en", "I don't care.")])
    def test_the_wish_left_open_takes_no_preference(self, bot: Bot, language: str, answer: str) -> None:
        reply, held = talk(bot, ADDRESS[language], answer)
        assert held == {"cuisine": "sichuan", "price": "cheap", "district": "any_district"}
        assert reply.flow is None and reply.explain[0].rule == "no_preference"

    @pytest.mark.parametrize(("language", "start", "answer"), [
        ("zh", "川菜馆的地址是什么？", "都行吧"),
        ("en", "what is the address of a sichuan place?", "It doesn't matter."),
    ])
    def test_of_several_open_the_first_the_flow_lists(self, bot: Bot, language: str, start: str, answer: str) -> None:
        """District and price are open: the district, which the search would ask first."""
        assert talk(bot, start, answer)[1] == {"cuisine": "sichuan", "district": "any_district"}

    @pytest.mark.parametrize(("language", "answer"), [("zh", "价位无所谓"), ("en", "the price doesn't matter")])
    def test_a_wish_named_takes_it(self, bot: Bot, language: str, answer: str) -> None:
        start = {"zh": "川菜馆的地址是什么？", "en": "what is the address of a sichuan place?"}[language]
        assert talk(bot, start, answer)[1] == {"cuisine": "sichuan", "price": "any_price"}

    @pytest.mark.parametrize(("language", "answer"), [("zh", "不，哪个城区都行"), ("en", "No, anywhere is fine.")])
    def test_a_no_set_apart_before_a_value_waives_nothing(self, bot: Bot, language: str, answer: str) -> None:
        assert talk(bot, ADDRESS[language], answer)[1]["district"] == "any_district"

    @pytest.mark.parametrize(("language", "answer"), [("zh", "无所谓。"), ("en", "I don't care.")])
    def test_with_no_search_before_it_starts_nothing(self, bot: Bot, language: str, answer: str) -> None:
        reply, held = talk(bot, answer)
        assert held == {} and reply.flow is None


class TestBesideADigression:
    @pytest.mark.parametrize(("language", "turns"), [
        ("zh", ("帮我找家馆子，川菜", "无所谓，地址是什么？")),
        ("en", ("find me a place to eat, sichuan", "I don't care. What is the address?")),
    ])
    def test_the_waiting_search_s_wishes_are_not_open(self, bot: Bot, language: str, turns: tuple[str, ...]) -> None:
        """The search holds the cuisine and asks the district: the question's no-preference is the
        district, kept for the search that waits."""
        held = talk(bot, *turns)[1]
        assert held["cuisine"] == "sichuan" and held["district"] == "any_district"
        assert "price" not in held


class TestAValuePointedBack:
    @pytest.mark.parametrize(("language", "turns"), [
        ("zh", ("帮我找家馆子，便宜的川菜，北城", "那个价位的粤菜有吗？")),
        ("en", ("find me a place to eat, cheap sichuan on the north side", "are there any cantonese ones in that price range?")),
    ])
    def test_it_counts_as_a_value_said_for_the_flow_the_values_name(self, bot: Bot, language: str,
                                                                    turns: tuple[str, ...]) -> None:
        """The cuisine said and the price pointed back at are two values only the search needs."""
        reply, held = talk(bot, *turns)
        assert "flow_of_values" in [e.rule for e in reply.explain]
        assert held == {"cuisine": "cantonese", "price": "cheap", "district": "north"}
