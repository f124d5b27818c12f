"""A value that fits a built-in type better than the slot it was offered to is asked about first.

An order-id slot whose pattern is "5 to 12 digits" also takes an 11-digit mobile number
(13812345678), and the bot would then echo a phone number as the order in its confirmation. When a
value offered to a slot of another type has the exact shape of a mobile number or an e-mail
address, the slot is not filled silently: the bot says what the value looks like and asks for the
slot again. A value read through a typo ("lattee" for latte, ``fuzzy:`` on its type) is asked
about the same way. The same value given again right after is taken: the user means it.
"""

from __future__ import annotations

import re
from typing import Any

from dialogkit.engine.turn import TurnContext
from dialogkit.spec.schema import SlotSpec
from dialogkit.strings.redaction import EMAIL
from dialogkit.text.labels import slot_name_label
from dialogkit.text.phrases import phrase

__all__ = ["doubt", "doubted", "typo_doubt"]

# A mobile number only: the log-masking PHONE also takes ten plain digits, a common order-id shape.
_MOBILE = re.compile(r"(?:\+?86[\s-]?)?1[3-9]\d{9}")
_SHAPES = {"phone": _MOBILE, "email": EMAIL}


def doubt(slot: SlotSpec, value: Any, language: str) -> str | None:
    """What the bot says when ``value`` offered to ``slot`` is shaped like another type; None when
    it is not (or the slot is of no type, or of that very type). Checkers of conversations use it too."""
    if slot.entity in (None, *_SHAPES):
        return None
    text = str(value).strip()
    # An address holds an "@", a number none: each value is tried against the one shape it may have.
    shape, kind = (EMAIL, "email") if "@" in text else (_MOBILE, "phone")
    if shape.fullmatch(text) is None:
        return None
    return phrase("looks_like_another_type", language, value=text, kind=phrase(f"kind_{kind}", language),
                  label=slot_name_label(slot, language))


def typo_doubt(ctx: TurnContext, entity: str | None, value: Any) -> str | None:
    """What the bot says when ``value`` was read through a typo ("lattee" for latte, ``fuzzy:`` on
    its type); None when it was said as written."""
    typo = next((m for m in ctx.interp.mentions
                 if m.fuzzy and m.type == entity and str(m.value) == str(value)), None)
    if typo is None:
        return None
    return phrase("typo_doubt", ctx.language, said=typo.text, value=value)


def doubted(ctx: TurnContext, name: str, value: Any) -> bool:
    """Whether ``value`` must not fill slot ``name`` this turn (the reason is added to ``ctx.say``)."""
    task, flow = ctx.task, ctx.flow
    slot = flow.spec.slot(name) if flow is not None else None
    if task is None or slot is None or name in ctx.prefilled:
        return False
    said = doubt(slot, value, ctx.language) or typo_doubt(ctx, slot.entity, value)
    text = str(value).strip()
    if said is None or task.doubted.pop(name, None) == text:
        return False
    task.doubted[name] = text
    ctx.say.append(said)
    return True

