"""What a move sees of the conversation, and the few things every move does with it.

The moves of list slots and of role words live in modules of their own (``list_moves``,
``role_moves``), below the table in ``moves`` that draws them; they see the conversation through
this protocol, which ``moves.Scene`` fulfils.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from dialogkit.simulation.catalog import Catalog, FlowInfo, SlotInfo
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.utterances import Move, Utterance
from dialogkit.simulation.values import Said

ASKING = ("PARAM_COLLECT", "CONFIRMATION")
T = TypeVar("T")


class SceneView(Protocol):
    """Where the conversation stands when a move is drawn, and in which language."""

    @property
    def catalog(self) -> Catalog: ...

    @property
    def language(self) -> str: ...

    @property
    def before(self) -> Snapshot: ...

    def said_for(self, slot: SlotInfo, valid: bool = True) -> tuple[Said, ...]: ...

    def active(self) -> FlowInfo | None: ...

    def asked(self) -> SlotInfo | None: ...


def pick(data: st.DataObject, options: Sequence[T], label: str) -> T:
    """One of ``options``, drawn by its index: hypothesis labels a ``sampled_from`` of the options
    by hashing every one of them, on every draw (a catalogue's 20,000 values)."""
    return options[data.draw(_indexes(len(options)), label=label)]


@functools.lru_cache(maxsize=1024)
def _indexes(size: int) -> st.SearchStrategy[int]:
    """The indexes of ``size`` options, one strategy per size: hypothesis validates and labels a
    strategy the first time it draws from it, and a new one each draw cost that every time."""
    return st.sampled_from(range(size))


def pick_two(data: st.DataObject, values: Sequence[Said], label: str) -> tuple[Said, Said]:
    """Two values ``apart``, drawn by their indexes."""
    indexes = st.sampled_from(range(len(values)))
    first, second = data.draw(st.tuples(indexes, indexes).filter(lambda p: apart(values[p[0]], values[p[1]])),
                              label=label)
    return values[first], values[second]


def utterance(scene: SceneView, text: str, move: Move, **meant: Any) -> Utterance:
    """What the user says, with what they mean by it and what the bot file's words find in it."""
    return Utterance(text, move, scene.language, keyword_free=not scene.catalog.has_keyword(text),
                     named=scene.catalog.values_in(text), **meant)


def taking(scene: SceneView) -> FlowInfo | None:
    """The active task while it asks (a slot or the confirmation) and no clarification is pending:
    what a user then says for its slots goes to it."""
    if scene.before.state not in ASKING or scene.before.pending:
        return None
    return scene.active()


def values_named(scene: SceneView, slot: SlotInfo, apart_from: Collection[str | None]) -> tuple[Said, ...]:
    """The slot's valid values that a user names by a value's alias or label, none of which a type
    of ``apart_from`` (the task's other slots) also lists: each says which slot it is for."""
    return tuple(s for s in scene.said_for(slot) if s.form in ("alias", "label")
                 and not scene.catalog.types_of(s.text) & set(apart_from))


def apart(first: Said, second: Said) -> bool:
    """Two different values, neither written inside the other ("国贸" and "国贸站" read as one)."""
    return (str(first.canonical) != str(second.canonical) and first.text.lower() not in second.text.lower()
            and second.text.lower() not in first.text.lower())
