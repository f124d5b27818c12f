"""Compile each flow into one ``transitions`` machine, shared by every session of a bot.

A machine is built once per flow when the bot loads (about a millisecond each); a turn binds the
session's plain data to it through a throw-away ``TaskBinding`` and fires the trigger with
``Event.trigger(binding, ctx=...)``. No machine is ever built per session or per turn.

Callbacks are resolved callables, never dotted strings: ``transitions`` would otherwise import
whatever a YAML file names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from transitions import EventData, Machine

from dialogkit.spec.conditions import Condition, parse_condition
from dialogkit.spec.schema import STATES, BotFile, FlowSpec
from dialogkit.spec.transitions_table import TransitionDef, transition_table

logging.getLogger("transitions").setLevel(logging.WARNING)

Callback = Callable[[EventData], None]
Route = tuple[str, tuple[Callback, ...], tuple[Callback, ...]]    # destination, before callbacks, after callbacks


@dataclass(slots=True)
class TaskBinding:
    """The model a machine moves for one trigger: just a state and the turn it belongs to."""

    state: str
    ctx: Any = None


@dataclass(frozen=True, slots=True)
class PhasedCallback:
    """A callback with the phase it runs in: ``before`` the state change or ``after`` it."""

    name: str
    func: Callback
    phase: str  # "before" | "after"


@dataclass(slots=True)
class CompiledFlow:
    name: str
    spec: FlowSpec
    machine: Machine
    table: list[TransitionDef]
    memory: dict[str, list[str]] = field(default_factory=dict)   # trigger -> memory action names
    conditions: dict[str, Condition] = field(default_factory=dict)   # slot -> its ask_if, parsed
    then_when: Condition | None = None                             # execute.when, parsed

    routes: dict[tuple[str, str], Route] = field(default_factory=dict)  # (trigger, source) -> the machine's route

    def can_fire(self, trigger: str, state: str) -> bool:
        return any(t.trigger == trigger and state in t.sources for t in self.table)

    def fire(self, trigger: str, state: str, ctx: Any) -> str:
        """Fire ``trigger`` from ``state`` for one turn and return the new state.

        A valid trigger runs the machine's own callbacks for that transition in the machine's
        order (before, change of state, after) straight from ``routes``: the six layers of
        ``Event.trigger`` around them (queue, model lookup, condition check, state objects, debug
        logging) did nothing for these machines, which have no conditions, no state callbacks and
        no queue, yet took about a tenth of a turn. An invalid one still goes through the machine,
        which refuses it with its own ``MachineError``.
        """
        route = self.routes.get((trigger, state))
        if route is None:
            binding = TaskBinding(state=state, ctx=ctx)
            self.machine.events[trigger].trigger(binding, ctx=ctx)
            return binding.state
        dest, before, after = route
        event = EventData(None, None, self.machine, None, (), {"ctx": ctx})
        for callback in before:
            callback(event)
        for callback in after:
            callback(event)
        return dest


MemoryResolver = Callable[[str], PhasedCallback]


def compile_flow(
    name: str,
    spec: FlowSpec,
    resolve_memory_action: MemoryResolver,
    *,
    before_hooks: Mapping[str, list[Callback]] | None = None,
    after_hooks: Mapping[str, list[Callback]] | None = None,
) -> CompiledFlow:
    """Build the machine of one flow.

    ``resolve_memory_action`` turns a memory action name from the YAML into a phased callback;
    runtime hooks run after the before-phase memory actions (so an ambiguous reference stops
    the transition before any slot changes) and before the after-phase ones.
    """
    table = transition_table(spec)
    memory = {trigger: spec.memory_for(trigger) for trigger in dict.fromkeys(t.trigger for t in table)}
    transitions: list[dict[str, Any]] = []
    for trigger, names in memory.items():
        phased = [resolve_memory_action(n) for n in names]
        before = [p.func for p in phased if p.phase == "before"] + list((before_hooks or {}).get(trigger, []))
        after = list((after_hooks or {}).get(trigger, [])) + [p.func for p in phased if p.phase == "after"]
        transitions.extend(
            {"trigger": t.trigger, "source": list(t.sources), "dest": t.dest, "before": before, "after": after}
            for t in table if t.trigger == trigger
        )
    machine = Machine(
        model=None,
        states=list(STATES),
        initial="IDLE",
        transitions=transitions,
        auto_transitions=False,
        send_event=True,
        ignore_invalid_triggers=False,
        name=f"{name}:",
    )
    names = [s.name for s in spec.slots]
    conditions = {s.name: parse_condition(s.ask_if, names) for s in spec.slots if s.ask_if is not None}
    when = parse_condition(spec.execute.when, names) if spec.execute.when is not None else None
    return CompiledFlow(name=name, spec=spec, machine=machine, table=table, memory=memory,
                        conditions=conditions, then_when=when, routes=_routes(machine))


def _routes(machine: Machine) -> dict[tuple[str, str], Route]:
    """Every (trigger, source) the machine accepts, read back from the machine itself so the
    fast path in ``CompiledFlow.fire`` cannot drift from what ``transitions`` would run."""
    routes: dict[tuple[str, str], Route] = {}
    for trigger, event in machine.events.items():
        for source, candidates in event.transitions.items():
            first = candidates[0]
            dest = first.dest
            assert len(candidates) == 1 and not first.conditions and not first.prepare, "one plain route each"
            assert dest is not None and not machine.states[source].on_exit and not machine.states[dest].on_enter
            before = _callables([*machine.before_state_change, *first.before])
            after = _callables([*first.after, *machine.after_state_change])
            routes[(trigger, source)] = (dest, before, after)
    assert not (machine.prepare_event or machine.finalize_event or machine.on_exception)
    return routes


def _callables(callbacks: list[Any]) -> tuple[Callback, ...]:
    assert all(callable(cb) for cb in callbacks), "callbacks are resolved callables, never dotted strings"
    return tuple(callbacks)


def compile_bot(
    spec: BotFile,
    resolve_memory_action: MemoryResolver,
    *,
    before_hooks: Mapping[str, list[Callback]] | None = None,
    after_hooks: Mapping[str, list[Callback]] | None = None,
) -> dict[str, CompiledFlow]:
    return {
        name: compile_flow(name, flow, resolve_memory_action, before_hooks=before_hooks, after_hooks=after_hooks)
        for name, flow in spec.flows.items()
    }
