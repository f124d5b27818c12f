"""The state one simulation shares between its conversations: the bot, what it may say to it,
the counts, and which violations a conversation must stop at.

A violation is classed by invariant and by the way it broke (``asked_slot_first/filled_another_slot``).
A class not yet seen stops the conversation, so that hypothesis can shrink it; once shrunk, the
class is only counted from then on and the search goes on for others.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument

from dialogkit.actions.registry import ActionContext
from dialogkit.bot import Bot
from dialogkit.engine.choices import Choice, parse_choices
from dialogkit.errors import ActionError
from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.invariants import BotFacts, Finding, Invariant, bot_facts
from dialogkit.simulation.moves import move_table
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import SlotValues
from dialogkit.simulation.vocabulary import LANGUAGES


@dataclass(frozen=True, slots=True)
class Options:
    conversations: int = 200
    seed: int = 0
    languages: tuple[str, ...] = LANGUAGES
    min_turns: int = 5
    max_turns: int = 12
    shrink: bool = True          # False: report each violation as first found (quicker)


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken invariant and the conversation up to the turn that broke it."""

    invariant: Invariant
    finding: Finding
    turns: tuple[TurnRecord, ...]

    @property
    def key(self) -> str:
        return f"{self.invariant.name}/{self.finding.kind}"


class ViolationFound(AssertionError):
    """Raised inside a conversation so that hypothesis records, and then shrinks, the violation."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(f"{violation.key}: {violation.finding.message}")
        self.violation = violation


@dataclass(slots=True)
class ViolationClass:
    """Every conversation that broke one invariant in one way, and the smallest example of it."""

    key: str
    first: Violation
    conversations: int = 0
    minimal: Violation | None = None
    shrunk: bool = False

    @property
    def example(self) -> Violation:
        return self.minimal or self.first


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int
    with_violations: int
    classes: int
    shrinking: str | None = None       # the class of violation being shrunk now, if any


@dataclass(slots=True)
class Tally:
    done: int = 0
    with_violations: int = 0
    classes: dict[str, ViolationClass] = field(default_factory=dict)


class Simulation:
    """One bot under simulation, shared by all its conversations."""

    def __init__(self, bot: Bot, options: Options, stubs: dict[str, Any],
                 progress: Callable[[Progress], None] | None = None) -> None:
        self.bot = bot
        self.options = options
        self.stubs = stubs
        self.catalog = Catalog(bot.spec)
        self.catalog.request_types = request_types(bot, self.catalog)
        self.values = SlotValues(self.catalog, options.seed, listed_choices(bot, self.catalog))
        self.values.prepare(options.languages)
        self.move_tables = {lang: move_table(options.languages, lang, self.catalog) for lang in options.languages}
        # What each conversation draws first, made once: hypothesis validates a strategy when it
        # first draws from it, and the pools' one holds every made-up value of the bot.
        self.lengths = st.integers(options.min_turns, options.max_turns)
        self.primaries = st.sampled_from(options.languages)
        self.pools = self.values.draw_pools()
        self.facts: BotFacts = bot_facts(self.catalog)
        self.tally = Tally()
        self.turns = 0                 # turns of counted conversations
        self.counting = True
        self.stop_at: Callable[[str], bool] = lambda key: key not in self.tally.classes
        self._ids = itertools.count(1)
        self._progress = progress
        self._last_report = 0.0

    def refusals(self, utterance: Utterance) -> tuple[str, ...]:
        """What the bot's own validators say of the values this turn offers: a rule its code runs
        (``validate: - action: ...``) refuses with a message the bot file does not hold, which the
        reply may give as that slot's rule message."""
        offered = [*utterance.fills.items(), *((utterance.slot, said) for said in utterance.said if utterance.slot)]
        messages: list[str] = []
        for name, said in offered:
            for flow in self.catalog.flows.values():
                slot = flow.slot(name)
                for action in (r.action for r in slot.rules if r.action) if slot is not None else ():
                    try:
                        message = self.bot.actions.validate(action, said.canonical)
                    except ActionError:
                        continue
                    if message and message not in messages:
                        messages.append(message)
        return tuple(messages)

    def new_conversation(self) -> str:
        return f"sim-{next(self._ids)}"

    def counts_this_conversation(self) -> bool:
        """Generated conversations count; hypothesis' replays of a failure for its report do not."""
        return self.counting and not _final_replay()

    def should_raise(self, key: str) -> bool:
        return self.stop_at(key)

    def conversation_done(self, found: dict[str, Violation], turns: int) -> None:
        """Count a conversation and what it found; past the budget (hypothesis' count of valid
        examples can run a little ahead of ours), conversations are not counted."""
        tally = self.tally
        if tally.done >= self.options.conversations:
            return
        tally.done += 1
        self.turns += turns
        tally.with_violations += bool(found)
        for key, violation in found.items():
            tally.classes.setdefault(key, ViolationClass(key, violation)).conversations += 1
        self.report_progress()

    def report_progress(self, force: bool = False, shrinking: str | None = None) -> None:
        now = time.monotonic()
        if self._progress is None or not (force or now - self._last_report >= 1.0):
            return
        self._last_report = now
        tally = self.tally
        self._progress(Progress(tally.done, self.options.conversations, tally.with_violations, len(tally.classes),
                                shrinking))


def listed_choices(bot: Bot, catalog: Catalog) -> dict[tuple[str, str], tuple[Choice, ...]]:
    """The options each slot with ``choices`` lists, from its action (a stub's return or the real
    one's), run once as the engine runs it; a failing action leaves the question free-form."""
    found: dict[tuple[str, str], tuple[Choice, ...]] = {}
    for flow in catalog.flows.values():
        for slot in flow.slots:
            if slot.spec.choices is None:
                continue
            try:
                result = bot.actions.run(slot.spec.choices.action, ActionContext(flow=flow.name))
            except ActionError:
                continue
            options = parse_choices(result)
            if options:
                found[(flow.name, slot.name)] = tuple(options)
    return found


def request_types(bot: Bot, catalog: Catalog) -> dict[str, frozenset[str]]:
    """The entity types the bot's understanding reads in each trigger example, so that a request
    said with more values does not give a slot two ("I want a cheap restaurant in the north, the
    area is any")."""
    texts = {text for flow in catalog.flows.values() for examples in flow.examples.values() for text in examples}
    return {text: frozenset(m.type for m in bot.understanding.extract(text)) for text in sorted(texts)}


def _final_replay() -> bool:
    """Whether hypothesis is replaying a failure one last time to report it."""
    try:
        return bool(current_build_context().is_final)
    except InvalidArgument:  # outside a hypothesis run: a plain conversation
        return False
