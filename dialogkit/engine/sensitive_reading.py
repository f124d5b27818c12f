"""The sensitive values a user message holds, read by the rules before anything leaves the process.

A sensitive slot is never sent to an LLM, not even on the turn its value is typed
(docs/behaviours.md). The context window masks values the session already holds; the message
being understood holds values no slot has taken yet ("note: the safe code is 7391", with no flow
started). This reads them the way the rules would fill the slot: its "label: text" for a
free-text slot, its type's mentions for a typed one, and the built-in phone and e-mail detectors
for a slot of those types (the whole match, not only the part a type parse normalised).
"""

from __future__ import annotations

import re

from dialogkit.engine.slots import SlotLayout
from dialogkit.model.interpretation import Interpretation
from dialogkit.spec.schema import BotFile
from dialogkit.strings.redaction import EMAIL, PHONE

__all__ = ["SensitiveReading"]

_DETECTORS = {"phone": PHONE, "email": EMAIL}


class SensitiveReading:
    """Built once per bot: the patterns of its sensitive slots; ``values`` is called per LLM request."""

    __slots__ = ("_detectors", "_labelled", "_types")

    def __init__(self, spec: BotFile) -> None:
        labelled: dict[str, re.Pattern[str]] = {}
        for flow in spec.flows.values():
            for slot, pattern in SlotLayout.of(flow).free_text:
                if slot.sensitive:
                    labelled.setdefault(pattern.pattern, pattern)
        self._labelled = tuple(labelled.values())
        self._types = frozenset(s.entity for f in spec.flows.values() for s in f.slots if s.sensitive and s.entity)
        self._detectors = tuple(p for t, p in _DETECTORS.items() if t in self._types)

    def __bool__(self) -> bool:
        return bool(self._labelled or self._types)

    def values(self, interp: Interpretation) -> list[str]:
        """Every text of the message a sensitive slot could take, as written and as read."""
        text = interp.text
        found: list[str] = []
        for pattern in self._labelled:
            match = pattern.search(text)
            if match and match.group(1).strip():
                found.append(match.group(1).strip())
        if self._types:
            mentions = [*interp.mentions, *interp.read_as(self._types)]
            found.extend(t for m in mentions if m.type in self._types for t in (m.text, str(m.value)))
            found.extend(match.group(0) for pattern in self._detectors for match in pattern.finditer(text))
        return [value for value in dict.fromkeys(found) if value.strip()]
