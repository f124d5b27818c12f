"""Writing slot values: a transition's updates, prefill from persisted values, taking a turn back.

Kept apart from ``slots`` (which reads values out of an utterance): these change the task and
keep each slot's history, so a correction or "forget what I just said" can restore what was there.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from dialogkit.engine.turn import TurnContext
from dialogkit.memory import forgetting
from dialogkit.model.session import SlotChange, Task
from dialogkit.spec.schema import FlowSpec

__all__ = ["apply_updates", "forget_turn", "prefill"]


def apply_updates(event: EventData) -> None:
    """Before-hook of start_task/provide_param: write the turn's slot values, keeping the old ones."""
    ctx: TurnContext = event.kwargs["ctx"]
    task = ctx.task
    assert task is not None
    for name, value in ctx.updates.items():
        old = task.slots.get(name)
        if old is not None and str(old) != str(value):
            task.slot_history.setdefault(name, []).append(
                SlotChange(value=old, turn=task.slot_turns.get(name, ctx.turn), at=ctx.now, superseded_at=ctx.now))
        task.slots[name] = value
        task.slot_turns[name] = ctx.turn
        if name in task.prefilled and name not in ctx.prefilled:
            task.prefilled.remove(name)


def prefill(ctx: TurnContext, flow: FlowSpec, *, exclude: set[str]) -> dict[str, Any]:
    """Values of persisted slots for a new task: the more recent of session and user scope."""
    out: dict[str, Any] = {}
    user_values = None
    for slot in flow.slots:
        if slot.persist == "none" or slot.name in exclude:
            continue
        best = ctx.session.session_slots.get(slot.name)
        if user_values is None:
            user_values = ctx.txn.user_slots(ctx.session.user_id)
        user_value = user_values.get(slot.name)
        if user_value is not None and (best is None or user_value.at > best.at):
            best = user_value
        if best is not None:
            out[slot.name] = best.value
    return out


def forget_turn(ctx: TurnContext, turn: int) -> bool:
    """"忘记刚才说的": drop the entities and slot values the given user turn added."""
    removed = forgetting.forget_last_turn(ctx.session, turn)      # counts of what went, per kind
    dropped = any(removed.values())
    for task in ctx.session.stack:
        dropped = _restore_slots(task, turn) or dropped
    return dropped


def _restore_slots(task: Task, turn: int) -> bool:
    """Give each slot the given turn wrote its previous value back (or empty it)."""
    names = [n for n, t in task.slot_turns.items() if t == turn]
    for name in names:
        history = task.slot_history.get(name) or []
        if history:
            previous = history.pop()
            task.slots[name] = previous.value
            task.slot_turns[name] = previous.turn
        else:
            task.slots.pop(name, None)
            task.slot_turns.pop(name, None)
    return bool(names)
