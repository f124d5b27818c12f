"""What an invariant is: a named check of one turn that returns a finding or None.

Each invariant lives in its own module as one function whose docstring states the behaviour it
checks (docs/behaviours.md). A finding carries the expectation a conversation test should make
at that step, so a saved violation fails until the behaviour is fixed and passes after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.word_finder import WordFinder
from dialogkit.text.labels import Texts


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken behaviour: ``kind`` names the way it broke (one class per invariant and kind)."""

    kind: str
    message: str
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ForeignForms:
    """Per language, the other language's labels and aliases a reply in it must not show."""

    pattern: WordFinder | None           # finds the forms as one alternation of them would
    owner: Mapping[str, str]             # form (lower-cased) -> the canonical value it names


@dataclass(frozen=True, slots=True)
class BotFacts:
    """What the invariants need to know about the bot, built once per simulation."""

    catalog: Catalog
    texts: Texts
    foreign: Mapping[str, ForeignForms]


@dataclass(frozen=True, slots=True)
class Judge:
    """What one check may consult: the bot's facts and the simulated user's memory."""

    facts: BotFacts
    memory: UserMemory

    @property
    def catalog(self) -> Catalog:
        return self.facts.catalog


Check = Callable[[TurnRecord, Judge], "Finding | None"]


@dataclass(frozen=True, slots=True)
class Invariant:
    name: str
    letter: str                 # the letter the simulation's documentation gives it
    title: str                  # the behaviour in a few words
    check: Check

    @property
    def doc(self) -> str:
        """The behaviour, as the check's docstring states it (its first paragraph)."""
        text = (self.check.__doc__ or self.name).strip()
        return " ".join(text.split("\n\n")[0].split())


def slots_of_task(turn: TurnRecord, flow: str, catalog: Catalog) -> dict[str, Any] | None:
    """The slots of ``flow``'s task after the turn: the active task's, or those an action of it
    ran with when the turn ended it (or, for a flow without an action, the values it executed
    with); None when the task was left (cancelled, suspended)."""
    if turn.reply is None:
        return None
    for run in turn.reply.actions:       # first: the task may have ended, and another of its flow resumed
        if flow in catalog.action_flows(run.name):
            return turn.after.slots if turn.after.flow is None else dict(run.inputs)
    info = catalog.flows.get(flow)
    if info is not None and info.action is None and turn.before.flow == flow and turn.after.flow != flow \
            and "execute" in turn.reply.transitions:
        if turn.after.flow is None:
            return turn.after.slots      # a flow without an action completed: the reply shows its values
        # another task resumed: it executed with what it held and what this turn gave it
        return {**turn.before.slots, **{n: s.canonical for n, s in turn.utterance.fills.items()}}
    return turn.after.slots if turn.after.flow == flow else None
