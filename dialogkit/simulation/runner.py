"""Running a simulation: hypothesis generates conversations until one breaks an invariant in a
way not seen yet, shrinks that one to a minimal conversation, and generation goes on with the
rest of the budget until every requested conversation has run.

Deterministic for a seed: each round of generation is seeded from it, and the example database
is an in-memory one thrown away after the run. Replays for shrinking do not count as
conversations; generated ones do, including the one that found a violation.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import Flaky
from hypothesis.stateful import run_state_machine_as_test

from dialogkit.bot import Bot
from dialogkit.errors import FlowError
from dialogkit.simulation.harness import Options, Progress, Simulation, Tally, Violation, ViolationFound
from dialogkit.simulation.languages import spoken_languages
from dialogkit.simulation.machine import ConversationMachine
from dialogkit.simulation.storage import hypothesis_storage
from dialogkit.simulation.stubs import action_stubs
from dialogkit.spec.loader import check_bot_file, in_file_order

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
              HealthCheck.large_base_example]
"""Conversations are long and some values are filtered (a correction needs a *different* value):
those health checks would only warn about what a simulation does on purpose."""

SHRINK_PASSES = 3
"""Hypothesis stops shrinking after 500 improvements; a conversation with long typed values can
use them up before its turns are gone, so shrinking resumes from its result while it helps."""


class ThrowawayDatabase(InMemoryExampleDatabase):
    """The run's example database: in memory, gone when the run ends.

    A failure found while only generating is saved as if already shrunk; ``demote`` files it as
    a not-yet-shrunk example instead, so that replaying it goes on to shrink it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: set[bytes] = set()

    def save(self, key: bytes, value: bytes) -> None:
        self.keys.add(key)
        super().save(key, value)

    def demote(self) -> None:
        if not self.keys:
            return
        primary = min(self.keys, key=len)
        for value in list(self.fetch(primary)):
            self.move(primary, primary + b".secondary", value)


@dataclass(frozen=True, slots=True)
class SimulationResult:
    bot_path: Path
    bot_name: str
    options: Options
    tally: Tally
    seconds: float
    turns: int
    stubs: dict[str, dict[str, object]]

    @property
    def violations(self) -> list[Violation]:
        """The smallest example of each class of violation, in the order they were found."""
        return [c.example for c in self.tally.classes.values()]

    @property
    def failed(self) -> bool:
        return bool(self.tally.classes)


def open_bot(path: Path) -> tuple[Bot, dict[str, dict[str, object]]]:
    """The bot on a fresh in-memory store, with every action it runs stubbed."""
    checked = check_bot_file(path)
    if checked.spec is None:
        raise FlowError(in_file_order(checked.problems))
    stubs = action_stubs(checked.spec)
    return Bot.from_file(path, store="memory://", actions=stubs), dict(stubs)


def _settings(sim: Simulation, budget: int, phases: list[Phase], database: ThrowawayDatabase) -> settings:
    return settings(
        max_examples=max(1, budget), stateful_step_count=sim.options.max_turns + 1, deadline=None,
        database=database, phases=phases, suppress_health_check=SUPPRESSED, verbosity=Verbosity.quiet,
        report_multiple_bugs=False, print_blob=False,
    )


def _machine(sim: Simulation, round_no: int) -> type[ConversationMachine]:
    machine = type("SimulatedConversation", (ConversationMachine,), {"simulation": sim})
    seeded: type[ConversationMachine] = seed(sim.options.seed * 1_000 + round_no)(machine)
    return seeded


def _run(machine: type[ConversationMachine], config: settings) -> Violation | None:
    try:
        run_state_machine_as_test(machine, settings=config)
    except ViolationFound as found:
        return found.violation
    return None


def _generate(sim: Simulation, round_no: int, database: ThrowawayDatabase) -> Violation | None:
    """Generate conversations until one shows a class of violation not seen before."""
    known = set(sim.tally.classes)
    sim.counting, sim.stop_at = True, lambda key: key not in known
    budget = sim.options.conversations - sim.tally.done
    found = _run(_machine(sim, round_no), _settings(sim, budget, [Phase.generate], database))
    return found if found is not None and found.key in sim.tally.classes else None   # else: past the budget


def _shrink(sim: Simulation, found: Violation, round_no: int, database: ThrowawayDatabase) -> None:
    """Replay the conversation that found ``found`` and let hypothesis shrink it."""
    sim.counting, sim.stop_at = False, lambda key: key == found.key
    sim.report_progress(force=True, shrinking=found.key)
    best: Violation | None = None
    for _ in range(SHRINK_PASSES):
        database.demote()
        try:
            minimal = _run(_machine(sim, round_no), _settings(sim, 1, [Phase.reuse, Phase.shrink], database))
        except Flaky:
            break
        if minimal is None or (best is not None and len(minimal.turns) >= len(best.turns)):
            best = minimal or best
            break
        best = minimal
    record = sim.tally.classes.get(found.key)
    if record is not None:
        record.minimal, record.shrunk = best or found, best is not None


def simulate(path: str | Path, options: Options,
             progress: Callable[[Progress], None] | None = None) -> SimulationResult:
    """Run ``options.conversations`` simulated conversations against the bot file at ``path``;
    hypothesis writes its caches under ``./.dialogkit/hypothesis/`` meanwhile (``storage``)."""
    with hypothesis_storage():
        return _simulate(Path(path), options, progress)


def _simulate(bot_path: Path, options: Options, progress: Callable[[Progress], None] | None) -> SimulationResult:
    bot, stubs = open_bot(bot_path)
    started = time.perf_counter()
    gc.freeze()            # the bot lives as long as the run: no collection need walk its catalogue
    try:
        options = replace(options, languages=spoken_languages(bot.spec.bot.language, options.languages))
        sim = Simulation(bot, options, stubs, progress)
        gc.freeze()        # nor the simulator's (every value's forms, as said and as shown)
        round_no = 0
        while sim.tally.done < options.conversations:
            done, database = sim.tally.done, ThrowawayDatabase()
            found = _generate(sim, round_no, database)
            if found is not None and options.shrink:
                _shrink(sim, found, round_no, database)
            if found is None and sim.tally.done == done:
                break                  # hypothesis has no new conversation to offer
            round_no += 1
        sim.report_progress(force=True)
    finally:
        gc.unfreeze()
        bot.close()
    return SimulationResult(bot_path, bot.spec.bot.name, options, sim.tally, time.perf_counter() - started,
                            sim.turns, stubs)
