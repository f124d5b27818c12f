"""Times of day said as a span from now: "in two hours", "in half an hour", "30 minutes from now",
"两小时后", "半个小时以后", "一个半钟头之后", "十分钟后".

The value is the time of day the span comes to on the clock's local time ("HH:MM", seconds
dropped), like every other ``time``. Only the time of day is a mention: at 23:30 "in two hours" is
01:30, and the day it falls on is not a ``date`` of its own (one span holds one value). A span of a
day or more is no time of day at all and is skipped; "三小时" without 后 is a duration, read as a
number. Chinese needs 后/以后/之后 and 分钟 (not 分: "十分" is "very").
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from dialogkit.lexicon import alternation, words
from dialogkit.understanding.numbers import CN_EVERYDAY_DIGITS, CN_HUNDRED, CN_TEN, EN_UNITS, Found, parse_cn_integer

_CN_HOURS, _CN_MINUTES = words("hour_units"), words("minute_units")
WORDS: tuple[str, ...] = (*_CN_HOURS, *_CN_MINUTES, "hour", "hr", "minute", "mins")
"""Every match holds one of these (Latin ones at a word start) or ``LATIN_SHAPES``: ``datetimes``
adds them to the first look of the time finder."""
LATIN_SHAPES: tuple[str, ...] = (r"min\b",)
""""in 5 min": "min" as a word of its own (as a word start it would let "never mind" through)."""

_MAX_MINUTES = 24 * 60
_EN_COUNT = "|".join(sorted([*EN_UNITS, "an", "a"], key=len, reverse=True))
_EN_UNIT = r"(hours?|hrs?|minutes?|mins?)"
_EN_IN = re.compile(
    rf"\bin\s+(?:(half)\s+an?\s+hour|(\d{{1,3}}|{_EN_COUNT})\s+{_EN_UNIT})\b", re.I
)
_EN_FROM_NOW = re.compile(
    rf"\b(\d{{1,3}}|{_EN_COUNT})\s+{_EN_UNIT}\s+(?:from\s+now|later)\b", re.I
)
_CN_COUNT = rf"\d{{1,3}}|[{CN_EVERYDAY_DIGITS}{CN_TEN}{CN_HUNDRED}]{{1,4}}"
_CN_ONE = alternation(words("generic_classifier"))    # 两个小时
_CN_HALF = alternation(words("half"))
_CN_SPAN = re.compile(
    rf"(?:({_CN_COUNT})\s?(?:(?:{_CN_ONE})\s?)?({_CN_HALF})?|({_CN_HALF})\s?(?:{_CN_ONE})?)\s?"
    rf"({alternation([*_CN_HOURS, *_CN_MINUTES])})\s?(?:{alternation(words('after_span'))})"
)


def find_relative_times(text: str, now: datetime) -> list[Found]:
    """Every "in N hours / minutes" of ``text`` as the time of day it comes to after ``now``."""
    found: list[Found] = []
    for m in _EN_IN.finditer(text):
        minutes = 30 if m[1] else _en_minutes(m[2], m[3])
        _add(found, m, now, minutes)
    for m in _EN_FROM_NOW.finditer(text):
        _add(found, m, now, _en_minutes(m[1], m[2]))
    for m in _CN_SPAN.finditer(text):
        _add(found, m, now, _cn_minutes(m[1], bool(m[2]), bool(m[3]), m[4]))
    return found


def _en_minutes(count: str, unit: str) -> int | None:
    """"in an hour" is a time; "in a minute" only means soon."""
    lowered, hours = count.lower(), unit.lower().startswith("h")
    if lowered in ("a", "an"):
        return 60 if hours else None
    number = int(lowered) if lowered.isdigit() else EN_UNITS[lowered]
    return number * 60 if hours else number


def _cn_minutes(count: str | None, and_a_half: bool, half_only: bool, unit: str) -> int | None:
    """"两个半小时" is 150 minutes, "半小时" 30; a half minute ("一个半分钟") is no time of day."""
    hours = unit not in _CN_MINUTES
    if half_only or and_a_half:
        if not hours:
            return None
        if half_only:
            return 30
    number = (int(count) if count.isdigit() else parse_cn_integer(count)) if count else None
    if number is None:
        return None
    return number * 60 + (30 if and_a_half else 0) if hours else number


def _add(found: list[Found], match: re.Match[str], now: datetime, minutes: int | None) -> None:
    if minutes is None or not 0 < minutes < _MAX_MINUTES:
        return
    # Through UTC, so that a span across a change of summer time is as long as it says.
    at = (now.astimezone(UTC) + timedelta(minutes=minutes)).astimezone(now.tzinfo) if now.tzinfo else (
        now + timedelta(minutes=minutes))
    found.append(Found(match.start(), match.end(), f"{at.hour:02d}:{at.minute:02d}"))
