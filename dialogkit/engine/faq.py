"""FAQ entries: questions answered in any state without starting a task.

They are matched like flow triggers (keywords anywhere in the utterance, or similarity to the
examples, in either language), with the same threshold, so an author writes them the same way.
The index is built once per bot; a bot without ``faq:`` does no work on a turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dialogkit.spec.schema import FaqSpec
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.intents import INTENT_THRESHOLD, features, similarity, word_edge

# A keyword hit counts as this sure: enough to answer, but a flow's example said nearly word for
# word still wins.
KEYWORD_SCORE = 0.8


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    examples: tuple[frozenset[str], ...]
    keywords: re.Pattern[str] | None
    words: frozenset[str]         # every example's features: words sharing none resemble no example


def _keyword_pattern(keywords: list[str]) -> re.Pattern[str] | None:
    """Keywords longest first, a Latin one standing alone where letters would join it. Each
    alternative opens with a character (``intents.word_edge`` checks the edge after it), so the
    regex engine looks in C for where one can start."""
    parts = []
    for keyword in sorted({k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True):
        parts.append(re.escape(keyword) if has_cjk(keyword)
                     else f"{word_edge(keyword)}{re.escape(keyword[1:])}(?![a-z0-9])")
    return re.compile("|".join(parts)) if parts else None


def _plain(text: str) -> str:
    return text.strip(" \t\n?？!！。.,，~～").lower()


class FaqIndex:
    """The bot's FAQ entries, ready to score an utterance."""

    def __init__(self, faq: Mapping[str, FaqSpec]) -> None:
        self.faq = dict(faq)
        self._phrases = frozenset(_plain(p) for spec in faq.values() for p in [*spec.keywords, *spec.examples])
        self._entries = tuple(
            _Entry(name, examples, _keyword_pattern(spec.keywords), frozenset().union(*examples))
            for name, spec in faq.items() for examples in [tuple(features(e) for e in spec.examples)]
        )

    def says(self, text: str) -> bool:
        """Whether ``text`` is, word for word, one of the FAQ's keywords or examples ("营业时间")."""
        return _plain(text) in self._phrases

    def names_all(self, text: str, surfaces: Iterable[str]) -> bool:
        """Whether every one of ``surfaces`` lies inside an FAQ keyword the text holds: the 5G of "is
        there 5G coverage" belongs to the keyword "5G coverage", not to a data amount of 5 GB."""
        lowered = text.lower()
        said = [m.group() for e in self._entries if e.keywords is not None for m in e.keywords.finditer(lowered)]
        wanted = [s.lower() for s in surfaces]
        return bool(said) and bool(wanted) and all(any(w in k for k in said) for w in wanted)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def match(self, text: str) -> tuple[str, float] | None:
        """The best entry for ``text`` and its score, or None below the trigger threshold."""
        said = features(text)
        lowered = text.lower()
        best: tuple[str, float] | None = None
        for entry in self._entries:
            # An example sharing no feature scores 0.0 (``similarity``): most entries share none.
            score = 0.0 if said.isdisjoint(entry.words) else max(
                (similarity(said, example) for example in entry.examples), default=0.0)
            if entry.keywords is not None and entry.keywords.search(lowered):
                score = max(score, KEYWORD_SCORE)
            if score >= INTENT_THRESHOLD and (best is None or score > best[1]):
                best = (entry.name, score)
        return best
