"""The move of two slots of one type told apart by role words: "从西单到国贸" / "from Xidan to Guomao".

A slot's ``role`` gives words said right before its value (从, from) and right after it (出发). A
user says one end or both, each with one of its slot's words, in the flow's slot order, while the
task asks anything, or after a request that starts the task ("我想坐地铁，从西单到国贸"). The value
goes to the slot whose words stand beside it, whichever slot is asked.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from dialogkit.simulation import vocabulary as words
from dialogkit.simulation.catalog import Catalog, FlowInfo, SlotInfo
from dialogkit.simulation.scene_view import SceneView, pick, pick_two, taking, utterance, values_named
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import Said
from dialogkit.text.labels import written_in
from dialogkit.text.phrases import spaced

Ends = tuple[SlotInfo, ...]
"""The slots a turn names by their role words, in the flow's order: one end of a trip, or both."""


def phrasings(slot: SlotInfo, language: str) -> list[str]:
    """The slot's role words in ``language`` around a ``{value}``: "从{value}", "{value}出发",
    "from {value}"."""
    role = slot.spec.role_words
    if role is None:
        return []
    space = _space(language)
    return ([f"{w.strip()}{space}{{value}}" for w in role.before if w.strip() and written_in(w, language)]
            + [f"{{value}}{space}{w.strip()}" for w in role.after if w.strip() and written_in(w, language)])


def _space(language: str) -> str:
    """Between a role word and its value, and between the two ends: "从西单到国贸" needs nothing,
    "from Xidan to Guomao" a space."""
    return " " if spaced(language) else ""


def _role_pairs(flow: FlowInfo, language: str) -> list[Ends]:
    """Every one or two slots a turn can name by role words: slots with role words in the language
    whose type another such slot of the flow shares."""
    slots = [s for s in flow.slots if s.entity is not None and phrasings(s, language)]
    pairs = [(a, b) for i, a in enumerate(slots) for b in slots[i + 1:] if a.entity == b.entity]
    return [ends for a, b in pairs for ends in ((a,), (b,), (a, b))]


def has_roles(catalog: Catalog) -> bool:
    """Whether any flow has two slots of one type with role words: the move has nothing to say otherwise."""
    return any(_role_pairs(flow, language) for flow in catalog.flows.values() for language in words.LANGUAGES)


def _values(scene: SceneView, flow: FlowInfo, ends: Ends) -> tuple[Said, ...]:
    """Values of the ends' shared type that name no type of the flow's other slots."""
    others = {s.entity for s in flow.slots if s not in ends and s.entity != ends[0].entity}
    return values_named(scene, ends[0], others)


def _choices(scene: SceneView) -> list[tuple[FlowInfo, str | None, Ends]]:
    """(flow, request or None, ends): the asking task's role slots, or a flow with role slots
    started by a trigger example that gives no value of their type itself."""
    active = taking(scene)
    if active is not None:
        return [(active, None, ends) for ends in _role_pairs(active, scene.language)
                if len(_values(scene, active, ends)) >= len(ends)]
    out: list[tuple[FlowInfo, str | None, Ends]] = []
    for flow in scene.catalog.flows.values():
        pairs = [ends for ends in _role_pairs(flow, scene.language) if len(_values(scene, flow, ends)) >= 2]
        requests = [t for t in flow.examples.get(scene.language, ())
                    if not {e[0].entity for e in pairs} & scene.catalog.request_types.get(t, frozenset())]
        out += [(flow, request, ends) for request in requests for ends in pairs]
    return out


def can_say_roles(scene: SceneView) -> bool:
    return scene.language in words.WITH_VALUES and bool(_choices(scene))


def _draw_values(data: st.DataObject, values: Sequence[Said], count: int) -> tuple[Said, ...]:
    return (pick(data, values, "value"),) if count == 1 else pick_two(data, values, "values")


def roles(data: st.DataObject, scene: SceneView) -> Utterance:
    """One end or both ends of a trip, each with its slot's role words ("到国贸", "从西单到国贸",
    "西单出发去国贸", "from Xidan to Guomao"), alone or after a request."""
    flow, request, ends = pick(data, _choices(scene), "ends")
    values = _draw_values(data, _values(scene, flow, ends), len(ends))
    parts = [pick(data, phrasings(slot, scene.language), slot.name).format(value=said.text)
             for slot, said in zip(ends, values, strict=True)]
    text = _space(scene.language).join(parts)
    fills = {slot.name: said for slot, said in zip(ends, values, strict=True)}
    if request is None:
        return utterance(scene, text, "roles", fills=fills)
    text = words.WITH_VALUES[scene.language].format(request=request, values=text)
    return utterance(scene, text, "roles", flow=flow.name, fills=fills)
