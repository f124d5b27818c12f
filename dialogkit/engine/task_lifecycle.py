"""A task's life: started (with the values its words give), cancelled, run, given up, resumed.

Starting a flow suspends the task in progress (it waits on the stack); ending one (completed,
failed, cancelled, given up) resumes the task below, or starts the flow ``execute.then`` names
with the values of the task just finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.engine import asking, explaining, noted_values, shared_wishes, slot_validation, slot_writes, task_runs
from dialogkit.engine.handoff import hand_to_person, take_over_message
from dialogkit.engine.processor import Processor
from dialogkit.engine.rules import proposed, slot_offers
from dialogkit.engine.slots import SlotOffer
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.memory.summary import STORED
from dialogkit.model.session import Task
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.text import phrases as R

__all__ = ["cancel", "end_task", "execute", "give_up", "resume", "start"]


def start(p: Processor, ctx: TurnContext, flow_name: str, carried: Mapping[str, Any] | None = None,
          by: str | None = None) -> None:
    """Start ``flow_name`` (``by`` the rule that asked); ``carried`` are values of a finished
    task handed on by ``then``. The words' values for the new task are written with the
    model's that stand beside them."""
    session = ctx.session
    if by == "llm":
        ctx.explain("llm", f"started {flow_name}")
    else:
        explaining.flow_chosen(ctx, p.flows[flow_name], carried is not None, by)
    task = Task(flow=flow_name, state="IDLE", started_turn=ctx.turn)
    ctx.task, ctx.flow = task, p.flows[flow_name]
    from_words = carried is None
    if from_words:
        offer = slot_offers.slot_offer(p.bot, ctx, free_text=False)
        if not slot_offers.named_no_preference(p.bot, ctx, offer):
            slot_offers.open_wish(p.bot, ctx, offer)
        proposed.merge(p.bot, ctx, offer)
    else:
        offer = SlotOffer()
    errors = slot_validation.validated(p.bot, ctx, offer) + slot_validation.outside_choices(p.bot, ctx, offer)
    carried = {s.name: carried[s.name] for s in ctx.flow.spec.slots if carried and carried.get(s.name) is not None}
    offered = set(offer.values) | set(offer.conflicts)
    prefilled = slot_writes.prefill(ctx, ctx.flow.spec, exclude=offered, validator=p.actions.validate)
    prefilled.update(carried)
    if from_words:
        prefilled.update(_noted(p, ctx, exclude=offered))
    ctx.updates = {**prefilled, **offer.values}
    ctx.prefilled = list(prefilled)      # prefill already skipped the slots the utterance offers
    written = explaining.slot_writes(ctx, ctx.updates, offer.surfaces, "then" if carried else "prefill")
    if by == "digression" and session.task is not None:      # the waiting task's wishes
        shared_wishes.keep_wishes(p.bot, ctx, session.task, offer)
    session.stack.append(task)
    try:
        ctx.fire("start_task")
    except ClarificationNeeded as question:
        session.stack.pop()
        ctx.task, ctx.flow = session.task, p.flows.get(session.flow) if session.flow else None
        asking.ask_clarification(p, ctx, question.pending)
        return
    task.prefilled = list(ctx.prefilled)
    ctx.explained += written
    ctx.fire("collect")
    if errors:
        ctx.say.append(errors[0][1])
        task.pending_slot = errors[0][0]
    if offer.conflicts:
        asking.ask_conflict(p, ctx, offer)
        return
    if ctx.prefilled and ctx.flow.spec.confirm is None:
        labels = [p.texts.slot_label(ctx.flow.spec.slot(n), ctx.language) for n in ctx.prefilled]
        names = R.enumerate_items(labels, ctx.language)
        ctx.say.append(R.phrase("prefilled", ctx.language, slots=names))
    asking.advance(p, ctx)


def _noted(p: Processor, ctx: TurnContext, exclude: set[str]) -> dict[str, Any]:
    """The values the turn before noted with no request, credited to that step."""
    assert ctx.flow is not None
    values = noted_values.taken(ctx, ctx.flow.spec, exclude=exclude, validator=p.actions.validate)
    ctx.value_rules.update(dict.fromkeys(values, "noted_before"))
    return values


def cancel(p: Processor, ctx: TurnContext) -> None:
    """Cancel the active task and say so."""
    assert ctx.task is not None and ctx.flow is not None
    cancelled = ctx.flow.name
    label = p.texts.task_label(cancelled, ctx.language)
    ctx.explain("cancel", f"cancelled {ctx.flow.name}", explaining.cue_words(ctx))
    ctx.fire("cancel")
    end_task(p, ctx, "cancel")
    ctx.say.append(R.phrase("cancelled", ctx.language, task=label))


def execute(p: Processor, ctx: TurnContext) -> None:
    """Run the task's action (at most once per task) and say how it went; a completed task
    whose flow names ``then`` (and whose ``when`` holds) starts that flow with its values."""
    assert ctx.task is not None and ctx.flow is not None
    finished, then = dict(ctx.task.slots), _then(p, ctx.flow, ctx.task.slots)
    result, error = task_runs.run_task_action(p.actions, ctx)
    if error is None:
        _completed(p, ctx, result)
    else:
        _failed(p, ctx, error)
    if error is None and then is not None and not any(t.flow == then for t in ctx.session.stack):
        start(p, ctx, then, carried=finished)
        return
    resume(p, ctx)


def _then(p: Processor, flow: CompiledFlow, slots: Mapping[str, Any]) -> str | None:
    then = flow.spec.execute.then
    if then is None or then not in p.flows:
        return None
    if flow.then_when is not None and not flow.then_when.holds(slots, [s.name for s in flow.spec.slots]):
        return None
    return then


def _outcome_values(p: Processor, ctx: TurnContext, result: Mapping[str, Any], language: str) -> dict[str, str]:
    """Slot values by their label in ``language`` ("张经理" / "Manager Zhang"), then what the
    action returned, shown as it came."""
    assert ctx.task is not None and ctx.flow is not None
    values = p.texts.template_values(ctx.flow.spec, ctx.task.slots, language)
    values.update((k, R.format_value(v)) for k, v in result.items())
    return values


def _completed(p: Processor, ctx: TurnContext, result: Mapping[str, Any]) -> None:
    assert ctx.flow is not None
    say = ctx.flow.spec.execute.say
    if say:
        # The summary keeps the task's outcome in the languages it stores; the reply is the turn's one.
        ctx.said = {lang: R.prompt(say, lang, _outcome_values(p, ctx, result, lang))
                    for lang in dict.fromkeys((ctx.language, *STORED))}
    ctx.fire("complete")
    end_task(p, ctx, "complete")
    ctx.say.append(ctx.said[ctx.language] if say else R.phrase("done", ctx.language))


def _failed(p: Processor, ctx: TurnContext, error: str) -> None:
    assert ctx.flow is not None
    on_error = ctx.flow.spec.execute.on_error
    values = _outcome_values(p, ctx, {}, ctx.language)
    values["error"] = error
    ctx.fire("fail")
    end_task(p, ctx, "fail")
    if on_error:
        ctx.say.append(R.prompt(on_error, ctx.language, values))
    else:
        ctx.say.append(R.phrase("action_failed", ctx.language, error=error))


def end_task(p: Processor, ctx: TurnContext, how: str) -> None:
    """Pop the active task off the stack; the one below (if any) is active again."""
    task = ctx.session.stack.pop()
    ctx.ended_task, ctx.ended_by = task, how
    if how in ("complete", "fail"):
        ctx.session.last_flow = task.flow
    ctx.task = ctx.session.task
    ctx.flow = p.flows[ctx.task.flow] if ctx.task else None


def resume(p: Processor, ctx: TurnContext) -> None:
    """Say that the task below goes on, and ask its question again; a question the digression
    answered for it ("I don't care. What's their number?") is not asked again: the task moves on."""
    task = ctx.task
    if task is None or ctx.flow is None:
        return
    ctx.say.append(R.phrase("resume", ctx.language, task=p.texts.task_label(ctx.flow.name, ctx.language)))
    if task.state == "PARAM_COLLECT" and task.pending_slot and task.slots.get(task.pending_slot) is not None:
        asking.advance(p, ctx)
        return
    asking.reask(p, ctx)


def give_up(p: Processor, ctx: TurnContext, error: str | None) -> None:
    """Too many failed answers: cancel the task, then start the bot's handoff flow, or run its
    handoff action, or say so and resume the task below."""
    assert ctx.task is not None and ctx.flow is not None
    label = p.texts.task_label(ctx.flow.name, ctx.language)
    flow, slots = ctx.flow, dict(ctx.task.slots)      # before cancel's memory actions erase secrets
    ctx.explain("give_up", f"gave up {flow.name}: asked {p.settings.max_reprompts + 1} times")
    ctx.fire("cancel")
    end_task(p, ctx, "cancel")
    handoff, to_person = p.settings.handoff, p.settings.handoff_action
    reason = error or R.phrase("give_up_default", ctx.language)
    if handoff:
        ctx.say.append(reason)
        start(p, ctx, handoff, by="handoff")
        return
    if to_person is not None and hand_to_person(p.actions, ctx, to_person, flow, slots):
        ctx.say.append(R.as_sentence(reason, ctx.language))
        ctx.say.append(take_over_message(ctx.language))
        return
    ctx.say.append(R.phrase("give_up", ctx.language, error=reason, task=label))
    resume(p, ctx)
