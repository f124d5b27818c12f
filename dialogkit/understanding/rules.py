"""Rule-based understanding: an utterance -> ``Interpretation`` (language, mentions, intents, cues).

This is what offline bots and tests run, and what validates every value an LLM proposes, so it
is built for speed: every regex, alternation and example index is compiled once in
``__init__``; a short utterance costs a fraction of a millisecond. Input longer than
``strings.limits.MAX_UNDERSTOOD_CHARS`` is read up to that cap.

Dates and times are read relative to ``now``, an aware datetime in the bot's time zone
(``bot.timezone``, docs/lifecycle.md "Clock and timezone"): the pipeline passes the turn's time
from the bot's clock, so a fake clock decides what "明天" and "next Friday" mean. A call given no
``now`` reads ``clock`` (the bot's, given when it is built; else the real time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from dialogkit.model.interpretation import Instead, IntentScore, Interpretation, Mention, RejectedValue
from dialogkit.spec.schema import BotFile
from dialogkit.understanding.builtins import ALWAYS_TRACKED, BUILTIN_FINDERS
from dialogkit.understanding.choices import determines
from dialogkit.understanding.cues import detect_cues
from dialogkit.understanding.entities import EntityExtractor
from dialogkit.understanding.instead import request_after_cancel
from dialogkit.understanding.intents import IntentScorer, example_reader
from dialogkit.understanding.language import detect_language, fold
from dialogkit.understanding.stand_ins import StandIn, with_stand_ins
from dialogkit.understanding.turn_mentions import TurnMentions
from dialogkit.understanding.turn_words import TurnWords


class RuleUnderstanding:
    """Regex + synonym dictionaries + keyword/example similarity, Chinese and English alike."""

    def __init__(self, spec: BotFile, *, clock: Callable[[], float] = time.time) -> None:
        self.spec = spec
        self.clock = clock                      # seconds since the epoch, like the bot's clock
        self.zone = ZoneInfo(spec.bot.timezone)
        self.entities = EntityExtractor(spec)
        used = {s.entity for flow in spec.flows.values() for s in flow.slots if s.entity}
        # Built-ins only when a slot needs them or entity memory wants them: numbers are
        # everywhere in text and would flood memory if every "2" became an entity.
        builtins = [t for t in BUILTIN_FINDERS if t in used or t in ALWAYS_TRACKED]
        self.tracked_types: tuple[str, ...] = (*self.entities.custom, *builtins)
        # Trigger examples are read like utterances, so that their mentions and the user's are
        # compared by type, not by wording (the clock only places dates, which are masked anyway).
        read = example_reader(self.entities, self.tracked_types, self.now())
        self.intents = IntentScorer(spec, self.entities, read)

    def local_time(self, seconds: float) -> datetime:
        """The bot's local time at ``seconds`` since the epoch: what a turn at that time reads with."""
        return datetime.fromtimestamp(seconds, self.zone)

    def now(self) -> datetime:
        """The bot's local time now, by its clock."""
        return datetime.fromtimestamp(self.clock(), self.zone)

    def interpret(self, text: str, current_language: str, *, now: datetime | None = None) -> Interpretation:
        """The whole reading of one user turn; relative dates and times count from ``now``."""
        folded = fold(text)
        lowered = folded.lower()                # keywords, examples and cues all read it
        now = self.now() if now is None else now
        mentions, rejected = self._mentions(text, folded, now)
        cues = detect_cues(folded, lowered)
        return Interpretation(
            text=text,
            language=detect_language(text, current_language),
            mentions=mentions,
            intents=self.intents.score(folded, mentions, lowered),
            cues=cues,
            source="rules",
            rejected=rejected,
            instead=self._instead(text, now) if "cancel" in cues else None,
            reader=TurnMentions(self.entities, text, folded, now),
            words=TurnWords(text, folded),
        )

    def _mentions(self, text: str, folded: str, now: datetime) -> tuple[list[Mention], list[RejectedValue]]:
        """The mentions of one reading, overlaps resolved; and the impossible dates and times no mention covers."""
        rejected: list[RejectedValue] = []
        mentions = self.entities.resolve_overlaps(self.entities.find(text, folded, self.tracked_types, now, rejected))
        if rejected:
            mentions = _outside(rejected, mentions)
        mentions = [m for m in mentions if not determines(m.text, text, m.end)]   # the "any" of "any cheap one"
        return mentions, _unclaimed(rejected, mentions) if rejected else rejected

    def _instead(self, text: str, now: datetime) -> Instead | None:
        """The request after a cancel ("那算了，帮我推荐一个餐厅"), its intents read as if said alone.
        Read only for a turn that cancels: most turns pay nothing for it."""
        words = request_after_cancel(text)
        if words is None:
            return None
        folded = fold(words)
        mentions, _ = self._mentions(words, folded, now)
        return Instead(words, tuple(self.intents.score(folded, mentions, folded.lower())))

    def intents_with(self, reading: Interpretation, stand_ins: Sequence[StandIn]) -> list[IntentScore]:
        """The intents of the turn read in ``reading`` with ``stand_ins`` in place of some of its
        words (a reference's referent): scored again from the reading made, nothing read again."""
        text, mentions = with_stand_ins(reading, stand_ins)
        folded = fold(text)
        return self.intents.score(folded, mentions, folded.lower())

    def extract(self, text: str, types: Collection[str] | None = None, *,
                now: datetime | None = None) -> list[Mention]:
        """Every mention of ``types`` (default: every declared and built-in type), overlaps kept.

        Used to fill a specific slot: the slot's own type must be found even where another type
        claims the same span in ``interpret``, and a value's label names it as its aliases do.
        Unknown type names raise ``ValueError``. This reads words other than the turn's (history,
        a trigger's example); the turn's own are read so by its interpretation's ``read_as``,
        each type once a turn.
        """
        wanted = list(types) if types is not None else [*self.entities.custom, *BUILTIN_FINDERS]
        return self.entities.find(text, fold(text), wanted, self.now() if now is None else now, labels=True)

    def parse_value(self, type_name: str, text: str, *, now: datetime | None = None) -> Any | None:
        """The value of ``type_name`` first found in ``text``, or None."""
        found = self.extract(text, [type_name], now=now)
        return found[0].value if found else None


_PARTS = frozenset({"number", "integer"})


def _outside(rejected: list[RejectedValue], mentions: list[Mention]) -> list[Mention]:
    """The numbers of an impossible date or time ("2月30日", "25:00") are no values of their own:
    the 2 and the 30 are not a party size, so the reply can say the date does not exist."""
    return [m for m in mentions
            if not (m.type in _PARTS and any(r.start <= m.start and m.end <= r.end for r in rejected))]


def _unclaimed(rejected: list[RejectedValue], mentions: list[Mention]) -> list[RejectedValue]:
    """Impossible dates and times that no mention covers: a declared type may read "25:00"."""
    return [r for r in rejected if not any(m.start < r.end and r.start < m.end for m in mentions)]
