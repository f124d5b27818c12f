"""Asking: the next question of a task, a failed answer's re-ask, and the bot's own questions.

After every change to a task the processor asks what comes next: the first missing slot, the
confirmation, or nothing (the task runs). A failed answer says why and asks the same question
again, at most ``max_reprompts`` times. A clarification ("哪一个？" / "which one?") is the bot's
own question, pending in the session until answered.
"""

from __future__ import annotations

from typing import Any

from dialogkit.engine import choices as choice_lists
from dialogkit.engine import conditional_slots
from dialogkit.engine.processor import Processor
from dialogkit.engine.rules import slot_offers
from dialogkit.engine.slots import SlotOffer
from dialogkit.engine.turn import TurnContext
from dialogkit.memory import clarification as clar
from dialogkit.memory import tracker
from dialogkit.model.session import Candidate, PendingClarification
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import SlotSpec
from dialogkit.text import phrases as R

__all__ = ["MAX_OPTIONS", "advance", "ask", "ask_clarification", "ask_conflict", "failure", "missing", "reask"]

# A slot of a closed set of values offers them as quick replies when there are at most this many.
MAX_OPTIONS = 8


def missing(ctx: TurnContext) -> list[Any]:
    """The active task's required slots still empty, in the order they are asked."""
    assert ctx.task is not None and ctx.flow is not None
    return conditional_slots.missing(ctx.flow, ctx.task.slots)


def advance(p: Processor, ctx: TurnContext) -> None:
    """Ask for the next missing slot, or move on to confirmation / execution."""
    task, flow = ctx.task, ctx.flow
    assert task is not None and flow is not None
    conditional_slots.drop_unneeded(flow, task.slots)   # a correction may have made a slot unneeded
    needed = missing(ctx)
    if needed:
        if task.state == "CONFIRMATION":     # a correction made a conditional slot needed
            ctx.fire("deny")
        slot = _said_impossible(ctx, needed) or needed[0]
        task.pending_slot = slot.name
        ask(p, ctx, flow, slot)
        return
    task.pending_slot = None
    if flow.spec.confirm is not None:
        if task.state == "PARAM_COLLECT":
            ctx.fire("request_confirmation")
        ctx.say.append(p.texts.confirm(flow.name, task.slots, ctx.language))
        ctx.options = p.texts.yes_no(ctx.language)
        return
    ctx.fire("execute")
    p.execute(ctx)


def _said_impossible(ctx: TurnContext, missing: list[SlotSpec]) -> SlotSpec | None:
    """"运单SF…改到2月30日下午送" / "… to Feb 30": the other values are taken, and the reply says
    there is no such date before asking for the date, rather than asking as if none was said."""
    for rejected in ctx.interp.rejected:
        slot = next((s for s in missing if s.entity == rejected.type), None)
        if slot is not None:
            key = "impossible_date" if rejected.type == "date" else "impossible_time"
            ctx.say.append(R.as_sentence(R.phrase(key, ctx.language, text=rejected.text), ctx.language))
            return slot
    return None


def ask(p: Processor, ctx: TurnContext, flow: CompiledFlow, slot: SlotSpec) -> None:
    """Ask for ``slot``; a slot of a closed set of values offers them as quick replies."""
    task = ctx.session.task
    assert task is not None
    asked = conditional_slots.prompt_variant(slot, task.reprompts)
    question = p.texts.ask(flow.spec, asked, ctx.language, task.slots)
    options = slot_offers.options_of(p.bot, ctx, slot) if slot.choices is not None else None
    if options:
        ctx.say.append(choice_lists.listed(question, options, ctx.language))
        ctx.options = [c.label(ctx.language) for c in options]
        tracker.remember_offered(ctx.session, slot.entity or slot.name, [c.value for c in options], turn=ctx.turn)
        return
    ctx.say.append(question)
    entity = p.texts.spec.entities.get(slot.entity) if slot.entity else None
    if entity is not None and entity.values and len(entity.values) <= MAX_OPTIONS:
        ctx.options = [p.texts.value_label(slot, value, ctx.language) for value in entity.values]


def failure(p: Processor, ctx: TurnContext, message: str | None, slot: str | None = None) -> None:
    """A failed answer: re-ask, at most ``max_reprompts`` times, then give up. Words that answered
    a task a new bot file removed are no answer of the task resumed in its place: its question is
    asked again as it was, first wording included."""
    task = ctx.task
    assert task is not None
    ctx.explain("not_understood" if message is None else "reask", message or "asked again")
    if not ctx.meant_for_removed_task:
        task.reprompts += 1
    if task.reprompts > p.settings.max_reprompts:
        p.give_up(ctx, message)
        return
    if message:
        ctx.say.append(R.as_sentence(message, ctx.language))
    if slot:
        task.pending_slot = slot
    reask(p, ctx)


def reask(p: Processor, ctx: TurnContext) -> None:
    """Say the pending question again (the confirmation, the slot's question, or the clarification)."""
    task, flow = ctx.session.task, (p.flows[ctx.session.flow] if ctx.session.flow else None)
    if task is None or flow is None:
        if ctx.session.pending is not None:
            ctx.say.append(clar.clarification_question(ctx.session.pending.candidates, ctx.language,
                                                       texts=p.texts))
        return
    if task.state == "CONFIRMATION":
        ctx.say.append(p.texts.confirm(flow.name, task.slots, ctx.language))
        ctx.options = p.texts.yes_no(ctx.language)
        return
    slot = flow.spec.slot(task.pending_slot) if task.pending_slot else None
    if slot is None:
        needed = conditional_slots.missing(flow, task.slots)
        slot = needed[0] if needed else None
    if slot is not None:
        task.pending_slot = slot.name
        ask(p, ctx, flow, slot)
    else:
        ctx.say.append(R.phrase("ask_what_to_change", ctx.language))


def ask_conflict(p: Processor, ctx: TurnContext, offer: SlotOffer) -> None:
    """Two values offered for one slot: ask which is meant (the words are quoted in the question's
    record, never read again)."""
    slot_name, mentions = next(iter(offer.conflicts.items()))
    flow = ctx.flow
    assert flow is not None
    slot = flow.spec.slot(slot_name)
    candidates = [
        Candidate(value=m.value, type=m.type, label=p.texts.value_label(slot, m.value, ctx.language))
        for m in mentions
    ]
    pending = PendingClarification(
        kind="slot_value", candidates=candidates, original_text=ctx.interp.text, slot=slot_name,
        flow=flow.name, language=ctx.language, turn=ctx.turn,
    )
    ask_clarification(p, ctx, pending)


def ask_clarification(p: Processor, ctx: TurnContext, pending: PendingClarification) -> None:
    """Ask the bot's own question and keep it pending in the session until it is answered."""
    ctx.session.pending = pending
    ctx.clarification = pending
    ctx.say.append(clar.clarification_question(pending.candidates, ctx.language, texts=p.texts))
    ctx.options = clar.option_labels(pending.candidates, ctx.language, p.texts)
    ctx.explain("clarify", f"asked which {pending.slot or 'one'} is meant: {' / '.join(ctx.options)}")
