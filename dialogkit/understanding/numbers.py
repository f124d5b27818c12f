"""The built-in ``number`` type: Arabic digits, Chinese numerals and English number words.

"150", "150$", "$150", "150 dollars", "1,500", "3.5", "3k", "一百五十", "两百", "一千五", "三万",
"十二", "零点五", "one hundred fifty" all become numbers. Values are ``int`` when integral and
``float`` otherwise, computed with ``Decimal`` so "0.1k" is exactly 100.

Every Chinese numeral counts before a measure word, the measure word being part of the span:
"两件", "十件", "退十个", "十二个", "二十件", "廿五天", "一百块", "住两晚", "三小时"; Arabic digits
too ("3件"). Bare, as a whole answer, "十" and "两" are numbers as well.

Numerals are also ordinary words, so a few guards keep noise out: "第一" and "第二个" are
ordinals (references), not numbers, and "同一个" is "the same one"; a single Chinese numeral
character counts only before a measure word, a currency, punctuation or the end ("三个" and "给我五"
yes, "三星" and "一样" no),
and not after a surname that starts a name ("张三", "我叫李四", "姓名：王五" are people);
a numeral without a digit ("十", "十万") counts only when it starts with 十 and a measure word
follows ("十件" yes, "十分满意" — very satisfied — no) or as the whole text; one that starts
with a bigger unit ("万一", "千万别忘了") only as the whole text; a lone English "one" ("that
one") only as the whole text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, Protocol, TypeVar

from dialogkit.lexicon import alternation, lexicon, lexicon_of_script
from dialogkit.strings.cjk import has_cjk, is_cjk_char


class Found(NamedTuple):
    """A value located in (folded) text: the span it came from and what it means."""

    start: int
    end: int
    value: Any


class _HasSpan(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


_Span = TypeVar("_Span", bound=_HasSpan)


def non_overlapping(items: Iterable[_Span], rank: Callable[[_Span], Any]) -> list[_Span]:
    """Greedy choice in ``rank`` order of spans that overlap nothing chosen; in text order.

    The chosen spans are disjoint, so a bisect over their sorted starts finds the only two
    neighbours that could overlap: O(n log n) even for a message full of numbers.
    """
    starts: list[int] = []
    ends: list[int] = []
    chosen: list[_Span] = []
    for item in sorted(items, key=rank):
        at = bisect.bisect_right(starts, item.start)
        if at and ends[at - 1] > item.start:
            continue
        if at < len(starts) and starts[at] < item.end:
            continue
        starts.insert(at, item.start)
        ends.insert(at, item.end)
        chosen.insert(at, item)
    return chosen


def longest_first(found: Iterable[Found]) -> list[Found]:
    """Non-overlapping spans of one type: longer first, then earlier; returned in text order."""
    return non_overlapping(found, lambda f: (f.start - f.end, f.start))


_HAN = lexicon_of_script("han")
_EN = lexicon("en")

CN_DIGITS: dict[str, int] = _HAN.values("numerals") | _HAN.values("counting_numerals") | _HAN.values("formal_numerals")
CN_SMALL_UNITS: dict[str, int] = _HAN.values("numeral_units") | _HAN.values("formal_numeral_units")
CN_BIG_UNITS: dict[str, int] = _HAN.values("numeral_big_units")
CN_TENS: dict[str, str] = _HAN.spellings("numeral_tens")
CN_EVERYDAY_DIGITS = "".join([*_HAN.values("numerals"), *_HAN.values("counting_numerals")])
"""零〇一二…九 and 两: the digits people type (not the financial ones), for character classes."""
CN_TEN = next(u for u, v in _HAN.values("numeral_units").items() if v == 10)
CN_HUNDRED = next(u for u, v in _HAN.values("numeral_units").items() if v == 100)
MAX_DIGIT_STRING = 30
CN_NUMERAL_CHARS = "".join([*CN_DIGITS, *CN_SMALL_UNITS, *CN_BIG_UNITS, *CN_TENS])
_TENS_TABLE = str.maketrans(CN_TENS)
_POINT = _HAN.words("decimal_point")[0]
_TEN_THOUSAND = 10_000

# Measure words (and money units) after which a numeral is a quantity: longer ones first, so
# that "十分钟" is ten minutes while "十分" alone is the adverb "very".
CN_COUNTERS = frozenset(_HAN.words("counters"))
CN_MEASURE_WORDS = _HAN.words("measure_words")
_MEASURE = re.compile("|".join([*CN_MEASURE_WORDS, f"[{''.join(sorted(CN_COUNTERS))}]"]))
_MEASURE_AFTER_DIGITS = re.compile(rf"\s?(?:{_MEASURE.pattern})")
# "十件" is ten items; "万一", "千万别" are words: of the numerals without a digit only ten leads.
_DIGITLESS_LEAD = frozenset(u for u, v in CN_SMALL_UNITS.items() if v == 10)
_VERY = frozenset(_HAN.words("very"))   # "十分满意": very satisfied, no ten of anything

_CURRENCY_PREFIX = frozenset("$¥€£")
_ARABIC = re.compile(r"(?<![\d.A-Za-z_])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)")
_MULTIPLIERS: dict[str, int] = _EN.values("multipliers") | _HAN.values("multipliers")
_MULTIPLIER = re.compile(
    rf"\s?({alternation(w for w in _EN.values('multipliers') if len(w) == 1)})(?![A-Za-z])"
    rf"|([{''.join(_HAN.values('multipliers'))}])"
    rf"|\s?({alternation(w for w in _EN.values('multipliers') if len(w) > 1)})\b", re.I)
_CN_UNIT = re.compile(alternation(_HAN.words("currency_units")))
_UNIT = re.compile(rf"\s?(?:{alternation(_EN.words('currency_units'))})\b|{_CN_UNIT.pattern}|\$", re.I)
_CN_NUMERAL = re.compile(f"[{CN_NUMERAL_CHARS}]+(?:{re.escape(_POINT)}[{''.join(_HAN.values('numerals'))}]+)?")

EN_UNITS: dict[str, int] = _EN.values("numerals")
EN_SCALES: dict[str, int] = _EN.values("numeral_scales")
_EN_WORD = "|".join(sorted([*EN_UNITS, *EN_SCALES], key=len, reverse=True))
_EN_NUMBER = re.compile(
    rf"\b(?:{_EN_WORD})(?:(?:[\s-]+|[\s-]+and[\s-]+)(?:{_EN_WORD}))*\b"
    rf"(?:\s+point(?:\s+(?:{'|'.join(w for w, v in EN_UNITS.items() if v < 10)}))+\b)?",
    re.I,
)


def as_number(value: Decimal) -> int | float:
    """int when integral ("150.0" -> 150), float otherwise."""
    return int(value) if value == value.to_integral_value() else float(value)


def parse_cn_integer(text: str) -> int | None:
    """A Chinese integer numeral -> int; None when it is not one.

    Handles units (一百五十, 三万, 一亿两千万), the spoken abbreviation where a trailing digit
    takes the next lower unit (一千五 = 1500, 两百五 = 250, 三万五 = 35000, but 一百零五 = 105) and
    digit-by-digit strings without units (一二三四五 = 12345, 二零二六 = 2026).
    """
    if not text or any(ch not in CN_NUMERAL_CHARS for ch in text):
        return None
    text = text.translate(_TENS_TABLE)
    if not any(ch in CN_SMALL_UNITS or ch in CN_BIG_UNITS for ch in text):
        if len(text) > MAX_DIGIT_STRING:
            return None  # a wall of 一一一… is not a number anyone typed
        return int("".join(str(CN_DIGITS[ch]) for ch in text))
    total = wan = section = 0
    digit: int | None = None
    last_unit = 0
    zero_since_unit = False
    for ch in text:
        if ch in CN_DIGITS:
            if digit is not None and CN_DIGITS[ch] != 0 and not zero_since_unit:
                return None  # two digits in a row inside a unit numeral ("一二百") is not a number
            zero_since_unit = zero_since_unit or CN_DIGITS[ch] == 0
            digit = CN_DIGITS[ch] if CN_DIGITS[ch] else digit
        elif ch in CN_SMALL_UNITS:
            section += (1 if digit is None else digit) * CN_SMALL_UNITS[ch]
            digit, last_unit, zero_since_unit = None, CN_SMALL_UNITS[ch], False
        elif CN_BIG_UNITS[ch] == _TEN_THOUSAND:
            wan = (section + (digit or 0)) * _TEN_THOUSAND if (section or digit) else _TEN_THOUSAND
            section, digit, last_unit, zero_since_unit = 0, None, 10_000, False
        else:  # 亿, a hundred million
            total = (total + wan + section + (digit or 0)) * 100_000_000
            wan = section = 0
            digit, last_unit, zero_since_unit = None, 100_000_000, False
    if digit is not None:
        abbreviated = last_unit >= 100 and not zero_since_unit and text[-1] in CN_DIGITS
        section += digit * (last_unit // 10) if abbreviated else digit
    return total + wan + section


def parse_cn_number(text: str) -> Decimal | None:
    """A Chinese numeral, possibly with a decimal part ("零点五", "三点一四")."""
    whole, _, fraction = text.partition(_POINT)
    integer = parse_cn_integer(whole)
    if integer is None:
        return None
    if not fraction:
        return Decimal(integer)
    digits = "".join(str(CN_DIGITS[ch]) for ch in fraction if ch in CN_DIGITS)
    return Decimal(f"{integer}.{digits}") if len(digits) == len(fraction) else None


def parse_en_number(text: str) -> Decimal | None:
    """English number words ("one hundred and fifty", "twenty-one", "three point five")."""
    words = [w for w in re.split(r"[\s-]+", text.lower()) if w and w != "and"]
    if "point" in words:
        at = words.index("point")
        whole = parse_en_number(" ".join(words[:at])) if at else Decimal(0)
        digits = "".join(str(EN_UNITS[w]) for w in words[at + 1 :] if EN_UNITS.get(w, 10) < 10)
        if whole is None or not digits:
            return None
        return Decimal(f"{whole}.{digits}")
    total = current = 0
    for word in words:
        if word in EN_UNITS:
            current += EN_UNITS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in EN_SCALES:
            total += (current or 1) * EN_SCALES[word]
            current = 0
        else:
            return None
    return Decimal(total + current)


def _arabic_numbers(text: str) -> list[Found]:
    found: list[Found] = []
    for match in _ARABIC.finditer(text):
        start, end = match.span()
        try:
            value = Decimal(match.group().replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the regex only admits valid literals
            continue
        if start > 0 and text[start - 1] in _CURRENCY_PREFIX:
            start -= 1
        multiplier = _MULTIPLIER.match(text, end)
        if multiplier:
            key = next(g for g in multiplier.groups() if g).lower()
            value *= _MULTIPLIERS[key]
            end = multiplier.end()
        unit = _UNIT.match(text, end) or _MEASURE_AFTER_DIGITS.match(text, end)
        if unit:
            end = unit.end()
        found.append(Found(start, end, as_number(value)))
    return found


_NOT_A_COUNT_AFTER = frozenset(_HAN.words("ordinal_prefix") + _HAN.words("same"))


def _cn_numbers(text: str, whole_text: str) -> list[Found]:
    found: list[Found] = []
    for match in _CN_NUMERAL.finditer(text):
        start, end = match.span()
        literal = match.group()
        if start > 0 and text[start - 1] in _NOT_A_COUNT_AFTER:
            continue  # an ordinal (第一个, 第二: references, not quantities) or "同一个" (the same one)
        after = _CN_UNIT.match(text, end) or _MEASURE.match(text, end)
        if literal != whole_text and (not _numeral_is_number(literal, text, end, after)
                                      or (after is None and _ends_a_name(text, start, end))):
            continue
        value = parse_cn_number(literal)
        if value is None:
            continue
        found.append(Found(start, after.end() if after else end, as_number(value)))
    return found


def _numeral_is_number(literal: str, text: str, end: int, after: re.Match[str] | None) -> bool:
    """Whether a Chinese numeral inside a longer text is a number, not part of a word.

    ``after`` is the money unit or measure word that follows it, if any.
    """
    if not any(ch in CN_DIGITS or ch in CN_TENS for ch in literal):
        # "十件" is ten items, "十分满意" very satisfied; "千万别忘了" and "万一" are words.
        return literal[0] in _DIGITLESS_LEAD and after is not None and after.group() not in _VERY
    if (literal[0] in CN_SMALL_UNITS and literal[0] not in _DIGITLESS_LEAD) or literal[0] in CN_BIG_UNITS:
        return False  # "万一", "千万": a numeral starts with a digit or with 十
    if len(literal) == 1 and after is None:
        following = text[end : end + 1]
        return not (following and is_cjk_char(following))  # "三星", "一样", "一直" are words
    return True


_SURNAMES = frozenset(_HAN.words("surnames"))
"""Common single-character surnames: a lone numeral after one is a given name ("张三", "李四")."""
_NAME_LEADS = frozenset(_HAN.words("name_leads"))


def _ends_a_name(text: str, start: int, end: int) -> bool:
    """"张三" / "我叫李四" / "姓名：王五": a one-character numeral right after a surname that starts
    the text, a clause or follows 叫/是, with no measure word after it, is a person's name."""
    if end - start != 1 or start == 0 or text[start - 1] not in _SURNAMES:
        return False
    before = text[start - 2] if start >= 2 else ""
    return not before or not is_cjk_char(before) or before in _NAME_LEADS


def _en_numbers(text: str, whole_text: str) -> list[Found]:
    found: list[Found] = []
    for match in _EN_NUMBER.finditer(text):
        literal = match.group()
        if literal.lower() == "one" and literal.lower() != whole_text.lower():
            continue  # "that one", "the first one" are references
        value = parse_en_number(literal)
        if value is None:
            continue
        end = match.end()
        unit = _UNIT.match(text, end)
        found.append(Found(match.start(), unit.end() if unit else end, as_number(value)))
    return found


def find_numbers(text: str) -> list[Found]:
    """Every number in ``text`` (already folded), in order of position."""
    whole = text.strip()
    arabic = _arabic_numbers(text)
    words = _en_numbers(text, whole)
    if has_cjk(text):  # most English turns: no Han character, no Chinese numeral to look for
        words += _cn_numbers(text, whole)
    # "2 million": the multiplier word already belongs to the Arabic number's span.
    covered = [(f.start, f.end) for f in arabic]
    words = [w for w in words if not any(s < w.end and w.start < e for s, e in covered)]
    return longest_first(arabic + words)


def find_integers(text: str) -> list[Found]:
    """The ``integer`` type: numbers whose value is integral."""
    return integers_of(find_numbers(text))


def integers_of(numbers: list[Found]) -> list[Found]:
    """The integral ones of ``find_numbers``' result: lets a caller wanting both types read once."""
    return [f for f in numbers if isinstance(f.value, int)]
