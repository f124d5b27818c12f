"""What one simulated turn says and means: its text, the move it makes, the values it gives.

The invariants judge a reply against what the user *meant*, so every utterance carries its
intent along: which slot a bare answer is for, which value a correction replaces, which two
candidates a mention named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dialogkit.simulation.values import Said

Move = Literal[
    "trigger", "trigger_with_values", "answer", "several", "correct", "yes", "no", "cancel",
    "two_candidates", "refer", "forget", "off_topic", "bare_value", "faq", "offer",
    "list_values", "add_value", "drop_value", "roles",
]
Reference = Literal["pronoun", "demonstrative", "ordinal"]


@dataclass(frozen=True, slots=True)
class Utterance:
    text: str
    move: Move
    language: str                              # the language the simulator wrote it in
    flow: str | None = None                    # the flow a trigger names
    faq: str | None = None                     # the FAQ entry a question asks
    slot: str | None = None                    # the slot an answer or a correction is for
    fills: dict[str, Said] = field(default_factory=dict)   # slot -> value meant for it
    mentions: tuple[Said, ...] = ()            # values named without a slot (mentions, candidates)
    reference: Reference | None = None
    entity: str | None = None                  # the type of the two candidates, or of a pronoun's antecedents
    keyword_free: bool = True                  # holds no trigger keyword of any flow
    named: frozenset[str] = frozenset()        # canonical values whose aliases the text holds

    @property
    def said(self) -> tuple[Said, ...]:
        """Every value this turn names."""
        return (*self.fills.values(), *self.mentions)

    def describe(self) -> str:
        detail = f" {self.slot}" if self.slot else f" {self.flow}" if self.flow else ""
        return f"{self.move}{detail}"
