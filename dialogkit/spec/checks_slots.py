"""Warnings about slot keys that load but do nothing where they are written: role words on a slot
no other slot of its flow shares a type with (nothing to tell apart), a list of free text or of
yes/no answers (no values to list)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from dialogkit.spec.checks_flow_language import Found
from dialogkit.spec.schema import BotFile, FlowSpec
from dialogkit.spec.yaml_source import YamlPath

__all__ = ["slot_warnings"]


def slot_warnings(spec: BotFile) -> Iterator[Found]:
    for name, flow in spec.flows.items():
        yield from _lone_roles(flow, ("flows", name))
        yield from _lists_without_values(flow, ("flows", name))


def _lone_roles(flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    """Role words choose between slots of one type; a slot alone with its type takes its values anyway.
    A near slot is the exception: its words decide whether the value is the place looked around."""
    shared = Counter(slot.entity for slot in flow.slots if slot.entity is not None)
    for index, slot in enumerate(flow.slots):
        if slot.role is not None and not slot.is_near and (slot.entity is None or shared[slot.entity] < 2):
            kind = f"entity type '{slot.entity}'" if slot.entity else "no entity type"
            yield ((*base, "slots", index, "role"),
                   f"slot '{slot.name}' has role words, but no other slot of its flow has {kind}: "
                   f"they decide nothing",
                   "role words tell apart two slots of one entity type (origin and destination); remove role:")


def _lists_without_values(flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    for index, slot in enumerate(flow.slots):
        if slot.is_list and slot.entity in (None, "yes_no"):
            what = "free text" if slot.entity is None else "a yes/no answer"
            yield ((*base, "slots", index, "list"),
                   f"slot '{slot.name}' is a list, but it holds {what}: it is filled with one value as before",
                   "a list slot needs an entity type whose values can be listed; remove list: true")
