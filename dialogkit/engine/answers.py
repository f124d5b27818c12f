"""Taking an answer: the values it offers, validated with the bot file's rules and written.

An answer that gives the task nothing valid is a failed answer (``asking.failure``), with the
rule it breaks when it breaks one. Values for a task waiting on the stack are kept for it
without a question; new values at the confirmation change what is confirmed.
"""

from __future__ import annotations

from typing import Any

from dialogkit.engine import asking, conditional_slots, explaining, slot_validation, slot_writes
from dialogkit.engine.commands import Confirm, SetSlots
from dialogkit.engine.doubtful_values import doubt, typo_doubt
from dialogkit.engine.processor import Processor
from dialogkit.engine.slots import SlotOffer, validate_slot
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.spec.schema import SlotSpec
from dialogkit.text import phrases as R

__all__ = ["apply_offer", "correct", "impossible_value", "in_doubt", "keep_for_waiting", "take"]


def take(p: Processor, ctx: TurnContext, offer: SlotOffer, broken_rule: str | None) -> None:
    """Write what the answer gives; an answer that gives nothing is a failed answer, with the
    rule it breaks when it breaks one."""
    if not apply_offer(p, ctx, offer):
        return
    if offer.empty and impossible_value(p, ctx):
        return
    if offer.empty and not asking.missing(ctx):
        assert ctx.flow is not None
        said_yes = "yes" in ctx.interp.cues or any(isinstance(c, Confirm) for c in ctx.proposed)
        if said_yes and ctx.flow.spec.confirm is not None:
            asking.advance(p, ctx)
            return
        asking.failure(p, ctx, None)
        return
    if offer.empty:
        asking.failure(p, ctx, broken_rule)
        return
    asking.advance(p, ctx)


def keep_for_waiting(p: Processor, ctx: TurnContext, command: SetSlots) -> None:
    """Write values into a waiting task (those its slots' rules take), say what was kept, and
    ask the active question again (no failed answer). Nothing valid: a failed answer."""
    task = next(t for t in ctx.session.stack if t.id == command.task)
    flow = p.flows[task.flow]
    kept = {name: value for name, value in command.offer.values.items()
            if (slot := flow.spec.slot(name)) is not None and not in_doubt(ctx, slot, value)
            and validate_slot(slot, value, ctx.language, p.actions.validate) is None}
    if not kept:
        asking.failure(p, ctx, None)
        return
    for name, value in kept.items():
        task.slots[name] = value
        task.slot_turns[name] = ctx.turn
    if task.pending_slot in kept:
        missing = conditional_slots.missing(flow, task.slots)
        task.pending_slot = missing[0].name if missing else None
    labels = [f"{p.texts.slot_label(flow.spec.slot(n), ctx.language)} "
              f"{p.texts.value_label(flow.spec.slot(n), v, ctx.language)}" for n, v in kept.items()]
    ctx.explain("for_waiting_task", f"kept {', '.join(kept)} for {flow.name}", command.words)
    ctx.say.append(R.phrase("noted", ctx.language, items=R.enumerate_items(labels, ctx.language)))
    asking.reask(p, ctx)


def in_doubt(ctx: TurnContext, slot: SlotSpec, value: Any) -> bool:
    """A value the active task would ask about before writing (shaped like a phone number, or
    read through a typo) is not kept for a waiting one, which cannot ask now."""
    return doubt(slot, value, ctx.language) is not None or typo_doubt(ctx, slot.entity, value) is not None


def correct(p: Processor, ctx: TurnContext, offer: SlotOffer) -> None:
    """New values at the confirmation. A rejection whose new value cannot be taken as it is
    (invalid, or two of them) denies first: the confirmed values no longer hold, so a later
    bare "yes" can never run the old ones."""
    if ctx.interp.cues & {"no", "correction"} and not slot_validation.fits(p.bot, ctx, offer):
        ctx.explain("deny", "denied, with a value that cannot be taken as it is", explaining.cue_words(ctx))
        ctx.fire("deny")
    if apply_offer(p, ctx, offer):
        asking.advance(p, ctx)


def apply_offer(p: Processor, ctx: TurnContext, offer: SlotOffer) -> bool:
    """Fire ``provide_param`` with the offer's valid values; False when the turn is answered already."""
    errors = slot_validation.validated(p.bot, ctx, offer)
    resolution = ctx.resolution
    if offer.values or (resolution is not None and (resolution.bindings or resolution.ambiguity is not None)):
        ctx.updates = dict(offer.values)
        written = explaining.slot_writes(ctx, ctx.updates, offer.surfaces)
        try:
            ctx.fire("provide_param")
        except ClarificationNeeded as question:
            asking.ask_clarification(p, ctx, question.pending)
            return False
        ctx.explained += written
        if ctx.updates:
            assert ctx.task is not None
            ctx.task.reprompts = 0
    if offer.conflicts:
        asking.ask_conflict(p, ctx, offer)
        return False
    if errors:
        asking.failure(p, ctx, errors[0][1], slot=errors[0][0])
        return False
    if ctx.updates:
        offer.values.update({k: v for k, v in ctx.updates.items() if k not in offer.values})
    return True


def impossible_value(p: Processor, ctx: TurnContext) -> bool:
    """"2025-13-45" / "25:00" for a date or time slot: say there is no such date, ask again."""
    assert ctx.flow is not None
    types = {s.entity for s in ctx.flow.spec.slots if s.entity}
    rejected = next((r for r in ctx.interp.rejected if r.type in types), None)
    if rejected is None:
        return False
    if ctx.interp.cues & {"no", "correction"}:
        # "no, make it 25:00": the time it was to replace is rejected all the same.
        for slot in ctx.flow.spec.slots:
            if slot.entity == rejected.type:
                slot_writes.drop_rejected(ctx, slot.name)
    key = "impossible_date" if rejected.type == "date" else "impossible_time"
    ctx.explain("impossible_value", f"refused {rejected.type}: no such {rejected.reason}", rejected.text)
    asking.failure(p, ctx, R.phrase(key, ctx.language, text=rejected.text))
    return True
