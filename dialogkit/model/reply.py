"""What ``Bot.handle`` returns: the bot's answer and the session facts tests assert on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


# Not frozen, though nothing changes them once made: a frozen dataclass sets each field through
# object.__setattr__, a call a field, and a turn builds a reply and several explanations.
# unsafe_hash keeps the hash and equality the frozen ones had.
@dataclass(slots=True, unsafe_hash=True)
class ActionRun:
    """An action that ran in this turn: its inputs, what it returned, or the error it raised."""

    name: str
    inputs: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass(slots=True, unsafe_hash=True)
class Explanation:
    """One decision of a turn: the step that decided (``rule``: a stable snake_case name such as
    ``label_answer`` or ``confirm``), what it did, and the user's words it read, where known."""

    rule: str
    did: str
    words: str | None = None
    span: tuple[int, int] | None = None     # of ``words`` in the user's text, when they are a span of it

    @classmethod
    def read(cls, rule: str, did: str, words: str | None, text: str) -> Explanation:
        """A record of ``words`` read in the user's ``text``, with their span when they are in it."""
        start = text.find(words) if words else -1
        return cls(rule, did, words, (start, start + len(words)) if words and start >= 0 else None)

    def line(self) -> str:
        """``rule → what (words)``: how a terminal or a test report shows it."""
        return f"{self.rule} → {self.did}" + (f" ({self.words})" if self.words else "")

    def as_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "did": self.did, "words": self.words,
                "span": list(self.span) if self.span is not None else None}


@dataclass(slots=True, init=False, unsafe_hash=True)
class Reply:
    """The bot's answer to one turn, with the state and values it left behind."""

    text: str
    state: str
    flow: str | None
    slots: dict[str, Any]
    session_id: str
    language: str
    clarification: list[Any] | None      # candidate canonical values, in order of first mention
    resolved: str | None                 # the utterance with references resolved
    actions: list[ActionRun]
    options: list[str]
    trigger: str | None                  # the transition fired, if any
    transitions: list[str]               # every trigger fired this turn, in order
    memory_actions: list[str]            # memory actions run this turn
    explain: list[Explanation]           # why: each decision of the turn, in order, with the words it read
    # The ticket summary after the turn: a string, or a function that renders it on first read.
    # Most callers never look at it, and rendering it on every turn cost about 30 µs a turn.
    _summary: str | Callable[[], str] = field(repr=False, compare=False)

    def __init__(self, text: str, state: str, flow: str | None, slots: dict[str, Any], session_id: str,
                 language: str, clarification: list[Any] | None = None, resolved: str | None = None,
                 actions: list[ActionRun] | None = None, options: list[str] | None = None,
                 trigger: str | None = None, transitions: list[str] | None = None,
                 memory_actions: list[str] | None = None, summary: str | Callable[[], str] = "",
                 explain: list[Explanation] | None = None) -> None:
        self.text = text
        self.state = state
        self.flow = flow
        self.slots = slots
        self.session_id = session_id
        self.language = language
        self.clarification = clarification
        self.resolved = resolved
        self.actions = actions if actions is not None else []
        self.options = options if options is not None else []
        self.trigger = trigger
        self.transitions = transitions if transitions is not None else []
        self.memory_actions = memory_actions if memory_actions is not None else []
        self._summary = summary
        self.explain = explain if explain is not None else []

    @property
    def summary(self) -> str:
        """The ticket summary after the turn (rendered once, on first read)."""
        value = self._summary
        if not isinstance(value, str):
            value = value()
            self._summary = value
        return value
