"""A farewell is no failed answer (docs/behaviours.md, item 15).

"再见" / "bye" said while a question is pending is not off-topic input: the bot says goodbye, and
the task stays as it is, its question still pending and its re-ask count untouched, so the user
can come back to it. With no task it is said goodbye to, not answered with the help listing. A
farewell beside an answer ("老城吧，再见" / "the old town, bye") is the answer.

The bot is the flat-hunting desk of tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

import pytest

from dialogkit import Bot
from dialogkit.model.reply import Reply

START = {"zh": "我想租房", "en": "find me a flat"}
ASKED_DISTRICT = {"zh": "想住哪个区域？", "en": "Which district?"}
GOODBYE = {"zh": "再见！", "en": "Goodbye!"}
FAREWELLS = [("zh", "再见"), ("zh", "好的，谢谢，拜拜"), ("en", "bye"), ("en", "Thank you, goodbye."),
             ("en", "ok thanks, see you")]


@pytest.fixture(scope="module")
def bot(flat_finder: Bot) -> Bot:
    return flat_finder


_sessions = iter(range(10_000))


def talk(bot: Bot, session: str, *turns: str) -> Reply:
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None
    return reply


def new() -> str:
    return f"s{next(_sessions)}"


class TestInATask:
    @pytest.mark.parametrize(("language", "text"), FAREWELLS)
    def test_says_goodbye_and_keeps_the_task(self, bot: Bot, language: str, text: str) -> None:
        session = new()
        reply = talk(bot, session, START[language], text)
        assert reply.text == GOODBYE[language]
        assert reply.state == "PARAM_COLLECT" and reply.flow == "find_flat"

    @pytest.mark.parametrize(("language", "text"), FAREWELLS)
    def test_is_no_failed_answer(self, bot: Bot, language: str, text: str) -> None:
        """More farewells than the re-asks allowed (two) still leave the task, asking."""
        session = new()
        talk(bot, session, START[language], text, text, text)
        reply = talk(bot, session, "blah blah" if language == "en" else "啦啦啦")
        assert reply.flow == "find_flat" and ASKED_DISTRICT[language] in reply.text

    @pytest.mark.parametrize(("language", "answer"), [("zh", "老城"), ("en", "the old town")])
    def test_the_question_is_still_pending(self, bot: Bot, language: str, answer: str) -> None:
        session = new()
        talk(bot, session, START[language], "再见" if language == "zh" else "bye")
        assert talk(bot, session, answer).slots == {"district": "old_town"}

    @pytest.mark.parametrize(("language", "text"), [("zh", "老城吧，再见"), ("en", "the old town, bye")])
    def test_beside_an_answer_it_is_the_answer(self, bot: Bot, language: str, text: str) -> None:
        assert talk(bot, new(), START[language], text).slots == {"district": "old_town"}


class TestWithNoTask:
    @pytest.mark.parametrize(("language", "text"), FAREWELLS)
    def test_says_goodbye_without_the_help_listing(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, new(), text)
        assert reply.text == GOODBYE[language] and reply.flow is None

    @pytest.mark.parametrize(("language", "text"), [("zh", "我想租房，然后就再见了"), ("en", "find me a flat before I say bye")])
    def test_a_request_beside_it_is_the_request(self, bot: Bot, language: str, text: str) -> None:
        assert talk(bot, new(), text).flow == "find_flat"
