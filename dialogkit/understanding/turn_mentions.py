"""Every mention of a type in one turn's words, each type read at most once a turn.

Filling a slot reads the turn as that slot's type even where another type claimed the words
("damaged": an issue type, and a return reason), and a value's labels count as its aliases. Many
steps of one turn ask this of the same words (the slot offer, the correction checks, the doubt
checks), so the reading keeps a table: a type is looked for the first time it is asked about,
and the answer is kept for the rest of the turn.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from dialogkit.model.interpretation import Mention
from dialogkit.understanding.entities import EntityExtractor

__all__ = ["TurnMentions"]

_NUMERIC = ("number", "integer")     # one numeral scan reads both (``EntityExtractor.find``)


class TurnMentions:
    """``EntityExtractor.find(text, types, labels=True)`` of one turn, kept per type.

    The extractor reads each type on its own (number and integer share one numeral scan, read
    together here too), and orders the mentions by start, then by type: the mentions of several
    types, read apart and merged in that order, are the ones it gives for them read together.
    """

    __slots__ = ("_extractor", "_folded", "_found", "_now", "_text")

    def __init__(self, extractor: EntityExtractor, text: str, folded: str, now: datetime) -> None:
        self._extractor = extractor
        self._text = text
        self._folded = folded
        self._now = now
        self._found: dict[str, list[Mention]] = {}

    def __call__(self, types: Collection[str]) -> list[Mention]:
        """Every mention of ``types``, in text order, overlaps kept; unknown types raise ``ValueError``."""
        mentions: list[Mention] = []
        for type_name in types:
            found = self._found.get(type_name)
            mentions += found if found is not None else self._read(type_name)
        return self._extractor.in_text_order(mentions)

    def _read(self, type_name: str) -> list[Mention]:
        if type_name not in _NUMERIC:
            found = self._found[type_name] = self._find((type_name,))
            return found
        both = self._find(_NUMERIC)
        for name in _NUMERIC:
            self._found[name] = [m for m in both if m.type == name]
        return self._found[type_name]

    def _find(self, types: Collection[str]) -> list[Mention]:
        return self._extractor.find(self._text, self._folded, types, self._now, labels=True)
