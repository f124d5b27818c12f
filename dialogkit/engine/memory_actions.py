"""Memory actions: the callables the compiler attaches to transitions, named in the YAML.

``resolve_references`` and ``track_entities`` run before the state change (an ambiguous
reference must stop the transition before anything changes); the others run after it. A
``module:function`` custom action receives the same ``TurnContext`` and runs after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from transitions import EventData

from dialogkit.spec.compiler import PhasedCallback
from dialogkit.memory import clarification, forgetting, summary, tracker
from dialogkit.model.session import PersistedValue, SlotChange
from dialogkit.engine.turn import ClarificationNeeded

if TYPE_CHECKING:
    from dialogkit.engine.turn import TurnContext

log = structlog.get_logger("dialogkit.memory")
MemoryAction = Callable[["TurnContext"], None]


def resolve_references(ctx: TurnContext) -> None:
    """Bind the turn's references to tracked entities, or stop the transition and ask."""
    resolution = ctx.resolution
    if resolution is None:
        return
    if resolution.ambiguity is not None:
        pending = clarification.make_pending(
            resolution.ambiguity,
            original_text=ctx.interp.text,
            language=ctx.language,
            turn=ctx.turn,
            kind="reference",
            flow=ctx.flow.name if ctx.flow else None,
        )
        raise ClarificationNeeded(pending)
    if ctx.flow is None:
        return
    for binding in resolution.bindings:
        entity = binding.entity
        for slot in ctx.flow.spec.slots:
            if slot.entity == entity.type and slot.name not in ctx.updates:
                current = ctx.task.slots.get(slot.name) if ctx.task else None
                if current is None or str(current) != str(entity.value):
                    ctx.updates[slot.name] = entity.value
                break
    ctx.resolved_text = resolution.resolved_text


def track_entities(ctx: TurnContext) -> None:
    """Record the turn's mentions (once per turn, whichever list asks first)."""
    if ctx.tracked:
        return
    ctx.tracked = True
    mentions = list(ctx.interp.mentions)
    if mentions:
        tracker.track_mentions(ctx.session, mentions, turn=ctx.turn)
        ctx.session.last_turn_added.setdefault("entity_turn", ctx.turn)


def summarize(ctx: TurnContext) -> None:
    """Update the ticket summary from this transition's events only."""
    bot, task = ctx.bot, ctx.task
    if task is None or ctx.flow is None:
        return
    spec = ctx.flow.spec
    desc_zh = bot.describe_flow(ctx.flow.name, "zh")
    desc_en = bot.describe_flow(ctx.flow.name, "en")
    trigger = ctx.trigger
    if trigger in ("start_task", "provide_param") and ctx.updates:
        slots: dict[str, tuple[str, str, str, str]] = {}
        for name, value in ctx.updates.items():
            slot = spec.slot(name)
            if slot is None or slot.sensitive:
                continue
            slots[name] = (
                bot.slot_label(slot, "zh"), bot.slot_label(slot, "en"),
                bot.value_label(slot, value, "zh"), bot.value_label(slot, value, "en"),
            )
        if slots:
            # Keyed by task, not flow: a second ticket adds its facts beside the first one's.
            summary.record_facts(ctx.session.summary, flow=f"{ctx.flow.name}#{task.id}", flow_description=desc_zh,
                                 flow_description_en=desc_en, slots=slots, turn=ctx.turn)
    elif trigger == "confirm":
        summary.record_confirmed(ctx.session.summary, key=f"{task.id}:confirmed",
                                 zh=desc_zh, en=desc_en, turn=ctx.turn)
        summary.record_pending(ctx.session.summary, key=f"{task.id}:run",
                               zh=f"执行{desc_zh}", en=f"run: {desc_en}", turn=ctx.turn)
    elif trigger == "complete":
        summary.resolve_pending(ctx.session.summary, f"{task.id}:run")
        done_zh = ctx.extra.get("said_zh") or f"已完成{desc_zh}"
        done_en = ctx.extra.get("said_en") or f"done: {desc_en}"
        summary.record_confirmed(ctx.session.summary, key=f"{task.id}:done", zh=done_zh, en=done_en, turn=ctx.turn)
        if spec.follow_up is not None:
            summary.record_pending(ctx.session.summary, key=f"{task.id}:follow_up",
                                   zh=bot.prompt_in(spec.follow_up, "zh"), en=bot.prompt_in(spec.follow_up, "en"),
                                   turn=ctx.turn)
    elif trigger == "fail":
        summary.resolve_pending(ctx.session.summary, f"{task.id}:run")
        summary.record_confirmed(ctx.session.summary, key=f"{task.id}:failed",
                                 zh=f"{desc_zh}失败", en=f"failed: {desc_en}", turn=ctx.turn)
    elif trigger == "cancel":
        summary.resolve_pending(ctx.session.summary, f"{task.id}:run")
        summary.record_confirmed(ctx.session.summary, key=f"{task.id}:cancelled",
                                 zh=f"已取消{desc_zh}", en=f"cancelled: {desc_en}", turn=ctx.turn)


def persist_slots(ctx: TurnContext) -> None:
    """Write ``persist: session|user`` slot values; a superseded value is kept as history."""
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None:
        return
    now = ctx.bot.clock()
    user_values = None
    for slot in flow.spec.slots:
        value = task.slots.get(slot.name)
        if slot.persist == "none" or value is None:
            continue
        if slot.persist == "session":
            ctx.session.session_slots[slot.name] = _superseding(ctx.session.session_slots.get(slot.name),
                                                                value, now, flow.name, ctx.turn)
        else:
            if user_values is None:
                user_values = ctx.txn.user_slots(ctx.session.user_id)
            record = _superseding(user_values.get(slot.name), value, now, flow.name, ctx.turn)
            ctx.txn.set_user_slot(ctx.session.user_id, slot.name, record)
            user_values[slot.name] = record


def _superseding(old: PersistedValue | None, value: Any, now: float, flow: str, turn: int) -> PersistedValue:
    history = list(old.history) if old else []
    if old is not None and str(old.value) != str(value):
        history.append(SlotChange(value=old.value, turn=turn, at=old.at, superseded_at=now))
    return PersistedValue(value=value, at=now, flow=flow, history=history[-20:])


def forget(ctx: TurnContext) -> None:
    """Drop a finished task's transient details; its summary and persisted values stay."""
    if ctx.task is not None:
        forgetting.forget_task_details(ctx.session, ctx.task)


def pin(ctx: TurnContext) -> None:
    """Pin the current user message so the context window never drops it."""
    for message in reversed(ctx.session.history):
        if message.role == "user" and message.turn == ctx.turn:
            message.pinned = True
            break


@dataclass(frozen=True, slots=True)
class MemoryActionDef:
    func: MemoryAction
    phase: str


BUILTINS: dict[str, MemoryActionDef] = {
    "resolve_references": MemoryActionDef(resolve_references, "before"),
    "track_entities": MemoryActionDef(track_entities, "before"),
    "summarize": MemoryActionDef(summarize, "after"),
    "persist_slots": MemoryActionDef(persist_slots, "after"),
    "forget": MemoryActionDef(forget, "after"),
    "pin": MemoryActionDef(pin, "after"),
}


def as_callback(name: str, func: MemoryAction, phase: str) -> PhasedCallback:
    """Wrap a memory action for ``transitions``: it receives the turn from the event's kwargs."""

    def callback(event: EventData) -> None:
        ctx: TurnContext = event.kwargs["ctx"]
        ctx.memory_run.append(name)
        func(ctx)

    callback.__name__ = f"memory_{name.replace(':', '_').replace('.', '_')}"
    return PhasedCallback(name=name, func=callback, phase=phase)


def run_named(name: str, ctx: TurnContext, custom: dict[str, Callable[..., Any]]) -> None:
    """Run one memory action outside a transition (the bot's ``every_turn`` list)."""
    if name in BUILTINS:
        ctx.memory_run.append(name)
        BUILTINS[name].func(ctx)
    elif name in custom:
        ctx.memory_run.append(name)
        custom[name](ctx)


__all__ = ["BUILTINS", "ClarificationNeeded", "MemoryActionDef", "as_callback", "run_named"]
