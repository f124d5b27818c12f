"""What ``Bot.handle`` returns: the bot's answer and the session facts tests assert on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ActionRun:
    """An action that ran in this turn: its inputs, what it returned, or the error it raised."""

    name: str
    inputs: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    state: str
    flow: str | None
    slots: dict[str, Any]
    session_id: str
    language: str
    clarification: list[Any] | None = None      # candidate canonical values, in order of first mention
    resolved: str | None = None                 # the utterance with references resolved
    actions: list[ActionRun] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    trigger: str | None = None                  # the transition fired, if any
    transitions: list[str] = field(default_factory=list)   # every trigger fired this turn, in order
    memory_actions: list[str] = field(default_factory=list)  # memory actions run this turn
    # The ticket summary after the turn: a string, or a function that renders it on first read.
    # Most callers never look at it, and rendering it on every turn cost about 30 µs a turn.
    summary: InitVar[str | Callable[[], str]] = ""
    _summary: str | Callable[[], str] = field(init=False, default="", repr=False, compare=False)

    def __post_init__(self, summary: str | Callable[[], str]) -> None:
        object.__setattr__(self, "_summary", summary)


def _summary(self: Reply) -> str:
    """The ticket summary after the turn (rendered once, on first read)."""
    value = self._summary
    if not isinstance(value, str):
        value = value()
        object.__setattr__(self, "_summary", value)
    return value


Reply.summary = property(_summary)  # type: ignore[assignment,method-assign]   # replaces the InitVar's default
