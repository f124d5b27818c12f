"""What ``Bot.handle`` returns: the bot's answer and the session facts tests assert on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ActionRun:
    """An action that ran in this turn: its inputs, what it returned, or the error it raised."""

    name: str
    inputs: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True, init=False)
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
    # The ticket summary after the turn: a string, or a function that renders it on first read.
    # Most callers never look at it, and rendering it on every turn cost about 30 µs a turn.
    _summary: str | Callable[[], str] = field(repr=False, compare=False)

    def __init__(self, text: str, state: str, flow: str | None, slots: dict[str, Any], session_id: str,
                 language: str, clarification: list[Any] | None = None, resolved: str | None = None,
                 actions: list[ActionRun] | None = None, options: list[str] | None = None,
                 trigger: str | None = None, transitions: list[str] | None = None,
                 memory_actions: list[str] | None = None, summary: str | Callable[[], str] = "") -> None:
        values = {
            "text": text, "state": state, "flow": flow, "slots": slots, "session_id": session_id,
            "language": language, "clarification": clarification, "resolved": resolved,
            "actions": actions if actions is not None else [], "options": options if options is not None else [],
            "trigger": trigger, "transitions": transitions if transitions is not None else [],
            "memory_actions": memory_actions if memory_actions is not None else [], "_summary": summary,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def summary(self) -> str:
        """The ticket summary after the turn (rendered once, on first read)."""
        value = self._summary
        if not isinstance(value, str):
            value = value()
            object.__setattr__(self, "_summary", value)
        return value
