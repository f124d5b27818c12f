"""A bare number answering a time question is an hour: "7" to "几点开始？" / "what time?" is 07:00.

Said alone, a whole number is no time of day (it may be a count, an amount, an id), so the
understanding never reads one as a time by itself; only the question asked makes it an hour, as
"七点" is. Anything said around the number ("7 people", "7个") keeps it a number.
"""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.lexicon import words
from dialogkit.model.interpretation import Mention

_NUMBERS = frozenset({"number", "integer"})
_NUMERAL_WORDS = frozenset(w.lower() for w in (*words("numerals"), *words("numeral_units")))
_NUMERAL_CHARS = frozenset("".join(w for w in _NUMERAL_WORDS if len(w) == 1))   # 十五 is 十 and 五
_AROUND = " \t\r\n,，。.!！?？~～、"
_LAST_HOUR = 24


def bare_hour(text: str, mentions: Sequence[Mention]) -> Mention | None:
    """The hour a whole number said alone names, as a ``time`` mention ("HH:00"), or None."""
    said = text.strip(_AROUND)
    if not (said.isdigit() or set(said) <= _NUMERAL_CHARS or said.lower() in _NUMERAL_WORDS):
        return None     # "7个", "7 people": a count, not an hour
    start = text.find(said) if said else -1
    for m in mentions:
        whole = isinstance(m.value, int) or (isinstance(m.value, float) and m.value.is_integer())
        if m.type in _NUMBERS and whole and m.start == start and m.end == start + len(said):
            hour = int(m.value)
            if 0 <= hour <= _LAST_HOUR:
                return Mention(type="time", value=f"{hour % _LAST_HOUR:02d}:00", text=m.text,
                               start=m.start, end=m.end, kind="time", builtin=True)
    return None
