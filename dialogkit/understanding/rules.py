"""Rule-based understanding: an utterance -> ``Interpretation`` (language, mentions, intents, cues).

This is what offline bots and tests run, and what validates every value an LLM proposes, so it
is built for speed: every regex, alternation and example index is compiled once in
``__init__``; a short utterance costs a fraction of a millisecond. Input longer than
``strings.limits.MAX_UNDERSTOOD_CHARS`` is read up to that cap.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from dialogkit.model.interpretation import Interpretation, Mention, RejectedValue
from dialogkit.spec.schema import BotFile
from dialogkit.understanding.builtins import ALWAYS_TRACKED, BUILTIN_FINDERS
from dialogkit.understanding.cues import detect_cues
from dialogkit.understanding.entities import EntityExtractor
from dialogkit.understanding.intents import IntentScorer, example_reader
from dialogkit.understanding.language import detect_language, fold


class RuleUnderstanding:
    """Regex + synonym dictionaries + keyword/example similarity, Chinese and English alike."""

    def __init__(self, spec: BotFile, *, now: Callable[[], datetime] | None = None) -> None:
        self.spec = spec
        self.now: Callable[[], datetime] = now or datetime.now
        self.entities = EntityExtractor(spec)
        used = {s.entity for flow in spec.flows.values() for s in flow.slots if s.entity}
        # Built-ins only when a slot needs them or entity memory wants them: numbers are
        # everywhere in text and would flood memory if every "2" became an entity.
        builtins = [t for t in BUILTIN_FINDERS if t in used or t in ALWAYS_TRACKED]
        self.tracked_types: tuple[str, ...] = (*self.entities.custom, *builtins)
        # Trigger examples are read like utterances, so that their mentions and the user's are
        # compared by type, not by wording (the clock only places dates, which are masked anyway).
        read = example_reader(self.entities, self.tracked_types, self.now)
        self.intents = IntentScorer(spec, self.entities, read)

    def interpret(self, text: str, current_language: str) -> Interpretation:
        """The whole reading of one user turn."""
        folded = fold(text)
        rejected: list[RejectedValue] = []
        mentions = self.entities.resolve_overlaps(
            self.entities.find(text, folded, self.tracked_types, self.now, rejected)
        )
        return Interpretation(
            text=text,
            language=detect_language(text, current_language),
            mentions=mentions,
            intents=self.intents.score(folded, mentions),
            cues=detect_cues(folded),
            source="rules",
            rejected=_unclaimed(rejected, mentions) if rejected else rejected,
        )

    def extract(self, text: str, types: Collection[str] | None = None) -> list[Mention]:
        """Every mention of ``types`` (default: every declared and built-in type), overlaps kept.

        Used to fill a specific slot: the slot's own type must be found even where another type
        claims the same span in ``interpret``. Unknown type names raise ``ValueError``.
        """
        wanted = list(types) if types is not None else [*self.entities.custom, *BUILTIN_FINDERS]
        return self.entities.find(text, fold(text), wanted, self.now)

    def parse_value(self, type_name: str, text: str) -> Any | None:
        """The value of ``type_name`` first found in ``text``, or None."""
        found = self.extract(text, [type_name])
        return found[0].value if found else None


def _unclaimed(rejected: list[RejectedValue], mentions: list[Mention]) -> list[RejectedValue]:
    """Impossible dates and times that no mention covers: a declared type may read "25:00"."""
    return [r for r in rejected if not any(m.start < r.end and r.start < m.end for m in mentions)]
