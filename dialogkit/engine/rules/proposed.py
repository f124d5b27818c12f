"""Rules that take the LLM's commands: what the model heard that the words' own reading misses.

The LLM layer checks the model's commands (real flows and slots, values the rules validate, a
confirm only where the words open with a yes: ``engine.grounding``) and leaves those that stand
on the turn, as the same commands the rules make (``ctx.proposed``, made by rule ``llm``): a
``StartFlow``, one ``SetSlots`` per value, a ``Confirm``, ``Deny`` or ``Cancel``. Nothing the model
said is in the words' reading. The rules here stand in the order next to the rules that read the
same thing in the words, so the words decide first wherever they say something: a flow they
clearly request, a value the user typed, an answer to the question asked, a no to the
confirmation. The model's values ride with whatever the turn decides for their task (``merge``):
where the words give a slot a valid value of their own, the words' value is written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dialogkit.engine.commands import Cancel, Command, Confirm, Deny, SetSlots, StartFlow
from dialogkit.engine.explaining import offer_step
from dialogkit.engine.rules import cancelling, in_task
from dialogkit.engine.rules.base import Bot, Seen
from dialogkit.engine.slots import SlotOffer, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import SlotSpec

__all__ = ["llm_answer", "llm_cancel", "llm_digression", "llm_start", "llm_values", "merge", "proposed", "standing"]


def proposed(seen: Seen, *kinds: type[Command]) -> Command | None:
    """The model's last command of one of ``kinds`` this turn (its last word: "confirm, no, deny" is a deny).
    With no LLM (most turns) the model said nothing: the rules that ask cost one look."""
    if not seen.ctx.proposed:
        return None
    return next((c for c in reversed(seen.ctx.proposed) if isinstance(c, kinds)), None)


def llm_cancel(seen: Seen) -> Sequence[Command]:
    """"这个先不弄了" / "let's leave it there": a cancel the model heard. Inside a task it ends the
    task, unless the words answer the question asked, as the cancel rule reads them ("停止" to
    "暂停还是停止？", "不用了" to a yes/no question); with no task there is nothing to cancel."""
    cancel = proposed(seen, Cancel)
    if cancel is None:
        return []
    flow = seen.flow
    if flow is not None and cancelling.answers_question(seen):
        return []
    return [cancel, *cancelling.instead(seen, flow.name if flow is not None else None)]


def llm_answer(seen: Seen) -> Sequence[Command]:
    """"好的，就这么办吧，麻烦你们了" / "sure, that is exactly what I need" to the confirmation: a yes
    the words open with (the rules' own yes allows less after it), heard by the model, runs the
    action. A model's deny asks what to change, whatever the words: it runs nothing. A model's
    confirm never stands against a no or a correction in the words: the deny rule reads those."""
    answer = proposed(seen, Confirm, Deny)
    if isinstance(answer, Confirm) and seen.cues & {"no", "correction"}:
        return []
    return [answer] if answer is not None else []


def llm_start(seen: Seen) -> Sequence[Command]:
    """"订单一二三四五有消息吗" / "any news on my order?": no trigger's words the rules are sure of,
    and the model heard a request for a flow: it starts (the values the model heard for it ride
    along, ``merge``), though the words resemble an FAQ question ("营业时间有变化吗"). Words that
    are an FAQ's own question ("你们几点开门" / "what are your opening hours") ask it."""
    start = proposed(seen, StartFlow)
    if start is None or seen.intent() is not None:
        return []
    faq = seen.bot.faq
    return [] if faq and faq.says(seen.ctx.interp.text) else [start]


def llm_digression(seen: Seen) -> Sequence[Command]:
    """"对了，顺便查一下另一个订单" / "oh, and check my other order too" while a task asks: the model
    heard a request for another flow, which starts while this task waits below it. Not the
    task's own flow, nor one waiting on the stack already, nor when the words answer or correct
    this task: a value's label said alone ("商品损坏"), a correction with values ("不对，是笔记本")."""
    start = proposed(seen, StartFlow)
    if not isinstance(start, StartFlow) or seen.flow is None or start.flow == seen.flow.name:
        return []
    if any(t.flow == start.flow for t in seen.ctx.session.stack) or "label_answer" in seen.offers:
        return []
    words = seen.offers.get("early")
    if seen.cues & {"correction", "no"} and words is not None and words.values:
        return []
    return [start]


def llm_values(seen: Seen) -> Sequence[Command]:
    """"订单号是一二三四五" / "the order is one two three four five" while a task asks: values the
    model heard for the task, where the words give those slots none and the task holds no such
    value. Collecting, the turn is an answer (the words' own values, then the model's, which the
    processor writes with them: ``merge``), not an aside, an FAQ or values for a task waiting
    below; a value outside the choices the words give stays refused. At the confirmation, the
    model's correction changes the task."""
    flow, task = seen.flow, seen.task
    if flow is None or task is None or not seen.ctx.proposed:
        return []
    words = seen.offers.get("final") or seen.offers.get("early") or SlotOffer()
    values = standing(seen.bot, seen.ctx, flow, words)
    for name in [n for n, v in values.values.items() if str(task.slots.get(n)) == str(v)]:
        del values.values[name]         # the value the task holds already: no news
        values.surfaces.pop(name, None)
    if not values.values:
        return []
    if task.state == "CONFIRMATION":
        offer = SlotOffer()
        _add(seen.bot, seen.ctx, offer, values)
        return [SetSlots(rule="llm", words=_words(values), offer=offer, flow=flow.name, correction=True)]
    heard = SetSlots(rule="llm", words=_words(values), offer=values, flow=flow.name)
    answer = in_task.slot_values(seen)
    return [*answer, heard] if answer and isinstance(answer[0], SetSlots) else []


def merge(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """Add to ``offer`` (the words' values for the bound task) the model's values that stand
    beside them (``standing``): the command-level merge of the model's ``SetSlots`` with the
    words'. Each value added is credited to ``llm`` in ``reply.explain``."""
    if ctx.flow is not None and ctx.proposed:
        _add(bot, ctx, offer, standing(bot, ctx, ctx.flow, offer))


@offer_step("llm")
def _add(bot: Bot, ctx: TurnContext, offer: SlotOffer, values: SlotOffer) -> None:
    offer.values.update(values.values)
    offer.surfaces.update(values.surfaces)


def standing(bot: Bot, ctx: TurnContext, flow: CompiledFlow, words: SlotOffer) -> SlotOffer:
    """The model's values for ``flow``'s slots that stand beside the words' offer ``words``.

    The words decide first: a slot the words give a valid value (or two values to choose from)
    keeps the words' reading; a value of the slot's type the user typed, other than the model's,
    wins over it; and a model's ``set_slot`` never changes a value the task holds (a change is a
    correction, the model's or one the words make)."""
    kept = SlotOffer()
    for command, name, value in _values(ctx, flow.name):
        slot = flow.spec.slot(name)
        if slot is None or name in words.conflicts or _given(bot, ctx, slot, words.values):
            continue
        if _typed_by_user(bot, ctx, slot, value) or _refills(ctx, flow.name, name, value, command.correction):
            continue
        kept.values[name] = value
        if (surface := command.offer.surfaces.get(name)) is not None:
            kept.surfaces[name] = surface
    return kept


def _values(ctx: TurnContext, flow: str) -> Iterator[tuple[SetSlots, str, Any]]:
    """The model's values this turn for ``flow`` (or for no flow in particular), in its order."""
    for command in ctx.proposed:
        if isinstance(command, SetSlots) and command.rule == "llm" and command.flow in (None, flow):
            for name, value in command.offer.values.items():
                yield command, name, value


def _given(bot: Bot, ctx: TurnContext, slot: SlotSpec, values: Mapping[str, Any]) -> bool:
    """Whether the words give ``slot`` a value its rules accept (an invalid one yields to the model's)."""
    return slot.name in values and validate_slot(slot, values[slot.name], ctx.language, bot.actions.validate) is None


def _typed_by_user(bot: Bot, ctx: TurnContext, slot: SlotSpec, value: Any) -> bool:
    """Whether the rules read, in the user's words, a valid value of ``slot``'s type other than ``value``."""
    if not slot.entity:
        return False
    return any(m.type == slot.entity and str(m.value) != str(value)
               and validate_slot(slot, m.value, ctx.language, bot.actions.validate) is None
               for m in ctx.interp.mentions)


def _refills(ctx: TurnContext, flow: str, name: str, value: Any, correction: bool) -> bool:
    """Whether a ``set_slot`` would change a value the task already holds, unasked: a change is a
    ``correct_slot`` (or a correction the rules heard), never a model repeating its own guess."""
    task = ctx.session.task
    if correction or task is None or task.flow != flow:
        return False
    held = task.slots.get(name)
    return held is not None and str(held) != str(value) and "correction" not in ctx.interp.cues


def _words(offer: SlotOffer) -> str | None:
    return ", ".join(offer.surfaces.values()) or None
