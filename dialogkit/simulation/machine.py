"""One simulated conversation as a hypothesis state machine: each step draws a move, says it to
the bot, and checks every invariant on the turn.

Hypothesis draws the conversation's length, its language and every move, so a conversation that
breaks an invariant shrinks to the fewest and simplest turns that still break it. The bot is
built once per simulation; each conversation gets a session and a user of its own, so nothing
one conversation stores (user-scoped slots, entity memory) reaches another.
"""

from __future__ import annotations

import traceback
from typing import ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from dialogkit.simulation.harness import Simulation, Violation, ViolationFound
from dialogkit.simulation.invariants import Judge, check_turn
from dialogkit.simulation.moves import Scene, Turn, draw_move
from dialogkit.simulation.observation import Snapshot, TurnRecord, snapshot, turn_language
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import PoolKey, Said


class ConversationMachine(RuleBasedStateMachine):
    """Subclassed per simulation with ``simulation`` set (hypothesis builds machines without arguments)."""

    simulation: ClassVar[Simulation]

    def __init__(self) -> None:
        super().__init__()
        sim = self.simulation
        self.session_id = sim.new_conversation()
        self.counted = sim.counts_this_conversation()
        self.memory = UserMemory(sim.catalog.start_language)
        self.before = Snapshot()
        self.length = 0
        self.table: tuple[Turn, ...] = ()
        self.pools: dict[PoolKey, tuple[Said, ...]] = {}
        self.found: dict[str, Violation] = {}
        self.started = False

    @initialize(data=st.data())
    def begin(self, data: st.DataObject) -> None:
        """The conversation's length, its main language, and the made-up values its user has."""
        sim = self.simulation
        self.length = data.draw(sim.lengths, label="turns")
        primary = data.draw(sim.primaries, label="language")
        self.table = sim.move_tables[primary]
        self.pools = data.draw(sim.pools, label="values")
        self.started = True

    @rule(data=st.data())
    def turn(self, data: st.DataObject) -> None:
        if len(self.memory.turns) >= self.length:
            return
        scene = Scene(self.simulation.catalog, self.simulation.values, self.pools, self.before, self.memory)
        self.say(draw_move(data, scene, self.table))

    def say(self, utterance: Utterance) -> None:
        """One turn: the bot's reply, the invariants on it, and what the user remembers of it."""
        sim = self.simulation
        language = turn_language(utterance.text, self.memory.language)
        reply, error, after = None, None, self.before
        try:
            reply = sim.bot.handle(self.session_id, utterance.text, user_id=self.session_id)
            after = snapshot(reply, sim.bot.session(self.session_id), sim.catalog, sim.facts.texts)
        except Exception:
            error = traceback.format_exc()
            self.length = 0            # a crashed turn ends the conversation
        record = TurnRecord(len(self.memory.turns), utterance, language, self.before, after, reply, error,
                            sim.refusals(utterance))
        self.memory.take_back(record)
        found = check_turn(record, Judge(sim.facts, self.memory))
        self.memory.settle(record)
        self.before = after
        for invariant, finding in found:
            violation = Violation(invariant, finding, tuple(self.memory.turns))
            self.found.setdefault(violation.key, violation)
            if sim.should_raise(violation.key):
                raise ViolationFound(violation)

    def teardown(self) -> None:
        """Count the conversation if it ran to its end (or to a violation, or a crash). One that
        hypothesis cut short — a draw found nothing, or it stopped early — is not counted."""
        if self.counted and self.started and (len(self.memory.turns) >= self.length or self.found):
            self.simulation.conversation_done(self.found, len(self.memory.turns))
