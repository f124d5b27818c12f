"""(k) A completed task with ``execute.then`` starts its follow-up flow, slots carried by name."""

from __future__ import annotations

from typing import Any

from dialogkit.simulation.catalog import FlowInfo
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import value_key


def _finished_with(turn: TurnRecord, flow: FlowInfo) -> dict[str, Any] | None:
    """The values ``flow``'s task finished with this turn: its action's inputs when it ran
    without error, else (a flow without an action) the slots it held when it executed."""
    reply = turn.reply
    if reply is None or "execute" not in reply.transitions:
        return None
    if flow.action is None:
        return {**turn.before.slots, **{name: said.canonical for name, said in turn.utterance.fills.items()}}
    run = next((r for r in reply.actions if r.name == flow.action), None)
    return dict(run.inputs) if run is not None and run.error is None else None


def follow_up_starts_with_carried_slots(turn: TurnRecord, judge: Judge) -> Finding | None:
    """When a task's action runs and its flow names ``execute.then`` (and ``when`` holds over the
    finished task's values), the follow-up flow is the active task after the turn, its slots of
    the same names prefilled from the finished task (docs/bot-file.md, "execute").
    """
    flow = judge.catalog.flows.get(turn.before.flow) if turn.before.flow else None
    if flow is None or flow.then is None:
        return None
    inputs = _finished_with(turn, flow)
    names = [s.name for s in flow.slots]
    if inputs is None or (flow.then_when is not None and not flow.then_when.holds(inputs, names)):
        return None
    if turn.after.flow != flow.then:
        message = f"{flow.name} completed but its follow-up {flow.then} did not start (now {turn.after.flow})"
        return Finding("not_started", message, {"state": "PARAM_COLLECT"})
    follow = judge.catalog.flows.get(flow.then)
    for slot in follow.slots if follow is not None else ():
        carried = inputs.get(slot.name)
        if carried is not None and value_key(turn.after.slots.get(slot.name)) != value_key(carried):
            message = f"the follow-up {flow.then} did not carry {slot.name}={carried!r}"
            return Finding("slot_not_carried", message, {"slots": {slot.name: carried}})
    return None


INVARIANT = Invariant(
    "then_not_followed", "k", "a completed task starts its then flow with the slots carried by name",
    follow_up_starts_with_carried_slots,
)
