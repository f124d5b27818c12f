"""Words about a value that set nothing: a question whether the thing has it, opening its clause
("有会议室吗？", "北京饭店是否提供接机？", "does it have wifi?", "does the Golden Duck have wifi?"),
a value waived ("没健身房也行", "除了故宫", "anything except thai"), and a word that is no thing's
name though a catalogue lists it ("有没有" holds 没有, "周边还有其他的吗" holds 其他, "any other
ones?"). "哪家有…吗", "which hotels have …" and "can I have …" ask for something, and do set it.

Such a value is still mentioned (a reference may point at it), but it is no wish of the user's:
it fills no slot. A value said before the noun of what the task looks for ("有川菜馆吗",
"do you have any italian restaurants?") is a search, not a question about a thing found.
"""

from __future__ import annotations

import functools
import re

from dialogkit.lexicon import alternation, word_pattern, words
from dialogkit.understanding.cues import is_question

_HAVE_QUESTIONS = frozenset(words("have_questions"))
# Anchored: read from the clause's start only, so no reading starts anew at every character.
_HAVE_QUESTION = re.compile("^(?:" + "|".join(f"(?:{p})" for p in words("have_question_patterns")) + ")", re.IGNORECASE)
_MARKERS = words("value_head_markers")
_DETERMINERS = frozenset(words("noun_determiners")) | {"any"}
_NO_VALUE_WORDS = frozenset(w.lower() for w in (*words("no_value_words"), *words("no_words")))
_ANSWER_MARKS = re.compile(r"[\s，。,.;；!！?？]+")
_WHICH = word_pattern("which")
_SENTENCE = re.compile(r"[。.!！?？\n]")
_CLAUSE = re.compile(r"[，。,;；!！?？\n]")


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    after = re.compile(rf"\s*(?:{alternation(words('waive_after'))})", re.IGNORECASE)
    return word_pattern("waive_before"), word_pattern("waive_negations"), after


def _clause_start(text: str, start: int) -> int:
    """Where the clause holding ``text[start]`` begins. (Its end, ``_clause_end``, is read only
    for a value that is asked about: most offered values are not.)"""
    return max((m.end() for m in _CLAUSE.finditer(text, 0, start)), default=0)


def _clause_end(text: str, end: int) -> int:
    """Where the clause holding ``text[end - 1]`` ends, its closing mark included."""
    right = _CLAUSE.search(text, end)
    return right.end() if right else len(text)


def _sentence(text: str, start: int) -> int:
    """Where the sentence holding ``text[start]`` begins."""
    return max((m.end() for m in _SENTENCE.finditer(text, 0, start)), default=0)


def is_no_value(surface: str) -> bool:
    """Whether the words are a no or an "other" of the language: read as a catalogue's value (a dish
    listed as 没有 or 其他), they still say no or other, and name nothing."""
    return surface.strip().lower() in _NO_VALUE_WORDS


def names_nothing(surface: str, text: str, asked: bool) -> bool:
    """Whether a value read from ``surface`` is a no or an "other" that names nothing here: always,
    but where it is the whole answer to its own slot's question (``asked``)."""
    return is_no_value(surface) and not (asked and _ANSWER_MARKS.sub("", text).lower() == surface.strip().lower())


def sets_nothing(text: str, start: int, end: int) -> bool:
    """Whether the value at ``text[start:end]`` is asked about or waived, not wished for."""
    before, negation, after = _patterns()
    left = _clause_start(text, start)
    ahead = text[left:start]
    if before.search(ahead) is not None:
        return True
    if after.match(text, end) is not None and negation.search(ahead) is not None:     # one place first
        return True
    opening = " ".join(w for w in ahead.lower().split() if w not in _DETERMINERS)   # does it have a …
    asks = opening in _HAVE_QUESTIONS or _HAVE_QUESTION.fullmatch(opening) is not None
    if not asks:
        return False
    if _WHICH.search(text, _sentence(text, start), start):
        return False        # "这些酒店中哪家有健身房？": which of them, a search
    right = _clause_end(text, end)
    modifier = any(marker in text[end:right] for marker in _MARKERS)     # "有早餐的酒店吗", "有X这道菜的呢": a search
    return not modifier and is_question(text[left:right])
