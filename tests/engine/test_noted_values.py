"""Values said with no request are taken by the flow the next turn starts (docs/behaviours.md,
"A mention is not a request").

"Riverside, two-bedroom" asks for nothing and is only noted; "find me a flat" on the next turn
starts the search with both, and asks the next thing instead. A question about values, a turn in
between, a value the new turn says itself, two values of one type and a value read through a typo
all keep the old way.

The bot is a flat-hunting desk: tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import parse_bot_text
from dialogkit.store import MemoryStore

START = {"zh": "我想租房", "en": "find me a flat"}
ASKED_RENT = {"zh": "租金要便宜还是高档？", "en": "Cheap or luxury?"}
ASKED_DISTRICT = {"zh": "想住哪个区域？", "en": "Which district?"}


@pytest.fixture(scope="module")
def bot(flat_finder: Bot) -> Bot:
    return flat_finder


_sessions = iter(range(10_000))


def talk(bot: Bot, *turns: str) -> tuple[str, dict[str, object]]:
    """The last reply's text and the active task's slots."""
    session = f"s{next(_sessions)}"
    text = ""
    for turn in turns:
        text = bot.handle(session, turn).text
    task = bot.session(session).data.task
    return text, dict(task.slots) if task is not None else {}


@pytest.mark.parametrize(("language", "noted"), [
    ("zh", "河畔，两居"),
    ("en", "riverside, two-bedroom"),
])
def test_the_next_turns_flow_takes_what_was_noted(bot: Bot, language: str, noted: str) -> None:
    reply, slots = talk(bot, noted, START[language])
    assert slots == {"district": "riverside", "layout": "two_bed"}
    assert reply.endswith(ASKED_RENT[language])


@pytest.mark.parametrize(("language", "noted"), [("zh", "河畔，两居"), ("en", "riverside, two-bedroom")])
def test_the_explanation_names_the_turn_before(bot: Bot, language: str, noted: str) -> None:
    session = f"s{next(_sessions)}"
    bot.handle(session, noted)
    reply = bot.handle(session, START[language])
    assert [e.did for e in reply.explain if e.rule == "noted_before"] == ["set district = riverside",
                                                                          "set layout = two_bed"]


@pytest.mark.parametrize(("language", "turns"), [
    ("zh", ("有两居吗？", "我想租房")),
    ("en", ("is there a two-bedroom?", "find me a flat")),
])
def test_a_question_about_a_value_offers_nothing(bot: Bot, language: str, turns: tuple[str, str]) -> None:
    _, slots = talk(bot, *turns)
    assert "layout" not in slots


@pytest.mark.parametrize(("language", "turns"), [
    ("zh", ("河畔", "你好", "我想租房")),
    ("en", ("riverside", "hello", "find me a flat")),
])
def test_only_the_very_next_turn_takes_them(bot: Bot, language: str, turns: tuple[str, ...]) -> None:
    reply, slots = talk(bot, *turns)
    assert slots == {}
    assert reply.endswith(ASKED_DISTRICT[language])


@pytest.mark.parametrize(("language", "turns"), [
    ("zh", ("河畔", "我想在老城租房")),
    ("en", ("riverside", "find me a flat in the old town")),
])
def test_the_new_turns_own_value_wins(bot: Bot, language: str, turns: tuple[str, str]) -> None:
    _, slots = talk(bot, *turns)
    assert slots["district"] == "old_town"


@pytest.mark.parametrize(("language", "turns"), [
    ("zh", ("河畔和老城", "我想租房")),
    ("en", ("riverside and old town", "find me a flat")),
])
def test_two_values_for_one_slot_are_left_to_ask(bot: Bot, language: str, turns: tuple[str, str]) -> None:
    reply, slots = talk(bot, *turns)
    assert "district" not in slots
    assert reply.endswith(ASKED_DISTRICT[language])


CAFE = """
bot: {name: cafe, language: auto}
entities:
  drink:
    fuzzy: 1
    values:
      latte: [拿铁, latte]
      mocha: [摩卡, mocha]
flows:
  order:
    description: 点咖啡 / Order a coffee
    trigger:
      examples: [我要点咖啡, I want to order a coffee]
      keywords: [点咖啡, order a coffee]
    slots:
      - {name: drink, entity: drink, ask: {zh: "喝什么？", en: "Which drink?"}}
      - {name: cups, entity: integer, ask: {zh: "几杯？", en: "How many cups?"}}
    execute: {action: place_order, say: {zh: "已下单。", en: "Ordered."}}
"""
ORDER = {"zh": "我要点咖啡", "en": "I want to order a coffee"}
ASKED_DRINK = {"zh": "喝什么？", "en": "Which drink?"}


@pytest.fixture(scope="module")
def cafe() -> Iterator[Bot]:
    made = Bot(parse_bot_text(CAFE, actions={"place_order": {}}), MemoryStore())
    yield made
    made.close()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_value_read_through_a_typo_is_not_taken_unasked(cafe: Bot, language: str) -> None:
    """"lattee" is noted as latte, but a typo is always asked about: the flow asks for the drink."""
    reply, slots = talk(cafe, "lattee", ORDER[language])
    assert "drink" not in slots
    assert reply.endswith(ASKED_DRINK[language])


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_same_value_spelled_right_is_taken(cafe: Bot, language: str) -> None:
    _, slots = talk(cafe, {"zh": "拿铁", "en": "latte"}[language], ORDER[language])
    assert slots == {"drink": "latte"}
