"""Writing slot values: a transition's updates, prefill from persisted values, taking a turn back.

Kept apart from ``slots`` (which reads values out of an utterance): these change the task and
keep each slot's history, so a correction or "forget what I just said" can restore what was there.
"""

from __future__ import annotations

from typing import Any

from transitions import EventData

from dialogkit.engine.doubtful_values import doubted
from dialogkit.engine.list_slots import as_list
from dialogkit.engine.slots import Validator, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.logging import get_logger
from dialogkit.memory import forgetting, summary
from dialogkit.model.session import PersistedValue, SlotChange, Task
from dialogkit.spec.schema import FlowSpec

__all__ = ["apply_updates", "clear_slot", "drop_rejected", "forget_persisted", "forget_turn", "prefill", "user_values"]

log = get_logger("dialogkit.slots")


def apply_updates(event: EventData) -> None:
    """Before-hook of start_task/provide_param: write the turn's slot values, keeping the old ones."""
    ctx: TurnContext = event.kwargs["ctx"]
    task = ctx.task
    assert task is not None
    for name, value in list(ctx.updates.items()):
        slot = ctx.flow.spec.slot(name) if ctx.flow is not None else None
        if slot is not None and slot.is_list:
            # One value for a list slot (an answer by its label, a choice, a prefill) is a list of one.
            value = ctx.updates[name] = as_list(value)
        old = task.slots.get(name)
        if doubted(ctx, name, value):
            # A phone number offered as an order id is asked about, not written (nor summarised);
            # the value it was meant to replace no longer holds either ("不对，订单号是138…"), so
            # the slot is asked again.
            del ctx.updates[name]
            if old is not None and str(old) != str(value):
                _drop_replaced(ctx, task, name, old)
            continue
        if old is not None and str(old) != str(value):
            _supersede(ctx, task, name, old)
        if old is None or str(old) != str(value):
            # The same value said again keeps the turn that gave it: forgetting this turn keeps it.
            task.slots[name] = value
            task.slot_turns[name] = ctx.turn
        if name in task.prefilled and name not in ctx.prefilled:
            task.prefilled.remove(name)


def drop_rejected(ctx: TurnContext, name: str) -> None:
    """"不对，改成20个人" with 20 refused by the slot's rules: the 4 it was meant to replace no
    longer holds either, so it leaves the slot and the summary, and a later "yes" runs nothing."""
    task = ctx.task
    if task is not None and task.slots.get(name) is not None:
        _drop_replaced(ctx, task, name, task.slots[name])


def clear_slot(ctx: TurnContext, name: str) -> bool:
    """"忘记时间" / "forget the time": the active task's value leaves the slot and the summary, so
    the slot is asked for again; False when the task holds no value there."""
    task = ctx.session.task
    if task is None or task.slots.get(name) is None:
        return False
    _drop_replaced(ctx, task, name, task.slots[name])
    task.slot_turns.pop(name, None)
    if name in task.prefilled:
        task.prefilled.remove(name)
    return True


def _drop_replaced(ctx: TurnContext, task: Task, name: str, old: Any) -> None:
    """A held value the user rejected for one the bot asks about first: out of the slot and the summary."""
    _supersede(ctx, task, name, old)
    del task.slots[name]
    summary.drop_fact(ctx.session.summary, flow=task.key, name=name)


def _supersede(ctx: TurnContext, task: Task, name: str, old: Any) -> None:
    """Keep the value being replaced in the slot's history: "forget what I just said" restores it."""
    task.slot_history.setdefault(name, []).append(
        SlotChange(value=old, turn=task.slot_turns.get(name, ctx.turn), at=ctx.now, superseded_at=ctx.now))


def user_values(ctx: TurnContext) -> dict[str, PersistedValue]:
    """The user's persisted values for this bot; values stored before they were kept per bot
    (under the bare user id) are read when the bot has none of its own yet. An anonymous session
    has none (its ``persist: user`` values are kept in the session)."""
    if ctx.session.user_id is None:
        return {}
    values = ctx.txn.user_slots(ctx.user_key)
    if not values and ctx.user_key != ctx.session.user_id:
        values = ctx.txn.user_slots(ctx.session.user_id)
    return values


def prefill(ctx: TurnContext, flow: FlowSpec, *, exclude: set[str], validator: Validator) -> dict[str, Any]:
    """Values of persisted slots for a new task: the more recent of session and user scope, and
    only values that pass the slot's rules (a value the rules now refuse is dropped and logged)."""
    out: dict[str, Any] = {}
    stored: dict[str, PersistedValue] | None = None
    for slot in flow.slots:
        if slot.persist == "none" or slot.name in exclude:
            continue
        best = ctx.session.session_slots.get(slot.name)
        if stored is None:
            stored = user_values(ctx)
        user_value = stored.get(slot.name)
        if user_value is not None and (best is None or user_value.at > best.at):
            best = user_value
        if best is None:
            continue
        if validate_slot(slot, best.value, ctx.language, validator) is not None:
            log.info("persisted_value_dropped", session_id=ctx.session.id, slot=slot.name)
            continue
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


def forget_persisted(ctx: TurnContext, name: str) -> bool:
    """Delete one persisted value (session scope, and this bot's user scope, and a value an older
    version stored under the bare user id); a prefilled copy in the active task goes too."""
    found = ctx.session.session_slots.pop(name, None) is not None
    keys = (ctx.user_key, ctx.session.user_id) if ctx.session.user_id is not None else ()
    for key in dict.fromkeys(keys):
        if name in ctx.txn.user_slots(key):
            ctx.txn.delete_user_slot(key, name)
            found = True
    task = ctx.session.task
    if task is not None and name in task.prefilled:
        task.prefilled.remove(name)
        task.slots.pop(name, None)
        task.slot_turns.pop(name, None)
        if task.state == "CONFIRMATION":
            task.state = "PARAM_COLLECT"       # the confirmation named that value: ask again
    return found
