"""Finding a bot's words (every alias and label of its values) in a text, as one regex would.

The simulator asks of every line it writes and every reply it reads which values' words it
holds. One alternation of all the words, longest first, answers that, but compiling it grows
faster than the list: with 20,000 aliases it took ten seconds before the first conversation.
Here an Aho–Corasick automaton (pyahocorasick, as understanding uses) finds which words a text
may hold, and a small alternation of those words alone, compiled once per set of words, finds
them the way the big one did: the longest word at each position, Latin words only whole (no
ASCII letter or digit on either side), Chinese words anywhere, case ignored.

A word is a candidate when its lower case is inside the text's lower case; the few letters a
case-blind regex matches beyond that (the long "ſ" for "s") are not looked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

import ahocorasick

from dialogkit.strings.cjk import has_cjk


def word_pattern(word: str) -> str:
    """``word`` as a regex: Latin words must stand alone, Chinese ones may sit anywhere."""
    escaped = re.escape(word)
    return escaped if has_cjk(word) else rf"(?<![A-Za-z0-9]){escaped}(?![A-Za-z0-9])"


@lru_cache(maxsize=4096)
def _alternation(words: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(word_pattern(w) for w in sorted(words, key=len, reverse=True)), re.IGNORECASE)


class WordFinder:
    """``finditer`` and ``search`` of the alternation of ``words``, built in linear time."""

    def __init__(self, words: Iterable[str]) -> None:
        self._automaton = ahocorasick.Automaton()
        spellings: dict[str, set[str]] = {}
        for word in words:
            if word:
                spellings.setdefault(word.lower(), set()).add(word)
        for key, written in spellings.items():
            self._automaton.add_word(key, frozenset(written))
        if spellings:
            self._automaton.make_automaton()
        self._empty = not spellings

    def _pattern(self, text: str) -> re.Pattern[str] | None:
        if self._empty:
            return None
        found = frozenset(word for _, written in self._automaton.iter(text.lower()) for word in written)
        return _alternation(found) if found else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        pattern = self._pattern(text)
        return pattern.finditer(text) if pattern is not None else iter(())

    def search(self, text: str) -> re.Match[str] | None:
        pattern = self._pattern(text)
        return pattern.search(text) if pattern is not None else None
