"""What the conversation tests exercised, per flow, and what no test reached.

Coverage is read from replies only (state, flow, the triggers fired, slots, memory actions),
so it measures what a user of the bot can observe. States a turn passes through without
stopping (EXECUTION on the way back to IDLE) are inferred by replaying the turn's triggers on
the fixed transition table, the same table the compiler builds machines from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialogkit.spec.schema import STATES, BotFile, FlowSpec
from dialogkit.spec.transitions_table import TransitionDef, transition_table
from dialogkit.testing.protocols import TurnObserver

THEN = "then"      # a flow's execute.then: counted like a trigger of the finished flow


@dataclass(slots=True)
class FlowCoverage:
    """Exercised vs possible for one flow."""

    flow: str
    states: set[str] = field(default_factory=set)
    triggers: set[str] = field(default_factory=set)
    slots: set[str] = field(default_factory=set)
    memory: set[tuple[str, str]] = field(default_factory=set)        # (trigger, memory action)
    all_states: list[str] = field(default_factory=list)
    all_triggers: list[str] = field(default_factory=list)
    all_slots: list[str] = field(default_factory=list)
    all_memory: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, name: str, flow: FlowSpec) -> FlowCoverage:
        table = transition_table(flow)
        # CONFIRMATION appears among start_task's sources (a digression may begin there) even in a
        # flow without `confirm`; only the states the flow's own task can be in count.
        states = [s for s in STATES if s != "CONFIRMATION" or flow.confirm is not None]
        triggers = list(dict.fromkeys(t.trigger for t in table))
        if flow.execute.then:
            triggers.append(THEN)          # the follow-up flow started as the task completed
        memory = [(trig, action) for trig in triggers for action in flow.memory_for(trig)]
        return cls(name, all_states=states, all_triggers=triggers,
                   all_slots=[s.name for s in flow.slots], all_memory=memory)

    def never_reached(self) -> list[str]:
        """One line per gap, e.g. ``report_issue: deny never fired``."""
        if not (self.states or self.triggers or self.slots):
            return [f"{self.flow}: never started by any test"]
        lines = [f"{self.flow}: state {s} never reached" for s in self.all_states if s not in self.states]
        lines += [f"{self.flow}: {t} never fired" for t in self.all_triggers if t not in self.triggers]
        lines += [f"{self.flow}: slot {s} never filled" for s in self.all_slots if s not in self.slots]
        lines += [f"{self.flow}: memory action {a} on {t} never ran"
                  for t, a in self.all_memory if (t, a) not in self.memory]
        return lines


@dataclass(slots=True)
class BotCoverage:
    """Coverage of one bot file across every test that drove it."""

    bot: Path
    flows: dict[str, FlowCoverage] = field(default_factory=dict)
    every_turn: list[str] = field(default_factory=list)
    every_turn_ran: set[str] = field(default_factory=set)
    available: bool = True           # False when the bot exposes no ``spec`` to measure against


class CoverageTracker:
    """Collects coverage from the turns of many tests; ``reports()`` gives it per bot file."""

    def __init__(self) -> None:
        self._bots: dict[Path, BotCoverage] = {}
        self._tables: dict[tuple[Path, str], list[TransitionDef]] = {}

    def observer(self, bot_path: Path) -> TurnObserver:
        """A callback for ``Conversation.observers`` that records each turn against ``bot_path``."""

        def observe(flow_before: str | None, state_before: str | None, reply: Any, bot: Any) -> None:
            self.record(bot_path, getattr(bot, "spec", None), flow_before, state_before, reply)

        return observe

    def reports(self) -> list[BotCoverage]:
        return list(self._bots.values())

    def _bot(self, path: Path, spec: BotFile | None) -> BotCoverage:
        if path not in self._bots:
            coverage = BotCoverage(bot=path)
            if isinstance(spec, BotFile):
                coverage.flows = {name: FlowCoverage.of(name, flow) for name, flow in spec.flows.items()}
                coverage.every_turn = list(spec.bot.memory.every_turn)
            else:
                coverage.available = False
            self._bots[path] = coverage
        return self._bots[path]

    def _table(self, path: Path, spec: BotFile, flow: str) -> list[TransitionDef]:
        if (path, flow) not in self._tables:
            self._tables[(path, flow)] = transition_table(spec.flows[flow])
        return self._tables[(path, flow)]

    def record(self, path: Path, spec: BotFile | None, flow_before: str | None,
               state_before: str | None, reply: Any) -> None:
        """Replay one turn's triggers from the state before it and mark what they exercised."""
        coverage = self._bot(path, spec)
        if not coverage.available or spec is None:
            return
        ran = set(getattr(reply, "memory_actions", None) or [])
        coverage.every_turn_ran |= ran & set(coverage.every_turn)
        stack: list[tuple[str, str]] = []
        if flow_before in coverage.flows and state_before:
            stack.append((flow_before, state_before))
        ended: str | None = None
        for trigger in getattr(reply, "transitions", None) or []:
            if trigger == "start_task":
                flow = _started_flow(spec, reply, stack[-1][0] if stack else None)
                if flow is None or flow not in coverage.flows:
                    continue
                if ended is not None and spec.flows[ended].execute.then == flow:
                    self._mark(coverage.flows[ended], "EXECUTION", THEN, None, ran)
                self._mark(coverage.flows[flow], "IDLE" if not stack else None, trigger, "TASK_INIT", ran)
                stack.append((flow, "TASK_INIT"))
                continue
            if not stack:
                continue
            flow, state = stack[-1]
            dest = next((t.dest for t in self._table(path, spec, flow)
                         if t.trigger == trigger and state in t.sources), None)
            self._mark(coverage.flows[flow], state, trigger, dest, ran)
            if dest == "IDLE":
                ended = stack.pop()[0]
            elif dest is not None:
                stack[-1] = (flow, dest)
        flow_after = getattr(reply, "flow", None)
        if flow_after in coverage.flows and getattr(reply, "state", None):
            coverage.flows[flow_after].states.add(reply.state)
        slot_flow = flow_after if flow_after in coverage.flows else ended
        if slot_flow is not None:
            known = set(coverage.flows[slot_flow].all_slots)
            filled = getattr(reply, "slots", None) or {}
            coverage.flows[slot_flow].slots |= {k for k, v in filled.items() if v is not None and k in known}

    @staticmethod
    def _mark(flow: FlowCoverage, source: str | None, trigger: str, dest: str | None, ran: set[str]) -> None:
        flow.triggers.add(trigger)
        flow.states |= {s for s in (source, dest) if s is not None}
        flow.memory |= {(t, a) for t, a in flow.all_memory if t == trigger and a in ran}


def _started_flow(spec: BotFile, reply: Any, current: str | None) -> str | None:
    """The flow a ``start_task`` began: the reply's flow, or (if it already ended) the one whose action ran."""
    flow_after = getattr(reply, "flow", None)
    if flow_after is not None and flow_after != current:
        return str(flow_after)
    ran = {getattr(run, "name", None) for run in getattr(reply, "actions", None) or []}
    for name, flow in spec.flows.items():
        if name != current and flow.execute.action in ran:
            return name
    return str(flow_after) if flow_after is not None else None
