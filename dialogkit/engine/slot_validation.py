"""Validating a turn's slot offer with the bot file's rules: the processor's check before it writes.

A value a slot's rule refuses is dropped with the rule's message, unless another slot of the
task takes it whole ("把它改成18000000000": a phone number, not a tracking number); a question
between values the slot refuses is no question; a value said after another slot's label is
refused by that slot. Each change is credited in ``reply.explain``.
"""

from __future__ import annotations

from typing import Any

from dialogkit.engine import choices as choice_lists
from dialogkit.engine import explaining, labelled_values, slot_writes
from dialogkit.engine.rules.base import Bot
from dialogkit.engine.rules.slot_offers import options_of
from dialogkit.engine.slots import SlotOffer, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import SlotSpec

__all__ = ["fits", "labelled_elsewhere", "outside_choices", "validated"]


def validated(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
    """Drop invalid values from the offer; return (slot, message) for each refusal."""
    assert ctx.flow is not None
    errors = labelled_elsewhere(bot, ctx, offer)
    for name, value in list(offer.values.items()):
        slot = ctx.flow.spec.slot(name)
        if slot is None:
            continue
        message = validate_slot(slot, value, ctx.language, bot.actions.validate)
        if message and not fits_elsewhere(bot, ctx, offer, slot):
            errors.append((name, message))
            explaining.refused(ctx, name, message, offer.surfaces.get(name))
            del offer.values[name]
            if rejects_held(ctx, name, value):
                slot_writes.drop_rejected(ctx, name)
    for name, mentions in list(offer.conflicts.items()):
        errors += valid_candidates(bot, ctx, offer, name, mentions)
    return errors


@explaining.offer_step("valid_candidates")

def valid_candidates(bot: Bot, ctx: TurnContext, offer: SlotOffer, name: str,
                      mentions: list[Mention]) -> list[tuple[str, str]]:
    """"20个人还是30个人" with at most 12: no question between values the slot refuses. Those
    that pass stay a question (or, one left, the value); none left is the rule's message."""
    assert ctx.flow is not None
    slot = ctx.flow.spec.slot(name)
    if slot is None:
        return []
    messages = [validate_slot(slot, m.value, ctx.language, bot.actions.validate) for m in mentions]
    kept = [m for m, message in zip(mentions, messages, strict=True) if message is None]
    if len(kept) == len(mentions):
        return []
    del offer.conflicts[name]
    if len(kept) > 1:
        offer.conflicts[name] = kept
    elif kept:
        offer.values[name], offer.surfaces[name] = kept[0].value, kept[0].text
    return [] if kept else [(name, next(m for m in messages if m))]


@explaining.offer_step("fits_elsewhere")

def fits_elsewhere(bot: Bot, ctx: TurnContext, offer: SlotOffer, refused: SlotSpec) -> bool:
    """A value one slot refuses that another slot's type reads whole and whose rules it passes is
    that slot's ("把它改成18000000000" at a confirmation: eleven digits the tracking-number pattern
    takes and its rule refuses, a phone number to the phone slot). True when it moved there. An
    answer to the question asked stays that question's ("13812345678" asked for the tracking number
    gets the rule's message), unless it corrects ("把它改成14000000000" changes the phone held)."""
    assert ctx.flow is not None and ctx.task is not None
    if refused.name == ctx.task.pending_slot and not ctx.interp.cues & {"correction", "no"}:
        return False
    if refused.name in offer.labelled:
        return False     # "my order number is 12345": the words name the slot that refused it
    surface = offer.surfaces.get(refused.name, "")
    for slot in ctx.flow.spec.slots:
        if slot.entity in (None, refused.entity) or slot.name in offer.values or not surface:
            continue
        whole = _read_whole(bot, ctx, surface, slot.entity)
        if whole and validate_slot(slot, whole[0].value, ctx.language, bot.actions.validate) is None:
            del offer.values[refused.name]
            offer.values[slot.name], offer.surfaces[slot.name] = whole[0].value, surface
            return True
    return False


def _read_whole(bot: Bot, ctx: TurnContext, surface: str, entity: str) -> list[Mention]:
    """The value's words read whole as ``entity``: as the turn's reading read them where the turn
    says them (``read_as``), else (a referent's words, from an earlier turn) read now."""
    if surface in ctx.interp.text:
        return [m for m in ctx.interp.read_as((entity,)) if m.text == surface]
    return [m for m in bot.understanding.extract(surface, [entity]) if m.end - m.start == len(surface)]


def labelled_elsewhere(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
    """"my order number is 3": a value said after one slot's label that its type does not read is
    no other slot's (not the quantity 3); the labelled slot refuses it with its rule's message."""
    assert ctx.flow is not None
    errors: list[tuple[str, str]] = []
    for wrong in list(labelled_values.misplaced(offer, bot.layouts[ctx.flow.name], ctx.interp)):
        offer.values.pop(wrong.taken_by, None)
        message = validate_slot(wrong.labelled, wrong.text, ctx.language, bot.actions.validate)
        if message:      # (no rule to refuse it: the slot stays empty and is asked in its turn)
            errors.append((wrong.labelled.name, message))
    return errors


def rejects_held(ctx: TurnContext, name: str, value: Any) -> bool:
    """The turn says the slot's value is wrong ("不对" / "no" / "make it") and offers another."""
    held = ctx.task.slots.get(name) if ctx.task is not None else None
    return held is not None and str(held) != str(value) and bool(ctx.interp.cues & {"no", "correction"})


def fits(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> bool:
    """True when every offered value passes its slot's rules. (A value in doubt, shaped like a
    phone number, passes: writing it empties its slot instead, and ``_advance`` asks again.)"""
    assert ctx.flow is not None
    if offer.conflicts:
        return False
    for name, value in offer.values.items():
        slot = ctx.flow.spec.slot(name)
        if slot is not None and validate_slot(slot, value, ctx.language, bot.actions.validate):
            return False
    return True


@explaining.offer_step("outside_choices")
def outside_choices(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
    """Values a new task's first utterance offers for slots with choices: a choice it names is
    taken, any other value is dropped and refused like an invalid one."""
    assert ctx.flow is not None
    refused: list[tuple[str, str]] = []
    for slot in [s for s in ctx.flow.spec.slots if s.choices is not None and s.name in offer.values]:
        options = options_of(bot, ctx, slot)
        if not options:
            continue
        picked = choice_lists.pick(options, "", offer.values[slot.name])
        if picked is not None:
            offer.values[slot.name] = picked.value
            continue
        value = offer.surfaces.get(slot.name) or str(offer.values[slot.name])
        del offer.values[slot.name]
        refused.append((slot.name, choice_lists.outside(value, ctx.language)))
    return refused
