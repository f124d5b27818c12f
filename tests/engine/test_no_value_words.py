"""A no or an "other" of the language names nothing, though a catalogue lists it (docs/behaviours.md,
item 2): "有没有" holds 没有 and "还有其他的吗" holds 其他, and neither is a dish or a cuisine
wished for. Only said alone, as the whole answer to its slot's question, is it that slot's value.

The bot is tests/engine/bots/food_court.yaml: its dish and cuisine catalogues list such words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.store import MemoryStore

BOT_FILE = Path(__file__).resolve().parent / "bots" / "food_court.yaml"


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = Bot(load_bot_file(BOT_FILE, actions={"search_stalls": {}}), MemoryStore())
    yield made
    made.close()


_sessions = iter(range(10_000))


def searched(bot: Bot, *turns: str) -> dict[str, object]:
    """The values the search ran with (it runs as soon as its cuisine is known)."""
    session = f"s{next(_sessions)}"
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None and reply.actions, reply.text
    return dict(reply.actions[-1].inputs)


@pytest.mark.parametrize("text", ["有没有卖烤鸭的川菜店？", "are there other sichuan stalls with roast duck?"])
def test_a_no_or_other_beside_a_dish_is_no_dish_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == {"cuisine": "sichuan", "dish": ["roast_duck"]}


@pytest.mark.parametrize("text", ["还有其它的川菜店吗？", "any others that do sichuan? find me a stall"])
def test_an_other_beside_a_cuisine_asks_no_question_zh_en(bot: Bot, text: str) -> None:
    assert searched(bot, text) == {"cuisine": "sichuan"}


@pytest.mark.parametrize(("start", "answer"), [("帮我找个摊位", "其它"), ("find me a stall", "others")])
def test_said_alone_to_its_question_it_is_the_value_zh_en(bot: Bot, start: str, answer: str) -> None:
    assert searched(bot, start, answer).get("cuisine") == "other_cuisine"
