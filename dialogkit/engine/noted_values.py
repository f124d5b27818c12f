"""Values offered with no request, taken by the flow that the next turn starts.

"Indian in the north" / "北边的川菜" asks for nothing, so it is only noted (a mention is not a
request). When the very next turn asks ("any phone numbers?" / "帮我找一家"), the flow it starts
should not ask again for what was just said. Only that next turn takes them: later, the values
may no longer be meant, and a reference can still reach them through entity memory.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from dialogkit.engine.commands import Note
from dialogkit.engine.slots import Validator, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.model.session import Noted
from dialogkit.spec.schema import FlowSpec, SlotSpec

__all__ = ["remember", "taken"]


def remember(ctx: TurnContext, note: Note) -> None:
    """Keep what this turn noted, for the next turn's flow. A question ("有吹风机吗？" / "any with
    wifi?") asks about its values and offers none: it keeps nothing. Nor is a value read through a
    typo ("lattee") kept: taken on the next turn it would be written without the question a typo
    always gets."""
    if note.asked:
        return
    values = list(dict.fromkeys((m.type, m.value) for m in note.mentions if not m.fuzzy))
    if values:
        ctx.session.noted = Noted(turn=ctx.turn, values=values)


def taken(ctx: TurnContext, flow: FlowSpec, *, exclude: set[str], validator: Validator) -> dict[str, Any]:
    """The values noted the turn before for the slots of ``flow`` that this turn's words leave
    open: a type that two slots take, or a slot that takes one value and was offered two, is
    left to be asked; a value the slot's rules refuse is dropped."""
    noted = ctx.session.noted
    if noted is None or noted.turn != ctx.turn - 1:
        return {}
    by_type: dict[str, list[Any]] = {}
    for type_, value in noted.values:
        by_type.setdefault(type_, []).append(value)
    takers = Counter(slot.entity for slot in flow.slots)
    out: dict[str, Any] = {}
    for slot in flow.slots:
        if slot.name in exclude or slot.entity is None or takers[slot.entity] > 1:
            continue
        value = _one(slot, by_type.get(slot.entity))
        if value is not None and validate_slot(slot, value, ctx.language, validator) is None:
            out[slot.name] = value
    return out


def _one(slot: SlotSpec, values: list[Any] | None) -> Any:
    if not values:
        return None
    if slot.is_list:
        return values
    return values[0] if len(values) == 1 else None
