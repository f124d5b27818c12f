"""A bare number answering a time question is an hour (docs/behaviours.md, item 2): "7" to
"几点开始？" / "what time does it start?" is 07:00, as "七点" is; "7个" / "7 people" stay counts.
The bot is the shipped meeting bot (flows/meeting.yaml).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.model.interpretation import Mention
from dialogkit.understanding.bare_hours import bare_hour

MEETING = Path(__file__).resolve().parents[2] / "flows" / "meeting.yaml"
START = {"zh": "帮我约个会议，后天", "en": "set up a meeting the day after tomorrow"}


def number(text: str, value: int, start: int = 0) -> Mention:
    return Mention(type="integer", value=value, text=text, start=start, end=start + len(text), builtin=True)


@pytest.mark.parametrize(("text", "mention", "hour"), [
    ("8", number("8", 8), "08:00"), (" 20。", number("20", 20, 1), "20:00"),
    ("九", number("九", 9), "09:00"), ("eleven", number("eleven", 11), "11:00"),
])
def test_a_number_said_alone_is_an_hour(text: str, mention: Mention, hour: str) -> None:
    found = bare_hour(text, [mention])
    assert found is not None and found.type == "time" and found.value == hour


@pytest.mark.parametrize(("text", "mention"), [
    ("8个", number("8个", 8)), ("8 people", number("8", 8)), ("88", number("88", 88)),
])
def test_a_count_or_a_number_past_the_day_is_none(text: str, mention: Mention) -> None:
    assert bare_hour(text, [mention]) is None


@pytest.fixture(scope="module")
def bot() -> Iterator[Bot]:
    made = Bot.from_file(MEETING, store="memory://")
    yield made
    made.close()


_sessions = iter(range(10_000))


@pytest.mark.parametrize(("language", "answer", "time"), [
    ("zh", "8", "08:00"), ("zh", "十五", "15:00"), ("en", "8", "08:00"), ("en", "16", "16:00"),
])
def test_a_bare_number_answers_the_time_question(bot: Bot, language: str, answer: str, time: str) -> None:
    session = f"hour{next(_sessions)}"
    bot.handle(session, START[language])
    reply = bot.handle(session, answer)
    assert reply.slots.get("time") == time


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_bare_number_is_no_hour_while_another_question_is_asked(bot: Bot, language: str) -> None:
    session = f"hour{next(_sessions)}"
    bot.handle(session, {"zh": "帮我约个会议", "en": "set up a meeting"}[language])
    reply = bot.handle(session, "8")
    assert reply.slots.get("time") is None
