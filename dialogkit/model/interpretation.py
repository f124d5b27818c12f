"""What understanding hands to the policy: plain data, produced by rules or an LLM alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Mention:
    """One entity found in an utterance, normalised to its canonical value."""

    type: str            # entity type name: a custom one or a built-in (number, date, ...)
    value: Any           # canonical value: synonym canonical, int/float, ISO date, "HH:MM", bool
    text: str            # the surface text as written
    start: int
    end: int
    kind: str = "other"  # person | thing | place | time | other


@dataclass(frozen=True, slots=True)
class IntentScore:
    flow: str
    score: float         # 0..1; keywords and example similarity combined


@dataclass(slots=True)
class Interpretation:
    """One user turn as understood.

    ``cues`` are the conversational signals the policy needs besides intent and entities:
    ``yes``, ``no``, ``cancel``, ``correction``, ``help``, ``forget``.
    """

    text: str
    language: str
    mentions: list[Mention] = field(default_factory=list)
    intents: list[IntentScore] = field(default_factory=list)
    cues: set[str] = field(default_factory=set)
    source: str = "rules"                      # "rules" or "llm"
    slot_values: dict[str, Any] = field(default_factory=dict)   # LLM-proposed, already validated

    @property
    def top_intent(self) -> IntentScore | None:
        return self.intents[0] if self.intents else None

    def of_type(self, type_name: str) -> list[Mention]:
        return [m for m in self.mentions if m.type == type_name]
