"""Applying a request to forget: the last turn's values, or the values of the slots named.

Either way the task asks for the first required slot now empty, in its first wording: dropping
a value is no failed answer. What was forgotten and was needed undoes the confirmation.
"""

from __future__ import annotations

from dialogkit.engine import asking, memory_actions, slot_writes
from dialogkit.engine.processor import Processor, bind
from dialogkit.engine.turn import TurnContext
from dialogkit.text import phrases as R

__all__ = ["forget_last_turn", "forget_values"]


def forget_last_turn(p: Processor, ctx: TurnContext) -> None:
    """'刚才说的不算' / 'forget what I just said': take back the values the last turn wrote."""
    task = ctx.session.task
    written = [n for n, t in task.slot_turns.items() if t == ctx.turn - 1] if task is not None else []
    removed = slot_writes.forget_turn(ctx, ctx.turn - 1)
    ctx.explain("forget_turn", f"forgot the last turn: {', '.join(written) or 'nothing'}", ctx.interp.text)
    ctx.say.append(R.phrase("forgot" if removed else "nothing_to_forget", ctx.language))
    bind(p.flows, ctx)
    memory_actions.restate_facts(ctx, p.texts, written)     # the values given back, if any
    if ctx.task is not None:
        if ctx.task.state == "CONFIRMATION" and asking.missing(ctx):
            # What was forgotten was needed: the confirmation no longer holds, so ask again.
            ctx.fire("deny")
        ctx.task.pending_slot = None      # the next question is the first required slot now empty
    asking.reask(p, ctx)


def forget_values(p: Processor, ctx: TurnContext, names: list[str]) -> None:
    """'忘记我的订单号': delete those persisted values (this bot's, for this user); '忘记时间' /
    'forget the time': clear that slot of the active task."""
    bind(p.flows, ctx)
    persisted = [n for n in names if p.bot.persists(n)]
    held = [n for n in names if n not in persisted and ctx.flow is not None and ctx.flow.spec.slot(n)]
    forgotten = [name for name in persisted if slot_writes.forget_persisted(ctx, name)]
    ctx.explain("forget_value", f"forgot {', '.join(names)}", ctx.interp.text.strip())
    for name in names:
        slot_writes.clear_slot(ctx, name)
    if persisted:
        labels = _slot_labels(p, forgotten or persisted, ctx.language)
        ctx.say.append(R.phrase("forgot_value" if forgotten else "no_value_to_forget", ctx.language, slots=labels))
    if held:
        ctx.say.append(R.phrase("cleared_value", ctx.language, slots=_slot_labels(p, held, ctx.language)))
    if ctx.task is not None:
        if ctx.task.state == "CONFIRMATION" and asking.missing(ctx):
            ctx.fire("deny")
        ctx.task.pending_slot = None
        ctx.task.reprompts = 0
        asking.reask(p, ctx)


def _slot_labels(p: Processor, names: list[str], language: str) -> str:
    return R.enumerate_items([_slot_label(p, n, language) for n in names], language)


def _slot_label(p: Processor, name: str, language: str) -> str:
    slot = next((s for f in p.flows.values() if (s := f.spec.slot(name)) is not None), None)
    return p.texts.slot_label(slot, language) or name
