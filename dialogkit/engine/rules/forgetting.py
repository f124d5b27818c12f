"""Rules for forgetting: the last turn, or the values of slots named."""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine.commands import Command, Forget
from dialogkit.engine.rules.base import Seen

__all__ = ["forget_turn", "forget_value"]


def forget_turn(seen: Seen) -> Sequence[Command]:
    """"忘掉我刚才说的" / "forget what I just said": the last turn's values go."""
    if "forget" not in seen.cues:
        return []
    return [Forget(rule="forget_turn", words=seen.ctx.interp.text)]


def forget_value(seen: Seen) -> Sequence[Command]:
    """"忘记我的订单号" / "forget my order number": the persisted value goes; "忘记时间" / "forget the
    time" empties that slot of the active task. Words naming no slot kept or held forget nothing."""
    text = seen.ctx.interp.text
    names = seen.bot.forget_value.slots_in(text)
    if not names:
        return []
    flow = seen.flow
    persisted = [n for n in names if seen.bot.persists(n)]
    held = [n for n in names if n not in persisted and flow is not None and flow.spec.slot(n)]
    if not persisted and not held:
        return []
    return [Forget(rule="forget_value", words=text.strip(), slots=tuple(names))]
