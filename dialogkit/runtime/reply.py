"""What ``Bot.handle`` returns: the bot's answer and the session facts tests assert on."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    summary: str = ""                           # the ticket summary after the turn
