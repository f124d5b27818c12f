"""A value that picks a result within a no-preference wish (docs/behaviours.md, item 7): after "any
district", "the phone number of the one on the east side" / "东城那家的电话是多少？" asks about one
result the wish allows; the wish kept for the session stays "any district". A value the search
itself asks for is a new wish, and replaces the one held.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogkit import Bot

BOT = """
bot: {name: wish_keeper, description: Place finder, language: auto}
entities:
  cuisine:
    kind: other
    values:
      sichuan: {aliases: [川菜, sichuan], label: {zh: 川菜, en: sichuan}}
      cantonese: {aliases: [粤菜, cantonese], label: {zh: 粤菜, en: cantonese}}
  district:
    kind: place
    any: any_district
    values:
      any_district: {aliases: [任意城区, any district], label: {zh: 任意城区, en: any district}}
      east: {aliases: [东城, east side], label: {zh: 东城, en: east side}}
      west: {aliases: [西城, west side], label: {zh: 西城, en: west side}}
flows:
  find_place:
    description: 找餐馆 / Find a place to eat
    trigger:
      examples: [帮我找家餐馆, 我想找个吃饭的地方, find me a place to eat, I am looking for a restaurant]
      keywords: [餐馆, 饭馆, restaurant, place to eat]
    slots:
      - {name: cuisine, entity: cuisine, label: {zh: 菜系, en: cuisine}, ask: {zh: "想吃什么菜？", en: "Which cuisine?"}, persist: session}
      - {name: district, entity: district, label: {zh: 城区, en: district}, ask: {zh: "在哪个城区？", en: "Which district?"}, persist: session}
    execute: {action: search_places, say: {zh: "找到了。", en: "Found one."}}
  place_phone:
    description: 餐馆电话 / The phone number of the place found
    trigger:
      examples: [电话是多少, 他们的电话号码, what is their phone number, can I have the phone number]
      keywords: [电话, phone number]
    slots:
      - {name: cuisine, entity: cuisine, label: {zh: 菜系, en: cuisine}, required: false, persist: session}
      - {name: district, entity: district, label: {zh: 城区, en: district}, required: false, persist: session}
    execute: {action: place_phone, say: {zh: "电话是 123。", en: "The number is 123."}}
"""


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    path: Path = tmp_path_factory.mktemp("wish_keeper") / "bot.yaml"
    path.write_text(BOT, encoding="utf-8")
    made = Bot.from_file(path, store="memory://", actions={"search_places": {}, "place_phone": {}})
    yield made
    made.close()


_sessions = iter(range(10_000))


def wishes_after(bot: Bot, *turns: str) -> dict[str, object]:
    session = f"s{next(_sessions)}"
    for text in turns:
        bot.handle(session, text)
    return dict(bot.session(session).slots)


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "城区无所谓", "东城那家的电话是多少？"),
                                   ("find me a sichuan restaurant", "I don't care about the district",
                                    "what is the phone number of the one on the east side?")])
def test_a_value_that_picks_a_result_keeps_the_no_preference_wish(bot: Bot, turns: tuple[str, ...]) -> None:
    assert wishes_after(bot, *turns) == {"cuisine": "sichuan", "district": "any_district"}


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "城区无所谓", "帮我找家东城的川菜馆"),
                                   ("find me a sichuan restaurant", "I don't care about the district",
                                    "find me a sichuan restaurant on the east side")])
def test_a_value_the_search_asks_for_is_a_new_wish(bot: Bot, turns: tuple[str, ...]) -> None:
    assert wishes_after(bot, *turns) == {"cuisine": "sichuan", "district": "east"}


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "东城", "西城那家的电话是多少？"),
                                   ("find me a sichuan restaurant", "the east side",
                                    "what is the phone number of the one on the west side?")])
def test_a_value_beside_a_wish_of_its_own_replaces_it(bot: Bot, turns: tuple[str, ...]) -> None:
    assert wishes_after(bot, *turns) == {"cuisine": "sichuan", "district": "west"}
