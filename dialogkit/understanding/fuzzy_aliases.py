"""Latin aliases read through a typo: "lattee" is latte, "iphnoe" is iPhone (``fuzzy: N`` on a type).

Only a type that asks for it pays for it: a word the exact reading left unclaimed is compared
with the type's Latin aliases of ``MIN_LETTERS`` letters or more, by rapidfuzz, counting an
insertion, a deletion, a substitution or two neighbours swapped as one edit (optimal string
alignment). A word within ``N`` edits of one alias is that alias's value; within reach of two
values it is none (the bot could not say which). Short aliases are left out: one edit turns
"cat" into "car". Chinese aliases too: a typo there is another character, not a near spelling.

A typo'd value is never written silently: the engine asks about it as about any doubted value
(``engine.doubtful_values``).
"""

from __future__ import annotations

import re

from rapidfuzz import process
from rapidfuzz.distance import OSA

from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.numbers import Found

MIN_LETTERS = 5
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")


class FuzzyAliases:
    """The Latin aliases of one type that a typo may name (alias -> canonical value)."""

    def __init__(self, canonical: dict[str, str], edits: int) -> None:
        self.edits = edits
        kept = {alias: value for alias, value in canonical.items()
                if " " not in alias and not has_cjk(alias) and sum(ch.isalpha() for ch in alias) >= MIN_LETTERS}
        self._aliases = list(kept)
        self._values = list(kept.values())

    def find(self, text: str, taken: list[Found]) -> list[Found]:
        """Words of ``text`` outside the spans ``taken`` (what the exact reading found) that are
        within the edits of an alias of exactly one value."""
        if not self._aliases:
            return []
        out: list[Found] = []
        for word in _WORD.finditer(text):
            start, end = word.span()
            if end - start < MIN_LETTERS - self.edits or any(f.start < end and start < f.end for f in taken):
                continue
            close = process.extract(word.group().lower(), self._aliases, scorer=OSA.distance,
                                    score_cutoff=self.edits, limit=None)
            values = {self._values[index] for _, _, index in close}
            if len(values) == 1:
                out.append(Found(start, end, values.pop()))
        return out
