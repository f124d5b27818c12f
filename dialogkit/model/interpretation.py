"""What understanding hands to the policy: plain data, produced by rules or an LLM alike."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Mention:
    """One entity found in an utterance, normalised to its canonical value."""

    type: str            # entity type name: a custom one or a built-in (number, date, ...)
    value: Any           # canonical value: synonym canonical, int/float, ISO date, "HH:MM", bool
    text: str            # the surface text as written
    start: int
    end: int
    kind: str = "other"  # person | thing | place | time | other
    builtin: bool = False  # a built-in helper type (number, date, ...), not one the bot file declares
    fuzzy: bool = False    # read through a typo (``fuzzy: N`` on its type): asked about before it is written


@dataclass(frozen=True, slots=True)
class RejectedValue:
    """A value written in the form of a type but impossible: "2025-13-45", "2月30日", "25:00",
    "13:75". It fills nothing; it is reported so that the user hears why, instead of nothing."""

    type: str            # the type whose form it has: "date" or "time"
    text: str            # the surface text as written
    start: int
    end: int
    reason: str          # which part is impossible: "month", "day", "hour" or "minute"


@dataclass(frozen=True, slots=True)
class IntentScore:
    flow: str
    score: float         # 0..1; keywords and example similarity combined


@dataclass(frozen=True, slots=True)
class Instead:
    """What a turn asks for after giving up ("那算了，帮我推荐一个餐厅" / "never mind, book a table
    instead"): the words after the clause that cancels, and their intents, read as if said alone."""

    words: str
    intents: tuple[IntentScore, ...]

    @property
    def top_intent(self) -> IntentScore | None:
        return self.intents[0] if self.intents else None


MentionReader = Callable[[Collection[str]], list[Mention]]
"""Every mention of the given types in one turn's words, overlaps kept: the turn read as those types."""


class YesNo(Protocol):
    """A yes or a no the words are, as the cues read it: ``whole`` when nothing but answer words
    and fillers is said, ``correction`` when a replacement value follows the no."""

    @property
    def value(self) -> bool: ...
    @property
    def whole(self) -> bool: ...
    @property
    def correction(self) -> bool: ...


class WordsRead(Protocol):
    """What the understanding that read a turn answers of its words besides the mentions, each
    fact found the first time a step asks and kept for the rest of the turn."""

    def matches(self, pattern: re.Pattern[str]) -> tuple[re.Match[str], ...]: ...
    def leading_answer(self) -> YesNo | None: ...
    def declines(self) -> bool: ...
    def says_farewell(self) -> bool: ...


@dataclass(slots=True)
class Interpretation:
    """One user turn as understood.

    ``cues`` are the conversational signals the policy needs besides intent and entities:
    ``yes``, ``no``, ``cancel``, ``correction``, ``help``, ``forget``, ``greeting``, ``any`` ("随便",
    "I don't care": the asked slot takes its type's ``any`` value) and ``alternatives`` ("还有别的
    吗", "any other options?": the user wants other choices, the task's values stay).
    ``rejected`` lists values written in the form of a date or time but impossible ("2月30日",
    "25:00"): they are in no mention, and the user should be told. ``instead`` is the request a
    cancelling turn goes on to make, if any.
    """

    text: str
    language: str
    mentions: list[Mention] = field(default_factory=list)
    intents: list[IntentScore] = field(default_factory=list)
    cues: set[str] = field(default_factory=set)
    source: str = "rules"                      # "rules" or "llm"
    rejected: list[RejectedValue] = field(default_factory=list)
    instead: Instead | None = None             # read only for a turn that cancels
    reader: MentionReader | None = field(default=None, repr=False, compare=False)
    words: WordsRead | None = field(default=None, repr=False, compare=False)

    def read_as(self, types: Collection[str]) -> list[Mention]:
        """Every mention of ``types`` in the turn's words, in text order, overlaps kept: the words
        read as those types, though another type claimed them in ``mentions`` ("damaged": an
        issue type, and a return reason), and a value's labels counted as its aliases.

        The understanding that read the turn answers, each type read once a turn however often
        it is asked (``reader``); an interpretation made without one holds its mentions alone.
        """
        if self.reader is not None:
            return self.reader(types)
        return [m for m in self.mentions if m.type in types]

    def matches(self, pattern: re.Pattern[str]) -> tuple[re.Match[str], ...]:
        """Every match of ``pattern`` in the turn's words, in text order: words the bot file
        declares, such as a slot's label ("订单号是" / "my order number is") or the words that name
        a yes/no slot ("早餐" / "breakfast"). The understanding that read the turn finds each
        pattern once a turn, however many steps ask (``words``); without it they are found here.
        """
        if self.words is not None:
            return self.words.matches(pattern)
        return tuple(pattern.finditer(self.text))

    @property
    def answer(self) -> YesNo | None:
        """The yes or the no the turn's words are ("不用了，谢谢" / "no thanks"), read as the cues
        read it, though a cancel in the same words takes the cue ("不用了" cancels too). Read the
        first time a step asks; an interpretation made without the understanding holds none."""
        return self.words.leading_answer() if self.words is not None else None

    @property
    def declines(self) -> bool:
        """Whether the words give nothing: "没有", "不知道", "No.", "I don't know", "I don't have
        one". Asked for a slot that takes a no-preference value, the user has none to give. A
        correction gives something ("No. How about thai?"). Read the first time a step asks."""
        return "correction" not in self.cues and self.words is not None and self.words.declines()

    @property
    def farewell(self) -> bool:
        """Whether the words say goodbye: "谢谢，再见" / "thanks, bye". Read the first time a step asks."""
        return self.words.says_farewell() if self.words is not None else False

    @property
    def top_intent(self) -> IntentScore | None:
        return self.intents[0] if self.intents else None

    def of_type(self, type_name: str) -> list[Mention]:
        return [m for m in self.mentions if m.type == type_name]

    @property
    def declared_mentions(self) -> list[Mention]:
        """Mentions of the bot file's own entity types, not helper matches ("两个订单" holds the
        number 两 and the orders, which are declared)."""
        return [m for m in self.mentions if not m.builtin]
