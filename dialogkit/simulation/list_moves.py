"""The moves of a list slot (``list: true``): two values said together, one more added, one dropped.

"SPA和叫醒服务" / "spa and wake-up call" is the list, said bare to the slot's question or after the
slot's label at any other time; "再加一个健身房" / "also gym" adds to the list held, "不要叫醒服务了" /
"drop the wake-up call" takes one out (the last one out leaves the slot empty). Each move's value
for the slot is the list the user means it to hold afterwards, so the invariants compare the slot
with it as a set.
"""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from dialogkit.simulation import vocabulary as words
from dialogkit.simulation.catalog import Catalog, SlotInfo
from dialogkit.simulation.scene_view import SceneView, apart, pick, pick_two, taking, utterance, values_named
from dialogkit.simulation.user_memory import member_keys, members, value_key
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import YES_NO, Said

TOGETHER: Mapping[str, tuple[str, ...]] = words.LIST_TOGETHER
"""Two values said together. A language without phrases here gets no list moves."""
ADDING: Mapping[str, tuple[str, ...]] = words.LIST_ADD
DROPPING: Mapping[str, tuple[str, ...]] = words.LIST_DROP


def has_lists(catalog: Catalog) -> bool:
    """Whether any flow of the bot has a list slot: the moves here have nothing to say otherwise."""
    return any(s.spec.is_list for flow in catalog.flows.values() for s in flow.slots)


def _list_slots(scene: SceneView) -> list[SlotInfo]:
    """The asking task's list slots, in a language the phrases here are written in."""
    flow = taking(scene)
    if flow is None or scene.language not in TOGETHER:
        return []
    return [s for s in flow.slots if s.spec.is_list and s.entity is not None and s.entity != YES_NO]


def _named(scene: SceneView, slot: SlotInfo) -> tuple[Said, ...]:
    flow = scene.active()
    others = {s.entity for s in (flow.slots if flow is not None else ()) if s.name != slot.name}
    return values_named(scene, slot, others)


def _two_apart(values: tuple[Said, ...]) -> bool:
    return any(apart(values[0], other) for other in values[1:]) or any(apart(values[-1], o) for o in values[:-1])


def _listable(scene: SceneView) -> list[SlotInfo]:
    return [s for s in _list_slots(scene) if len(named := _named(scene, s)) >= 2 and _two_apart(named)]


def can_list(scene: SceneView) -> bool:
    return bool(_listable(scene))


def list_values(data: st.DataObject, scene: SceneView) -> Utterance:
    """Two values of a list slot in one turn: bare when it is the slot asked ("SPA和叫醒服务"), else
    after its label ("服务是SPA和叫醒服务", "the services are spa and gym"); they are the list."""
    slot = pick(data, _listable(scene), "slot")
    first, second = pick_two(data, _named(scene, slot), "values")
    text = pick(data, TOGETHER[scene.language], "together").format(first=first.text, second=second.text)
    meant = Said(text, [first.canonical, second.canonical], slot.entity)
    asked = scene.asked()
    if asked is not None and (asked.flow, asked.name) == (slot.flow, slot.name):
        return utterance(scene, text, "answer", slot=slot.name, fills={slot.name: meant})
    labelled = words.SEVERAL[scene.language][0].format(label=slot.label[scene.language], value=text)
    return utterance(scene, labelled, "list_values", slot=slot.name, fills={slot.name: meant})


def _held(scene: SceneView, slot: SlotInfo) -> list[object]:
    return list(members(scene.before.slots.get(slot.name)))


def _addable(scene: SceneView, slot: SlotInfo) -> list[Said]:
    held = member_keys(scene.before.slots.get(slot.name))
    return [s for s in _named(scene, slot) if value_key(s.canonical) not in held]


def _extendable(scene: SceneView) -> list[SlotInfo]:
    return [s for s in _list_slots(scene) if _held(scene, s) and _addable(scene, s)]


def can_add(scene: SceneView) -> bool:
    return bool(_extendable(scene))


def add_value(data: st.DataObject, scene: SceneView) -> Utterance:
    """One more value for a list slot that holds some ("再加一个健身房", "also gym"), asked or not."""
    slot = pick(data, _extendable(scene), "slot")
    said = pick(data, _addable(scene, slot), slot.name)
    text = pick(data, ADDING[scene.language], "adding").format(value=said.text)
    meant = Said(said.text, [*_held(scene, slot), said.canonical], slot.entity)
    return utterance(scene, text, "add_value", slot=slot.name, fills={slot.name: meant})


def _droppable(scene: SceneView, slot: SlotInfo) -> list[Said]:
    """The ways to name a value the slot holds."""
    held = member_keys(scene.before.slots.get(slot.name))
    return [s for s in _named(scene, slot) if value_key(s.canonical) in held]


def _shrinkable(scene: SceneView) -> list[SlotInfo]:
    return [s for s in _list_slots(scene) if _droppable(scene, s)]


def can_drop(scene: SceneView) -> bool:
    return bool(_shrinkable(scene))


def drop_value(data: st.DataObject, scene: SceneView) -> Utterance:
    """One value taken out of a list slot ("不要叫醒服务了", "drop the wake-up call"): the rest stays;
    taking out the last leaves the slot empty."""
    slot = pick(data, _shrinkable(scene), "slot")
    said = pick(data, _droppable(scene, slot), slot.name)
    text = pick(data, DROPPING[scene.language], "dropping").format(value=said.text)
    rest = [v for v in _held(scene, slot) if value_key(v) != value_key(said.canonical)]
    meant = Said(said.text, rest or None, slot.entity)
    return utterance(scene, text, "drop_value", slot=slot.name, fills={slot.name: meant})
