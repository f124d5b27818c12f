"""The built-in ``date`` and ``time`` types, relative to ``now``: the time the turn is read at.

``now`` is the bot's clock in the bot's time zone (docs/bot-file.md, ``timezone``), so "明天" and
"tomorrow" are the day after the bot's local date, whatever the machine's zone or date is. Dates
become ISO strings "YYYY-MM-DD", times "HH:MM" on a 24-hour clock. Choices, the same in both
languages:

- A bare weekday ("周五", "friday", "on friday") is its next occurrence, today included.
  "这周五"/"本周五"/"this friday" is that day of the current Monday-based week, even if past;
  "下周五"/"next friday" is that day of next week and "上周五"/"last friday" of last week
  (so on Monday 2026-11-30 "next friday" is 2026-12-11, exactly like 下周五).
- A month and day without a year ("12月3日", "Dec 3", "12/3") take the year that puts the date
  closest to today, ties going to the future: in late November "3月5日" is next March.
- "12/3" is month/day, as Chinese and US writing agree.
- An hour from 1 to 6 said without a part of the day means the afternoon, as it does in an
  office: "三点", "两点半", "下周三三点", "at 3", "half past two", "3 o'clock", "3:30" are 15:00,
  14:30, 15:00, 15:00, 14:30, 15:00, 15:30. A marker keeps the morning: "凌晨三点", "上午三点",
  "早上6点", "3am", "3 in the morning". Other bare hours are literal ("七点" is 07:00, "十点" 10:00),
  and so is a 24-hour clock with a leading zero ("03:30"). "晚上12点" and "midnight" are 00:00,
  "中午"/"noon" 12:00.
- "in two hours", "半小时后" are the time of day the span comes to from ``now``
  (``relative_times``): at 09:00, 11:00 and 09:30.
- A date or time in the right form but impossible ("2025-13-45", "2月30日", "Feb 30", "25:00",
  "13:75", "3点75分") is no value, but it is not silently dropped either: ``read_dates`` and
  ``read_times`` return it with an ``Impossible`` value naming the part that cannot be ("month",
  "day", "hour", "minute"), so that the user can be told. ``find_dates`` and ``find_times`` return
  the possible ones only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import NamedTuple

from dialogkit.lexicon import alternation, languages, lexicon, words
from dialogkit.strings.cjk import has_cjk, is_cjk_char
from dialogkit.understanding import relative_times
from dialogkit.understanding.language import case_blind, may_hold_latin
from dialogkit.understanding.numbers import (
    CN_DIGITS,
    CN_EVERYDAY_DIGITS,
    CN_TEN,
    EN_UNITS,
    Found,
    longest_first,
    parse_cn_integer,
)

_CN_NUM_CHAR = f"[{CN_EVERYDAY_DIGITS}{CN_TEN}]"
_CN_NUM = f"{_CN_NUM_CHAR}{{1,3}}"
_CN_OR_DIGITS = rf"(?:\d{{1,2}}|{_CN_NUM})"

# ---------------------------------------------------------------- dates

_ISO = re.compile(r"(?<!\d)(\d{4})\s?[-/.年]\s?(\d{1,2})\s?[-/.月]\s?(\d{1,2})(?:\s?[日号])?(?!\d)")
_CN_MONTH_DAY = re.compile(rf"(?<!\d)({_CN_OR_DIGITS})\s?月\s?({_CN_OR_DIGITS})\s?[日号]")
_SLASH = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])")


def _values(meaning: str) -> dict[str, int]:
    """The words of ``meaning`` with their numbers, in every language that has it."""
    return {w: v for lang in languages() if lexicon(lang).has(meaning)
            for w, v in lexicon(lang).values(meaning).items()}


_RELATIVE_DAYS = _values("relative_days")
_CN_RELATIVE_DAYS = {w: d for w, d in _RELATIVE_DAYS.items() if has_cjk(w)}   # written without spaces
_CN_RELATIVE = re.compile(alternation(_CN_RELATIVE_DAYS))
_CN_WEEK_WORDS = alternation(words("week_words"))
_CN_WEEKDAYS = _values("weekday_marks")
_CN_WEEKDAY_NAMES = alternation(_CN_WEEKDAYS)
_CN_WHICH = {w: which for lang in languages() if lexicon(lang).has("which_week")
             for w, which in lexicon(lang).spellings("which_week").items()}
_CN_WEEKDAY = re.compile(rf"({alternation(_CN_WHICH)})?(?:{_CN_WEEK_WORDS})({_CN_WEEKDAY_NAMES})")
_CN_AFTER, _CN_BEFORE = words("after_span"), words("before_span")
_CN_DAY = alternation(words("day_unit"))
_CN_IN_DAYS = re.compile(rf"({_CN_OR_DIGITS}|\d{{1,3}})\s?(?:{_CN_DAY})\s?({alternation([*_CN_AFTER, *_CN_BEFORE])})")

_EN_RELATIVE_DAYS = {w: d for w, d in _RELATIVE_DAYS.items() if not has_cjk(w)}   # words apart
_EN_RELATIVE = re.compile(
    r"\b(?:" + "|".join(sorted(_EN_RELATIVE_DAYS, key=len, reverse=True)) + r")\b", re.I
)
_EN_WEEKDAYS = _values("weekdays")
_EN_WEEKDAY = re.compile(
    r"\b(?:(next|this|last|on|coming)\s+)?(" + "|".join(_EN_WEEKDAYS) + r")\b", re.I
)
_EN_IN_DAYS = re.compile(
    r"\bin\s+(\d{1,3})\s+days?\b|\b(\d{1,3})\s+days?\s+(ago|later|from now)\b", re.I
)
_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH_NAME = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_EN_MONTH_DAY = re.compile(
    rf"\b{_MONTH_NAME}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I
)
_EN_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_NAME}(?:,?\s+(\d{{4}}))?\b", re.I
)


def _small_int(text: str) -> int | None:
    text = text.strip()
    if text.isdigit():
        return int(text)
    return parse_cn_integer(text)


class Impossible(NamedTuple):
    """The value of a date or time written in the right form but impossible: which part is."""

    reason: str  # "month", "day", "hour" or "minute"


def _safe_date(year: int, month: int, day: int) -> date | Impossible:
    if not 1 <= month <= 12:
        return Impossible("month")
    try:
        return date(year, month, day)
    except ValueError:
        return Impossible("day")


def _closest_year(today: date, month: int, day: int) -> date | Impossible:
    """The month/day nearest to today among last, this and next year (ties: the future)."""
    options = [
        d
        for y in (today.year, today.year + 1, today.year - 1)
        if isinstance(d := _safe_date(y, month, day), date)
    ]
    if not options:
        return _safe_date(today.year, month, day)
    return min(options, key=lambda d: (abs((d - today).days), d < today))


def _weekday(today: date, target: int, which: str) -> date:
    monday = today - timedelta(days=today.weekday())
    offsets = {"next": 7, "last": -7, "this": 0, "nextnext": 14}
    if which in offsets:
        return monday + timedelta(days=offsets[which] + target)
    return today + timedelta(days=(target - today.weekday()) % 7)


class _FirstLook:
    """A cheap first look: every pattern of a finder needs one of its words (Latin ones at the
    start of a word: "one" is not in "phone") or one of its digit shapes; text with none of them
    (most turns, order numbers included) skips the finder's dozen regexes.

    Only whether something matches matters, so the look is free to be split and factored for
    speed without changing what it lets through: digit shapes start with ``\\d`` and Chinese
    words with an uncased character, so the regex engine scans for those first characters in C;
    Latin words are one prefix tree behind a single word-edge check (an alternation of 40 words
    tried one by one at every word start cost 2.5 µs per turn, the tree under 1 µs).

    ASCII text (most English turns) can hold no Chinese word, and its case folds with ``lower()``
    exactly as ``re.I`` folds it, so it gets one look, digits and words together, on its lower
    case without ``re.I``: a case-blind literal defeats the engine's first-character test, which
    made the two looks cost twice as much. Latin shapes are therefore written in lower case.
    """

    def __init__(
        self, words: Iterable[str], digit_tails: Iterable[str] = (), latin_shapes: Iterable[str] = (),
        cjk_shapes: Iterable[str] = (),
    ) -> None:
        unique = sorted({w for w in words if w})
        if not all(w[0].isalpha() for w in [*(w for w in unique if w.isascii()), *latin_shapes]):
            raise ValueError("Latin words and shapes start with a letter: the look needs one to run")
        tails = "|".join(digit_tails)
        cjk = "|".join([*(re.escape(w) for w in unique if not w.isascii()), *cjk_shapes])
        tree = _prefix_tree([w.lower() for w in unique if w.isascii()])  # re.I: case is moot
        latin = "|".join([*latin_shapes, *([tree] if tree else [])])
        digits = rf"\d(?:{tails})" if tails else ""
        latin_words = rf"\b(?:{latin})" if latin else ""
        self._ascii = re.compile("|".join(p for p in (digits, latin_words) if p) or "(?!)")
        self._uncased = re.compile("|".join(p for p in (digits, cjk) if p) or "(?!)", re.I)
        self._latin = re.compile(latin_words, re.I) if latin_words else None

    def search(self, text: str) -> re.Match[str] | None:
        """A match of any of the looks, or None when the finder cannot find anything.

        Other text is looked at for digit shapes and Chinese words together (neither has a case),
        then for Latin words only if it holds a Latin letter, which each of them needs."""
        if text.isascii():
            return self._ascii.search(text.lower())
        match = self._uncased.search(text)
        if match is None and self._latin is not None and may_hold_latin(text):
            match = self._latin.search(text)
        return match


def _prefix_tree(words: list[str]) -> str:
    """An alternation of ``words`` factored on shared prefixes ("mid(?:day|night)"): it matches at
    the same places as the plain alternation, but a failing word start costs one test per letter."""
    if not words:
        return ""
    if "" in words:
        rest = _prefix_tree([w for w in words if w])
        return f"(?:{rest})?" if rest else ""
    branches: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        branches.setdefault(word[0], []).append(word[1:])
    parts = [re.escape(first) + _prefix_tree(rests) for first, rests in branches.items()]
    return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"


_DATE_HINT = _FirstLook([*_CN_RELATIVE_DAYS, *_EN_RELATIVE_DAYS, *_EN_WEEKDAYS, *_MONTHS, "day"],
                        digit_tails=[r"\s?[-/.年]\s?\d"],           # 2024-05-01, 2024年5月1日, 5/1
                        # what each Chinese pattern needs, not a word of it: "上周", "这个月", "每天" pass no more
                        cjk_shapes=[rf"月\s?(?:\d|{_CN_NUM_CHAR})",
                                    rf"(?:{_CN_DAY})\s?(?:{alternation([*_CN_AFTER, *_CN_BEFORE])})",
                                    rf"(?:{_CN_WEEK_WORDS})(?:{_CN_WEEKDAY_NAMES})"])


def find_dates(text: str, now: datetime) -> list[Found]:
    """Every date in ``text`` as an ISO string, resolved against the local date of ``now``."""
    return possible(read_dates(text, now))


def read_dates(text: str, now: datetime) -> list[Found]:
    """``find_dates`` with the impossible dates too, their value an ``Impossible``."""
    if _DATE_HINT.search(text) is None:
        return []
    today = now.date()
    found = _written_dates(text, today)
    found += _cn_relative_dates(text, today)
    found += _en_relative_dates(text, today)
    found += _en_month_dates(text, today)
    return longest_first(found)


def _add(found: list[Found], match: re.Match[str], value: date | str | Impossible | None) -> None:
    """Keep a match whose value could be worked out (an ISO date, an "HH:MM" time) or is
    ``Impossible``; None (no reading at all) keeps nothing."""
    if value is None:
        return
    if isinstance(value, date):
        value = value.isoformat()
    found.append(Found(match.start(), match.end(), value))


def possible(found: list[Found]) -> list[Found]:
    """The found values that are dates or times, without the impossible ones."""
    return [f for f in found if not isinstance(f.value, Impossible)]


def _written_dates(text: str, today: date) -> list[Found]:
    """Dates written with numbers: "2026-05-01", "2026年5月1日", "12月3日", "十二月三号", "12/3"."""
    found: list[Found] = []
    for m in _ISO.finditer(text):
        _add(found, m, _safe_date(int(m[1]), int(m[2]), int(m[3])))
    for m in _CN_MONTH_DAY.finditer(text):
        month, day = _small_int(m[1]), _small_int(m[2])
        _add(found, m, _closest_year(today, month, day) if month is not None and day is not None else None)
    for m in _SLASH.finditer(text):
        month, day = int(m[1]), int(m[2])
        if month > 12 or not 1 <= day <= 31:
            continue  # "30/2", "5/35": a ratio or a score, no date meant
        if m[3]:
            year = int(m[3]) if len(m[3]) == 4 else 2000 + int(m[3])
            _add(found, m, _safe_date(year, month, day))
        else:
            _add(found, m, _closest_year(today, month, day))
    return found


def _cn_relative_dates(text: str, today: date) -> list[Found]:
    """"明天", "下周五", "三天后"."""
    found: list[Found] = []
    for m in _CN_RELATIVE.finditer(text):
        _add(found, m, today + timedelta(days=_CN_RELATIVE_DAYS[m.group()]))
    for m in _CN_WEEKDAY.finditer(text):
        _add(found, m, _weekday(today, _CN_WEEKDAYS[m[2]], _CN_WHICH.get(m[1] or "", "")))
    for m in _CN_IN_DAYS.finditer(text):
        days = _small_int(m[1])
        if days is not None:
            _add(found, m, today + timedelta(days=-days if m[2] in _CN_BEFORE else days))
    return found


def _en_relative_dates(text: str, today: date) -> list[Found]:
    """"tomorrow", "next friday", "in 3 days", "2 days ago"."""
    found: list[Found] = []
    for m in _EN_RELATIVE.finditer(text):
        _add(found, m, today + timedelta(days=_EN_RELATIVE_DAYS[" ".join(case_blind(m.group()).split())]))
    for m in _EN_WEEKDAY.finditer(text):
        which = case_blind(m[1] or "")
        _add(found, m, _weekday(today, _EN_WEEKDAYS[case_blind(m[2])], which if which != "coming" else ""))
    for m in _EN_IN_DAYS.finditer(text):
        days = int(m[1] or m[2])
        _add(found, m, today + timedelta(days=-days if case_blind(m[3] or "") == "ago" else days))
    return found


def _en_month_dates(text: str, today: date) -> list[Found]:
    """"Dec 3rd", "December 3, 2026", "3 of December"."""
    found: list[Found] = []
    for m in _EN_MONTH_DAY.finditer(text):
        _add(found, m, _month_day(today, m[1], int(m[2]), m[3]))
    for m in _EN_DAY_MONTH.finditer(text):
        _add(found, m, _month_day(today, m[2], int(m[1]), m[3]))
    return found


def _month_day(today: date, month_name: str, day: int, year: str | None) -> date | Impossible:
    month = _MONTHS[case_blind(month_name)[:3]]
    return _safe_date(int(year), month, day) if year else _closest_year(today, month, day)


# ---------------------------------------------------------------- times

_PM_PERIODS = frozenset(words("pm_periods"))
_AM_PERIODS = frozenset(words("am_periods"))
_LATE_NIGHT_PERIODS = frozenset(words("late_night_periods"))   # hours after 6 are the evening's
_MIDDAY_PERIODS = frozenset(words("midday_periods"))           # hours before 6 are the afternoon's
_CN_HALF, _CN_QUARTER = alternation(words("half")), alternation(words("quarter"))
_CN_HOUR_MARKS = alternation(words("hour_marks"))
_CN_MINUTE_MARKS = alternation(words("minute_marks"))
_CN_NOON_WORDS = words("noon_words")
_CN_MIDNIGHT_WORDS = words("midnight_words")
_CN_MIDDAY = alternation(words("midday_periods"))
_WEEK_WORD_ENDS = "".join(dict.fromkeys(w[-1] for w in words("week_words")))
_CN_PERIOD = alternation(w for w in words("day_periods") if has_cjk(w))
_CN_TIME = re.compile(   # the hour never starts inside a weekday: "下周三三点" is Wednesday, 15:00
    rf"({_CN_PERIOD})?\s?(?<![{_WEEK_WORD_ENDS}])({_CN_OR_DIGITS})\s?(?:{_CN_HOUR_MARKS})"
    rf"(?:({_CN_HALF})|([一三])(?:{_CN_QUARTER})|({_CN_OR_DIGITS})\s?(?:{_CN_MINUTE_MARKS})|(\d{{2}}|{_CN_NUM_CHAR}{{2,3}}))?"
)
_CN_NOON = re.compile(rf"{alternation(_CN_NOON_WORDS)}|(?:{_CN_MIDDAY})(?!\s?(?:\d|{_CN_NUM_CHAR}))"
                      rf"|{alternation(_CN_MIDNIGHT_WORDS)}")
_CLOCK = re.compile(
    rf"({_CN_PERIOD})?\s?(?<![\d:])(\d{{1,2}})\s?[:：]\s?(\d\d)(?![\d:])"
    r"(?:\s*([ap])\.?m\.?(?![A-Za-z]))?",
    re.I,
)
# Clock hours written as words are the first twelve English number words.
_EN_HOUR_WORDS = {word: value for word, value in EN_UNITS.items() if 1 <= value <= 12}
_EN_HOUR = r"(\d{1,2}|" + "|".join(_EN_HOUR_WORDS) + ")"
_EN_PART = r"(?:\s+(?:in\s+the\s+|this\s+|at\s+)?(morning|afternoon|evening|night)|\s+(tonight))?"
_EN_AMPM = re.compile(rf"\b{_EN_HOUR}(?::(\d\d))?\s*([ap])\.?m\b\.?", re.I)
_EN_AT = re.compile(
    rf"\bat\s+{_EN_HOUR}(?::(\d\d))?(\s*o'?clock)?(?:\s*([ap])\.?m\b\.?)?{_EN_PART}\b", re.I
)
_EN_OCLOCK = re.compile(rf"\b{_EN_HOUR}\s*o'?clock{_EN_PART}\b", re.I)
_EN_PAST = re.compile(rf"\b(half|quarter)\s+(past|to)\s+{_EN_HOUR}{_EN_PART}\b", re.I)
_EN_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)


_MIDNIGHT_PERIODS = _AM_PERIODS | frozenset(words("midnight_periods"))


def _clock(hour: int, minute: int, period: str | None, *, literal: bool = False) -> str | Impossible:
    """Apply a day period to a 12-hour reading (the module docstring says how), or say which
    part is impossible. ``literal``: a 24-hour clock ("03:30"), which no period changes."""
    period = case_blind(period or "")
    if not 0 <= minute <= 59:
        return Impossible("minute")
    if not period and not literal and 1 <= hour <= 6:
        hour += 12  # "三点", "at 3", "half past two": office hours, the afternoon
    elif period in _PM_PERIODS and hour < 12:
        hour += 12
    elif hour == 12 and period in _MIDNIGHT_PERIODS:
        hour = 0  # "晚上12点", "12 at night", "上午12点"... are midnight
    elif period in _LATE_NIGHT_PERIODS:
        hour = hour + 12 if 6 <= hour < 12 else hour % 12
    elif period in _MIDDAY_PERIODS and hour < 6:
        hour += 12
    if not 0 <= hour <= 23:
        return Impossible("hour")
    return f"{hour:02d}:{minute:02d}"


def _unless_bare(value: str | Impossible, bare: bool) -> str | Impossible | None:
    """An impossible hour said bare ("25点", "at 25") may be points or a count: no time at all.
    One with minutes, a period, am/pm or o'clock is unmistakably a time, and is reported."""
    return None if bare and isinstance(value, Impossible) else value


_BARE_HOUR_NEXT = frozenset("钟整到至前后左右见的开再去来以之吧了啊呀呢吗和或，。,.!?！？ "
                            "在出取送接起回走碰集准能可行方也就还过")    # "明天10点在上海取车", "三点出发"
_LITTLE_BEFORE = frozenset("快慢多少有好早晚大小差")


def _bare_hour_is_time(text: str, match: re.Match[str]) -> bool:
    """A bare "三点" with no period and no minutes is a time only where a time can stand.

    "三点钟", "三点到", "三点在大会议室", "三点。" and "三点" alone are times; "三点建议" (three
    points) and "快一点" (a little faster) are not.
    """
    following = text[match.end() : match.end() + 1]
    if following and following not in _BARE_HOUR_NEXT and is_cjk_char(following):
        return False
    before = text[match.start() - 1 : match.start()] if match.start() else ""
    return not (match[2] == "一" and before in _LITTLE_BEFORE and before != "")


def _en_hour(text: str) -> int:
    return int(text) if text.isdigit() else _EN_HOUR_WORDS[case_blind(text)]


_CN_HOUR_MARK = rf"\s?(?:{_CN_HOUR_MARKS})"
_TIME_HINT = _FirstLook([*_CN_NOON_WORDS, *_MIDDAY_PERIODS, *_CN_MIDNIGHT_WORDS, *_EN_HOUR_WORDS,
                         "noon", "midday", "midnight", "half", "quarter", "o'clock", "oclock",
                         *relative_times.WORDS],
                        digit_tails=[r"\s?[:：]", r"\s*[ap]\.?m", _CN_HOUR_MARK],   # 15:30, 3pm, 3点
                        latin_shapes=[r"at\s+\d", *relative_times.LATIN_SHAPES],   # at 3, in 5 min
                        # a Chinese hour is a numeral before 点/时 (a period before it is optional)
                        cjk_shapes=[n + _CN_HOUR_MARK for n in _CN_NUM_CHAR.strip("[]")])


def find_times(text: str, now: datetime) -> list[Found]:
    """Every time of day in ``text`` as "HH:MM" (24-hour); "in two hours" counts from ``now``."""
    return possible(read_times(text, now))


def read_times(text: str, now: datetime) -> list[Found]:
    """``find_times`` with the impossible times too, their value an ``Impossible``."""
    if _TIME_HINT.search(text) is None:
        return []
    found = _cn_times(text)
    found += relative_times.find_relative_times(text, now)
    for m in _CLOCK.finditer(text):
        period = m[4] and f"{case_blind(m[4])}m"
        literal = len(m[2]) == 2 and m[2].startswith("0")   # "03:30" is a 24-hour clock
        _add(found, m, _clock(int(m[2]), int(m[3]), period or m[1], literal=literal))
    found += _en_times(text)
    return longest_first(found)


def _cn_times(text: str) -> list[Found]:
    """"下午三点半", "三点一刻", "15点20分", "三点" where a time can stand, "中午", "午夜"."""
    found: list[Found] = []
    for m in _CN_TIME.finditer(text):
        hour = _small_int(m[2])
        minute: int | None = 0
        if m[3]:
            minute = 30
        elif m[4]:
            minute = 15 * CN_DIGITS[m[4]]
        elif m[5] or m[6]:
            minute = _small_int(m[5] or m[6])
        if hour is None or minute is None:
            continue
        bare = not (m[1] or m[3] or m[4] or m[5] or m[6])
        if bare and not _bare_hour_is_time(text, m):
            continue
        _add(found, m, _unless_bare(_clock(hour, minute, m[1]), bare))
    for m in _CN_NOON.finditer(text):
        _add(found, m, "00:00" if m.group() in _CN_MIDNIGHT_WORDS else "12:00")
    return found


def _en_times(text: str) -> list[Found]:
    """"3pm", "at 3", "at one o'clock", "half past four", "noon"; not "at one point"."""
    found: list[Found] = []
    for m in _EN_AMPM.finditer(text):
        _add(found, m, _clock(_en_hour(m[1]), int(m[2] or 0), f"{case_blind(m[3])}m"))
    for m in _EN_AT.finditer(text):
        hour_text, minutes, oclock, ampm, part, tonight = m.groups()
        if not hour_text.isdigit() and not (oclock or ampm or part or tonight):
            continue  # "at one point" is not a time; "at one o'clock" is
        period = f"{case_blind(ampm)}m" if ampm else (part or tonight)
        value = _clock(_en_hour(hour_text), int(minutes or 0), period)
        _add(found, m, _unless_bare(value, not (minutes or oclock or period)))
    for m in _EN_OCLOCK.finditer(text):
        _add(found, m, _clock(_en_hour(m[1]), 0, m[2] or m[3]))
    for m in _EN_PAST.finditer(text):
        hour = _en_hour(m[3])
        minute = 30 if case_blind(m[1]) == "half" else 15
        if case_blind(m[2]) == "to":
            hour, minute = (hour - 1) % 24, 60 - minute
        _add(found, m, _clock(hour, minute, m[4] or m[5]))
    for m in _EN_NOON.finditer(text):
        _add(found, m, "00:00" if case_blind(m.group()) == "midnight" else "12:00")
    return found
