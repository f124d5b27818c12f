"""Built-in entity types, usable in a bot file without declaring them.

number, integer, phone, email, date, time, yes_no. Each finder takes folded text and ``now`` (the
time the turn is read at, in the bot's time zone: dates and times are relative to it) and returns
``Found`` spans; ``entities`` turns them into mentions and settles overlaps.

Values: number -> int/float; integer -> int; phone -> digits with a leading "+" when the number
was written in international form ("+8613812345678", "13812345678", "4155552671"); email -> as
written with the domain lower-cased; date -> "YYYY-MM-DD"; time -> "HH:MM"; yes_no -> bool.

Every pattern here anchors its start with a look-behind or a word boundary and uses bounded
repeats, so scanning is linear in the text: no pattern can backtrack catastrophically.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from dialogkit.understanding.cues import leading_answer
from dialogkit.understanding.datetimes import find_dates, find_times, read_dates, read_times
from dialogkit.understanding.numbers import Found, find_integers, find_numbers

Finder = Callable[[str, datetime], list[Found]]

_CN_MOBILE = re.compile(r"(?<![\d+])(?:(?:\+|00)86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)")
_INTERNATIONAL = re.compile(
    r"(?<![\d+\w])(?:\+|00)(?:\d{7,15}|\d{1,3}(?:[\s.-]?\(\d{1,4}\)|[\s.-]\d{1,4}){2,5})(?!\d)"
)
_US = re.compile(r"(?<![\d+])(?:1[\s.-])?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?!\d)")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}"
    r"@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24})(?![A-Za-z0-9-])"
)
_DIGIT = re.compile(r"\d")
MIN_PHONE_DIGITS = 7
MAX_PHONE_DIGITS = 15


def _phone_value(literal: str) -> str:
    digits = "".join(ch for ch in literal if ch.isdigit())
    if literal.startswith("+"):
        return "+" + digits
    if literal.startswith("00"):
        return "+" + digits[2:]
    return digits


def _may_hold_phone(text: str) -> bool:
    """A cheap first look. Every digit of a phone's value is a ``\\d`` of the text (separators are
    never digits) and a value needs MIN_PHONE_DIGITS of them, so text with fewer (most turns, a
    5-digit order number) cannot hold a phone and skips the three patterns."""
    return len(_DIGIT.findall(text)) >= MIN_PHONE_DIGITS


def find_phones(text: str, _now: datetime | None = None) -> list[Found]:
    """Chinese mobiles (1[3-9] + 9 digits, with +86 and separators), international, US forms."""
    if not _may_hold_phone(text):
        return []
    found: list[Found] = []
    for pattern in (_CN_MOBILE, _INTERNATIONAL, _US):
        for match in pattern.finditer(text):
            value = _phone_value(match.group())
            if MIN_PHONE_DIGITS <= len(value.lstrip("+")) <= MAX_PHONE_DIGITS:
                found.append(Found(match.start(), match.end(), value))
    return found


def find_emails(text: str, _now: datetime | None = None) -> list[Found]:
    if "@" not in text:     # most turns: a first look in C instead of a scan
        return []
    found: list[Found] = []
    for match in _EMAIL.finditer(text):
        local = match.group()[: match.start(1) - match.start() - 1]
        found.append(Found(match.start(), match.end(), f"{local}@{match.group(1).lower()}"))
    return found


def find_yes_no(text: str, _now: datetime | None = None) -> list[Found]:
    """The answer an utterance is (the same reading as the yes/no cues), as a bool."""
    answer = leading_answer(text)
    if answer is None or answer.correction:
        return []
    return [Found(answer.start, answer.end, answer.value)]


BUILTIN_FINDERS: dict[str, Finder] = {
    "email": find_emails,
    "phone": find_phones,
    "date": find_dates,
    "time": find_times,
    "integer": lambda text, _now: find_integers(text),
    "number": lambda text, _now: find_numbers(text),
    "yes_no": find_yes_no,
}
"""Finders in tie-break order: at equal length an email beats a phone beats a date ... ."""

READERS: dict[str, Finder] = {
    "date": read_dates,
    "time": read_times,
}
"""Finders that also return what has their type's form but is impossible ("2月30日", "25:00"),
with a ``datetimes.Impossible`` value."""

ALWAYS_TRACKED: frozenset[str] = frozenset({"date", "time", "phone", "email"})
"""Built-ins that ``interpret`` reports even when no slot uses them (entity memory wants them)."""
