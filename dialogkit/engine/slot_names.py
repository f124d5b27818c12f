"""The words a bot's own file names its slots by, gathered once per bot.

A slot is named by its labels (in either language) and its name with spaces ("订单号", "order
number", "order id"); a caller may add more words of its own (an entity type's nouns). Several
slots may share a word: it names each of them. '忘记时间' (forget_value) and '价格无所谓'
(named_any) find their slot through these words, so they work for any slot of any bot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from dialogkit.spec.schema import BotFile, SlotSpec
from dialogkit.text.labels import Texts

__all__ = ["SlotNames"]


class SlotNames:
    """A way of saying (lower-cased) -> the slots so named, and one regex alternation of the ways."""

    def __init__(self, spec: BotFile, texts: Texts,
                 more: Callable[[SlotSpec], Iterable[str]] | None = None) -> None:
        ways: dict[str, list[str]] = {}
        for flow in spec.flows.values():
            for slot in flow.slots:
                said = [texts.slot_label(slot, language) for language in texts.languages]
                said += [slot.name.replace("_", " "), *(more(slot) if more is not None else ())]
                for way in (w.strip().lower() for w in said):
                    if way and slot.name not in ways.setdefault(way, []):
                        ways[way].append(slot.name)
        self.ways = ways
        self.alternation = "|".join(re.escape(w) for w in sorted(ways, key=len, reverse=True))

    def slots(self, said: str) -> list[str]:
        """The slots one way of saying names (none for a word no slot is named by)."""
        return list(self.ways.get(said.lower(), ()))
