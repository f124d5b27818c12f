"""A digression's values that are the waiting task's wishes (docs/behaviours.md, item 7): a
question about a search's result that names other wishes ("粤菜的话，电话是多少？" / "what is the
phone number of a cantonese one?") changes the search that waits for it, since the search needs
them and the question only accepts them. A flow that needs the value itself (an order check while a
repair waits) leaves the waiting task's value alone.

The bot is tests/engine/bots/place_finder.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.store import MemoryStore

BOT_FILE = Path(__file__).resolve().parent / "bots" / "place_finder.yaml"
ACTIONS = {"search_places": {}, "place_phone": {}, "create_ticket": {}, "order_status": {}}


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = Bot(load_bot_file(BOT_FILE, actions=ACTIONS), MemoryStore())
    yield made
    made.close()


_sessions = iter(range(10_000))


def waiting_after(bot: Bot, *turns: str) -> tuple[str, dict[str, Any]]:
    """The flow of the task in progress after the turns, and its values; a search the digression
    gave every wish runs as it resumes: then its flow, and the wishes it ran with."""
    session = f"s{next(_sessions)}"
    replies = [bot.handle(session, text) for text in turns]
    ran = [run for run in replies[-1].actions if run.name == "search_places"]
    if ran:
        return "find_place", {k: v for k, v in ran[0].inputs.items() if v is not None}
    task = bot.session(session).data.stack[-1]
    return task.flow, dict(task.slots)


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "粤菜的话，电话是多少？"),
                                   ("find me a sichuan restaurant", "what is the phone number of a cantonese one?")])
def test_a_question_about_the_result_with_new_wishes_changes_the_search(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("find_place", {"cuisine": "cantonese"})


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "东城的话，电话是多少？"),
                                   ("find me a sichuan restaurant", "what is the phone number of one on the east side?")])
def test_a_wish_the_search_lacked_is_kept_for_it(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("find_place", {"cuisine": "sichuan", "district": "east"})


@pytest.mark.parametrize("turns", [("我的订单12345坏了", "查一下订单67890的状态"),
                                   ("my order 12345 arrived broken", "check the status of order 67890")])
def test_a_flow_that_needs_the_value_leaves_the_waiting_task_alone(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("report_issue", {"order_id": "12345"})


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "无所谓，电话是多少？"),
                                   ("find me a sichuan restaurant", "I don't care. What is their phone number?")])
def test_no_preference_before_the_question_answers_the_question_asked(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("find_place", {"cuisine": "sichuan", "district": "any_district"})


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "没有。电话是多少？"),
                                   ("find me a sichuan restaurant", "No. What is their phone number?")])
def test_an_answer_giving_nothing_before_the_question_is_no_preference(bot: Bot, turns: tuple[str, ...]) -> None:
    """"没有" / "No." to the district asked, then a question about the result."""
    assert waiting_after(bot, *turns) == ("find_place", {"cuisine": "sichuan", "district": "any_district"})


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "没有。我想吃辣的。电话是多少？"),
                                   ("find me a sichuan restaurant", "No. I love spicy food. What is their phone number?"),
                                   ("find me a sichuan restaurant", "No. What about cantonese? What is their phone number?")])
def test_a_statement_after_it_is_no_answer_giving_nothing(bot: Bot, turns: tuple[str, ...]) -> None:
    """Nor is a no before another value offered: it turns the value down."""
    assert "district" not in waiting_after(bot, *turns)[1]


@pytest.mark.parametrize("turns", [("帮我找家餐馆", "城区无所谓，电话是多少？"),
                                   ("find me a restaurant", "I don't care about the district. What is their phone number?")])
def test_no_preference_for_a_slot_named_beside_the_question_fills_that_slot(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("find_place", {"district": "any_district"})


@pytest.mark.parametrize("turns", [("帮我找家川菜馆", "东城西城都行，电话是多少？"),
                                   ("find me a sichuan restaurant", "either the east side or the west side is fine. What is their phone number?")])
def test_no_preference_between_two_values_beside_the_question_is_no_preference(bot: Bot, turns: tuple[str, ...]) -> None:
    assert waiting_after(bot, *turns) == ("find_place", {"cuisine": "sichuan", "district": "any_district"})


@pytest.mark.parametrize(("turns", "asked"), [
    (("帮我找家川菜馆", "无所谓，电话是多少？"), "在哪个城区？"),
    (("find me a sichuan restaurant", "I don't care. What is their phone number?"), "Which district?"),
])
def test_a_search_the_digression_completed_runs_when_it_resumes(bot: Bot, turns: tuple[str, ...], asked: str) -> None:
    """The district asked got its no-preference in the question about the result: back to the
    search, it has every wish and runs, instead of asking for the district again."""
    session = f"s{next(_sessions)}"
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None and asked not in reply.text
    assert bot.session(session).data.stack == []
