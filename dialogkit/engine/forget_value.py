"""'忘记时间' / 'forget the time' / '时间先不定': a request to drop one value.

The phrases are built from the bot's own slot labels and names, so the request works for any slot
of any bot, in both languages. What is dropped depends on the slot (the policy decides): a value
the active task holds is cleared and asked for again; a persisted value (session or user scope,
"忘记我的订单号" / "forget my order number") is deleted from the store. Any other slot named is no
such request, and the utterance is read as usual.
"""

from __future__ import annotations

import re

from dialogkit.engine.slot_names import SlotNames
from dialogkit.lexicon import starts, words
from dialogkit.spec.schema import BotFile
from dialogkit.text.labels import Texts

__all__ = ["ForgetValue"]

_PHRASES = words("forget_value_patterns")
"""Each with ``{names}`` where a slot's label goes: "忘记时间", "时间先不定" (left open for now)."""


class ForgetValue:
    """Finds which slots an utterance asks the bot to forget."""

    def __init__(self, spec: BotFile, texts: Texts) -> None:
        self._names = SlotNames(spec, texts)
        alternation = self._names.alternation
        self._pattern = re.compile(
            "|".join(f"(?:{p.replace('{names}', f'(?P<n{i}>{alternation})')})" for i, p in enumerate(_PHRASES)),
            re.IGNORECASE,
        ) if alternation and _PHRASES else None
        # Every request names a slot: text naming none (most turns) is ruled out by this alone.
        named = f"{starts(self._names.ways)}(?:{alternation})"
        self._named = re.compile(named, re.IGNORECASE) if self._pattern is not None else None

    def slots_in(self, text: str) -> list[str]:
        """The slots ``text`` asks to forget, in order of mention (usually none); a word several
        slots share as label names each of them."""
        if self._pattern is None or self._named is None or len(text) > 200 or not self._named.search(text):
            return []
        found: list[str] = []
        for match in self._pattern.finditer(text):
            said = next(g for g in match.groups() if g)
            found.extend(self._names.slots(said))
        return list(dict.fromkeys(found))
