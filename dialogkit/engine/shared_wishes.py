"""A digression's values that are the waiting task's wishes: "italian food, and their phone
number?" while a search asks for the area, "川菜的话，电话是多少？" while it asks for the price.

The question about a result (the phone number) suspends the search, and its flow accepts the
values to say which result is meant. The search needs them: a slot it requires takes each one,
where the question's own slot only accepts it. So the words are a new wish for the search as
well, and the search keeps them while it waits (a value it held is replaced). A flow that needs
the value itself ("查一下订单67890的状态" while a repair waits for its product: the status check
requires the order) is about a thing of its own, and the waiting task keeps what it holds.

No preference said before the question ("无所谓，电话是多少？" / "I don't care. What's their
number?") is the waiting task's answer too, as it would be with no question after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dialogkit.engine.rules.base import Bot
from dialogkit.engine.slots import SlotOffer, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.model.session import Task
from dialogkit.spec.schema import FlowSpec, SlotSpec

__all__ = ["keep_wishes", "wishes_for_waiting"]


def wishes_for_waiting(waiting: FlowSpec, asking: FlowSpec, offer: SlotOffer,
                       valid: Callable[[SlotSpec, Any], bool]) -> dict[str, Any]:
    """The values of ``offer`` (the digression ``asking``'s) that ``waiting`` needs as its wishes:
    a slot of the same name and type, required there and optional in ``asking``."""
    wishes: dict[str, Any] = {}
    for name, value in offer.values.items():
        own, theirs = waiting.slot(name), asking.slot(name)
        if own is None or theirs is None or own.entity is None or own.entity != theirs.entity:
            continue
        if own.required and not theirs.required and name not in offer.conflicts and valid(own, value):
            wishes[name] = value
    return wishes


def keep_wishes(bot: Bot, ctx: TurnContext, waiting: Task, offer: SlotOffer) -> None:
    """Write into the task that waits below the digression just started (``ctx.flow``) the
    wishes it needs from the digression's offer and its no-preference answers, each credited in
    ``reply.explain``."""
    assert ctx.flow is not None
    spec = bot.flows[waiting.flow].spec
    wishes = wishes_for_waiting(spec, ctx.flow.spec, offer, lambda slot, value: validate_slot(
        slot, value, ctx.language, bot.actions.validate) is None)
    wishes.update(_no_preference(bot, ctx, spec, waiting, offer))
    for name, value in wishes.items():
        if str(waiting.slots.get(name)) == str(value):
            continue
        waiting.slots[name] = value
        waiting.slot_turns[name] = ctx.turn
        ctx.explain("digression", f"kept {name} = {value} for {waiting.flow}", offer.surfaces.get(name))


def _no_preference(bot: Bot, ctx: TurnContext, spec: FlowSpec, waiting: Task, offer: SlotOffer) -> dict[str, Any]:
    """The waiting task's no-preference answers in a digression's words: the slots they name
    ("I don't care about the price. What's their number?"), whichever question is asked, else
    ("I don't care. What's their number?", "No. What's their number?") the slot asked; never a slot
    the words give a value ("the area doesn't matter, but the north, I suppose")."""
    def any_of(slot: SlotSpec | None) -> dict[str, Any]:
        no_preference = bot.texts.spec.any_value(slot)
        return {slot.name: no_preference} if slot is not None and no_preference is not None else {}

    named = [spec.slot(name) for name in bot.named_any.slots_in(ctx.interp.text)]
    if named:
        return {k: v for slot in named for k, v in any_of(slot).items() if k not in offer.values}
    asked = spec.slot(waiting.pending_slot) if waiting.pending_slot else None
    if asked is None or asked.name in offer.values:
        return {}
    # "No. What is their number?": an answer giving nothing, but not one before a new value offered
    # ("No. How about thai? ..."), which turns down what was said ("their" points at values held).
    new = any(str(waiting.slots.get(name)) != str(value) for name, value in offer.values.items())
    if "any" in ctx.interp.cues or (not new and ctx.interp.declines):
        return any_of(asked)
    return {}
