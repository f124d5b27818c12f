"""(j) A slot whose ask_if is false is neither asked nor kept."""

from __future__ import annotations

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord


def unneeded_slot_neither_asked_nor_kept(turn: TurnRecord, judge: Judge) -> Finding | None:
    """After every turn, a slot whose ``ask_if`` is false over the task's values (the engine's own
    condition evaluation) holds no value and is not the one asked; a correction that turns a
    condition on asks the slot (docs/bot-file.md, "ask_if").
    """
    after = turn.after
    flow = judge.catalog.flows.get(after.flow) if after.flow else None
    if flow is None or turn.reply is None:
        return None
    for slot in flow.slots:
        if slot.condition is None or flow.needed(slot, after.slots):
            continue
        if after.slots.get(slot.name) is not None:
            message = f"{slot.name} kept {after.slots[slot.name]!r} though its ask_if {slot.spec.ask_if!r} is false"
            return Finding("unneeded_slot_kept", message, {"slots": {slot.name: None}})
        if after.asked == slot.name:
            message = f"{slot.name} was asked though its ask_if {slot.spec.ask_if!r} is false"
            return Finding("unneeded_slot_asked", message, {"state": after.state})
    return None


INVARIANT = Invariant(
    "ask_if_ignored", "j", "a slot whose ask_if is false is neither asked nor kept",
    unneeded_slot_neither_asked_nor_kept,
)
