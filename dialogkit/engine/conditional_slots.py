"""Slots asked only under a condition (``ask_if``): which are needed now, and which to drop.

Worked out again whenever the task's values change, so a correction that flips a condition asks
the newly needed slot or drops the one no longer needed (and it leaves the confirmation).
A flow without conditions costs one empty-dict check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import SlotSpec


def _names(flow: CompiledFlow) -> list[str]:
    return [s.name for s in flow.spec.slots]


def needed(flow: CompiledFlow, slot: SlotSpec, slots: Mapping[str, Any]) -> bool:
    """True when ``slot`` is asked for under the task's current values."""
    condition = flow.conditions.get(slot.name)
    return condition is None or condition.holds(slots, _names(flow))


def missing(flow: CompiledFlow, slots: Mapping[str, Any]) -> list[SlotSpec]:
    """The required slots still empty whose condition holds, in declaration order."""
    empty = [s for s in flow.spec.slots if s.required and slots.get(s.name) is None]
    if not flow.conditions:
        return empty
    return [s for s in empty if needed(flow, s, slots)]


def drop_unneeded(flow: CompiledFlow, slots: dict[str, Any]) -> list[str]:
    """Clear the values of slots whose condition is now false; return their names."""
    if not flow.conditions:
        return []
    names = _names(flow)
    dropped = [name for name, condition in flow.conditions.items()
               if slots.get(name) is not None and not condition.holds(slots, names)]
    for name in dropped:
        slots.pop(name, None)
    return dropped


def prompt_variant(slot: SlotSpec, failures: int) -> SlotSpec:
    """The slot with its n-th question for the n-th failed answer (the last one repeats)."""
    variants = slot.asks
    if len(variants) < 2 or failures == 0:
        return slot
    return slot.model_copy(update={"ask_": variants[min(failures, len(variants) - 1)]})
