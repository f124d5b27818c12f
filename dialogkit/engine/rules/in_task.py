"""Rules for a turn inside a task: a digression, an aside, an FAQ, the slot values, and the
answer to a confirmation.

The slot offer is read once per turn and narrowed in two phases (``_early`` then ``_final``);
each rule reads the phase its decision has always been made on. The offer's steps live in
``slot_offers``.
"""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine import explaining
from dialogkit.engine.commands import (
    AnswerFaq,
    Command,
    Confirm,
    Deny,
    Farewell,
    Help,
    NotUnderstood,
    SetSlots,
    StartFlow,
)
from dialogkit.engine.rules import slot_offers as steps
from dialogkit.engine.rules import surroundings
from dialogkit.engine.rules.base import Seen
from dialogkit.engine.rules.shapes import NUMERIC
from dialogkit.engine.slots import SlotOffer
from dialogkit.logging import get_logger
from dialogkit.understanding.cues import is_question

__all__ = [
    "aside",
    "confirm",
    "correction",
    "deny",
    "digression",
    "faq",
    "farewell",
    "for_waiting_task",
    "not_answered",
    "slot_values",
]

log = get_logger("dialogkit.policy")

DIGRESSION_MARGIN = 0.1
"""A different flow's intent must beat the active flow by this margin to count as a digression,"""
DIGRESSION_OVER_ANSWER = 0.75
"""and must be this sure when the same utterance also answers the pending question."""


def _confirming(seen: Seen) -> bool:
    return seen.confirming


def _early(seen: Seen) -> SlotOffer:
    """The offer as a digression or an FAQ reads it: a slot with choices named by a correction,
    and (collecting) a value's label said alone."""
    offer = seen.offers.get("early")
    if offer is None:
        ctx, bot = seen.ctx, seen.bot
        offer = seen.offers["early"] = steps.slot_offer(bot, ctx, free_text=not _confirming(seen))
        steps.choice_by_name(bot, ctx, offer)
        if not _confirming(seen) and steps.label_answer(bot, ctx, offer):
            seen.offers["label_answer"] = offer
    return offer


def _final(seen: Seen) -> tuple[SlotOffer, str | None]:
    """The offer as it is written, and the refusal of a value outside a slot's choices."""
    offer = _early(seen)
    if "final" not in seen.offers:
        ctx, bot = seen.ctx, seen.bot
        if _confirming(seen):
            steps.keep_filled_slots(bot, ctx, offer)
        else:
            steps.keep_to_asked_slot(bot, ctx, offer)
            steps.keep_filled_slots(bot, ctx, offer)
            steps.any_answer(bot, ctx, offer)
            steps.yes_no_reply(bot, ctx, offer)
            seen.refusal = steps.choose(bot, ctx, offer)
        seen.offers["final"] = offer
    return offer, seen.refusal


def digression(seen: Seen) -> Sequence[Command]:
    """"先帮我查一下订单" / "actually, check my order first" while a task asks: the other flow
    starts, and this one waits below it."""
    offer = _early(seen)
    if "label_answer" in seen.offers:
        return []     # a value's label said alone ("商品损坏") answers, though a trigger's keyword is in it
    flow = _digresses_to(seen, offer)
    return [StartFlow(rule="digression", words=seen.ctx.interp.text.strip(), flow=flow)] if flow else []


def aside(seen: Seen) -> Sequence[Command]:
    """A request for help, or for the other options ("还有别的吗"), inside a task: answered, and the
    pending question asked again with the task's values kept (no failed answer)."""
    offer = _final(seen)[0] if _confirming(seen) else _early(seen)
    cues = seen.cues
    if not offer.empty or not cues & {"help", "alternatives"} or "any" in cues:
        return []
    if seen.faq_hit() is not None:
        return []          # "出国怎么用手机" asks the roaming FAQ, not how to use the bot
    return [Help(rule="help" if "help" in cues else "alternatives", words=explaining.cue_words(seen.ctx))]


def faq(seen: Seen) -> Sequence[Command]:
    """An FAQ's own words are its question, whatever they offer ("我这里有5G吗", "is there 5G
    coverage": no 5 GB); a free-text answer is one only when it asks ("服务台几点下班"), not when
    it states ("it crashes when I open Excel"). At a confirmation, a yes or no is never an FAQ."""
    text = seen.ctx.interp.text
    if _confirming(seen):
        if _news(seen, _final(seen)[0]) or seen.cues & {"yes", "no"}:
            return []
    else:
        offer, index = _early(seen), seen.bot.faq
        shaped = (not _news(seen, offer) or index.says(text) or index.names_all(text, offer.surfaces.values())
                  or (_whole_text_answer(seen, offer) and is_question(text)))
        if not shaped:
            return []
    entry = seen.faq_entry()
    return [AnswerFaq(rule="faq", words=text.strip(), entry=entry)] if entry else []


def farewell(seen: Seen) -> Sequence[Command]:
    """"再见" / "thanks, bye" while a question is pending: said goodbye to, and the task stays with
    its question (no failed answer). Beside a value, or a yes or a no to the confirmation, the turn
    answers instead ("ok, bye" asking a value is still goodbye)."""
    if not _final(seen)[0].empty or seen.refusal is not None:
        return []       # (read first: an answer's offer is read for the slot values anyway)
    if not seen.ctx.interp.farewell or (seen.confirming and seen.cues & {"yes", "no", "correction"}):
        return []
    return [Farewell(rule="farewell_in_task", words=explaining.cue_words(seen.ctx))]


def slot_values(seen: Seen) -> Sequence[Command]:
    """What the answer gives the task's slots (possibly nothing), or the refusal of a value
    outside the choices listed."""
    offer, refusal = _final(seen)
    if refusal is not None:
        return [NotUnderstood(rule="choose", words=seen.ctx.interp.text.strip(), message=refusal)]
    message = steps.rule_message(seen.bot, seen.ctx) if offer.empty else None
    return [SetSlots(rule="slot_offer", offer=offer, message=message)]


def for_waiting_task(seen: Seen) -> Sequence[Command]:
    """"2026-03-02开始，请3天" / "starting 2026-03-02 for 3 days" while a digression (the leave
    balance) asks for an employee ID: no value of the question asked, but values of the task that
    waits below (the leave request). They are kept for it, and the question is asked again. A bare
    number, or an answer that breaks the asked slot's rule, stays this question's failed answer."""
    if len(seen.ctx.session.stack) < 2:
        return []
    offer, refusal = _final(seen)
    interp = seen.ctx.interp
    if not offer.empty or refusal is not None or not interp.mentions or {m.type for m in interp.mentions} <= NUMERIC:
        return []
    if steps.rule_message(seen.bot, seen.ctx) is not None:
        return []
    waiting = steps.waiting_offer(seen.bot, seen.ctx)
    if waiting is None:
        return []
    task, values = waiting
    return [SetSlots(rule="for_waiting_task", words=interp.text.strip(), offer=values, task=task.id)]


def correction(seen: Seen) -> Sequence[Command]:
    """"不对，是耳机" / "no, 67890" at the confirmation: the new values are written and confirmed
    again (a pronoun pointing at a value held changes nothing)."""
    offer = _final(seen)[0]
    return [SetSlots(rule="correction", offer=offer)] if _news(seen, offer) else []


def confirm(seen: Seen) -> Sequence[Command]:
    """"好的" / "yes" to the confirmation: the action runs."""
    if "yes" in seen.cues and "no" not in seen.cues:
        return [Confirm(rule="confirm", words=explaining.cue_words(seen.ctx))]
    return []


def deny(seen: Seen) -> Sequence[Command]:
    """"不对" / "no" to the confirmation: ask what to change."""
    if seen.cues & {"no", "correction"}:
        return [Deny(rule="deny", words=explaining.cue_words(seen.ctx))]
    return []


def not_answered(seen: Seen) -> Sequence[Command]:
    """Nothing the confirmation can take: asked again (a failed answer)."""
    return [NotUnderstood(rule="not_understood", words=seen.ctx.interp.text.strip() or None)]


def _news(seen: Seen, offer: SlotOffer) -> bool:
    """Whether the offer changes anything: "do I need to return it with a full tank" offers the
    city "it" points at, which the task holds already, and is a question all the same."""
    held = seen.task.slots if seen.task is not None else {}
    return bool(offer.conflicts) or any(str(held.get(k)) != str(v) for k, v in offer.values.items())


def _whole_text_answer(seen: Seen, offer: SlotOffer) -> bool:
    """True when the offer is only the asked free-text slot taking the whole utterance: an FAQ
    question ("营业时间是什么") is then asked, not given as the slot's text."""
    task, flow = seen.task, seen.flow
    if task is None or flow is None or not task.pending_slot:
        return False
    asked = flow.spec.slot(task.pending_slot)
    return (asked is not None and asked.entity is None and not offer.conflicts and len(offer.values) == 1
            and offer.surfaces.get(asked.name) == seen.ctx.interp.text.strip())


def _digresses_to(seen: Seen, offer: SlotOffer) -> str | None:
    ctx, current = seen.ctx, seen.flow
    flow = seen.intent()
    if flow is None or current is None or flow == current.name:
        return None
    if seen.cues & {"correction", "no"} and offer.values and not _only_fits(seen, flow):
        return None      # "no, make it A10000" corrects this task; it starts no other
    if surroundings.thing_flow(seen) == current.name:
        return None      # "汉庭酒店周边有啥景点？" while a hotel is sought: about this task's kind of thing
    scores = {s.flow: s.score for s in ctx.interp.intents}
    own, top = scores.get(current.name, 0.0), scores[flow]
    if top < own + DIGRESSION_MARGIN:
        return None
    pending = seen.task.pending_slot if seen.task else None
    if pending and pending in offer.values and top < DIGRESSION_OVER_ANSWER and not _only_fits(seen, flow):
        return None
    if any(t.flow == flow for t in ctx.session.stack) or _faq_outranks(seen, top):
        return None
    log.info("digression", session_id=ctx.session.id, suspended=current.name, started=flow)
    return flow


def _faq_outranks(seen: Seen, score: float) -> bool:
    """"派送时间" asks the FAQ it is a keyword of, though a flow's example holds it too ("我想改一下
    派送时间"): the FAQ, answered later in the turn, wins a tie as it does outside a task."""
    hit = seen.faq_hit()
    return hit is not None and hit[1] >= score


def _only_fits(seen: Seen, flow_name: str) -> bool:
    """The turn brings a value only the other flow has a slot for ("先帮我把尾号1234的卡额度提高到
    8000" while a card is asked, the 8000): a request for that flow, though it answers too. Words
    this task reads as one of its own values ("坏了": a return reason here, an issue type there)
    are this task's."""
    current = seen.flow
    assert current is not None
    own = {s.entity for s in current.spec.slots if s.entity is not None}
    other = {s.entity for s in seen.bot.flows[flow_name].spec.slots} - own
    interp = seen.ctx.interp
    theirs = [m for m in interp.mentions if m.type in other]
    if not theirs:
        return False
    ours = interp.read_as(own)
    return any(not any(o.start < m.end and m.start < o.end for o in ours) for m in theirs)
