"""What the simulated user remembers of the conversation: the values they took back, the two
candidates they just named, the language they speak, what they said in each turn.

A value is *taken back* when the user corrects it away, answers "no" to the confirmation that
showed it, or forgets the turn that gave it. Taken-back values belong to one task: they are kept
while its flow is on the task stack and dropped when the task ends. Saying a value again takes it
back no longer. ``take_back`` runs before the invariants look at a turn, ``settle`` after.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Literal

from dialogkit.simulation.catalog import word_pattern
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.values import Said
from dialogkit.text.phrases import format_value

Reason = Literal["corrected", "denied", "forgotten"]
REPLACING = ("correct", "roles", "list_values", "drop_value")
"""Moves whose values replace what their slots held: a correction, role words naming a slot, a new
list for a list slot, a value dropped from one."""


def value_key(value: Any) -> str:
    """A comparable form of a slot value: 150, 150.0 and "150" are one value; "0123" stays text."""
    return _text_key(value) if isinstance(value, str) else _key(value)


@lru_cache(maxsize=1 << 16)
def _text_key(value: str) -> str:
    """``value_key`` of a text, kept: the simulator compares a catalogue's values on every move."""
    return _key(value)


def _key(value: Any) -> str:
    text = str(value).strip()
    if isinstance(value, bool) or (text[:1] == "0" and text[1:2].isdigit()):
        return text
    try:
        return format(Decimal(text).normalize(), "f")
    except InvalidOperation:
        return text


@dataclass(frozen=True, slots=True)
class TakenBack:
    flow: str
    slot: str
    value: Any
    reason: Reason
    turn: int                 # the turn that took it back
    since: int                # the turn the value entered the slot
    replacement: Any = None   # what a correction meant instead


@dataclass(frozen=True, slots=True)
class Candidates:
    """Two values of one type named in the same turn: a pronoun after them is ambiguous."""

    first: Said
    second: Said
    entity: str
    turn: int


@dataclass(slots=True)
class UserMemory:
    language: str
    turns: list[TurnRecord] = field(default_factory=list)
    taken_back: list[TakenBack] = field(default_factory=list)
    candidates: Candidates | None = None
    last_list: tuple[Said, ...] = ()     # the values of the last two-candidate turn: what ordinals index
    said: list[frozenset[str]] = field(default_factory=list)          # per turn: value keys said
    entered: dict[tuple[str, str], int] = field(default_factory=dict)  # (flow, slot) -> turn its value came
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)      # flow -> its slots when last active
    held: dict[str, list[tuple[str | None, int]]] = field(default_factory=dict)  # value -> (holder, turn)

    # -- before the invariants ---------------------------------------------------------------------

    def take_back(self, turn: TurnRecord) -> None:
        """Record what ``turn`` takes back; what it says again is no longer taken back."""
        keys = self.keys_said(turn)
        self.taken_back = [t for t in self.taken_back if value_key(t.value) not in keys]
        move = turn.utterance.move
        if move in REPLACING:
            self._replaced(turn)
        elif move == "no" and turn.before.state == "CONFIRMATION" and turn.before.flow:
            for slot, value in turn.before.slots.items():
                self._add(turn, turn.before.flow, slot, value, "denied")
        elif move == "forget" and self.turns:
            self._forgotten(turn, self.turns[-1])

    def keys_said(self, turn: TurnRecord) -> frozenset[str]:
        """The values this turn names: those meant, those whose aliases or text it holds, and —
        for a reference or a trigger example ("明天下午开会") — those it brought into a slot."""
        utterance = turn.utterance
        keys = {k for s in utterance.said for k in member_keys(s.canonical)} | {value_key(v) for v in utterance.named}
        keys |= {value_key(v) for held in turn.after.slots.values() for v in members(held)
                 if re.search(word_pattern(format_value(v)), utterance.text, re.IGNORECASE)}
        # Pointing back names what it points at: either of the last two. So does an ordinal ("订单号是第一个"),
        # which picks from the list the user named last rather than from the options shown before it.
        if utterance.move == "refer" or any(s.form == "ordinal" for s in utterance.said):
            keys |= {value_key(s.canonical) for s in self.last_list}
        if utterance.move == "refer" or utterance.flow is not None:
            keys |= {k for slot in self.entering(turn) for k in member_keys(turn.after.slots[slot])}
            keys |= self._ran_with_new(turn)
        if utterance.move == "drop_value":      # the value a list slot drops is named, not said again
            keys -= {k for slot in utterance.fills for k in member_keys(turn.before.slots.get(slot))
                     if k not in member_keys(utterance.fills[slot].canonical)}
        return frozenset(keys)

    def _ran_with_new(self, turn: TurnRecord) -> set[str]:
        """Values an action of this turn ran with that its task did not hold before: the turn
        brought them in and finished the task at once, so no slot shows them entering."""
        if turn.reply is None or turn.before.flow is None:
            return set()
        seen = self.seen.get(turn.before.flow, turn.before.slots)
        return {k for run in turn.reply.actions for slot, v in run.inputs.items()
                for k in member_keys(v) - member_keys(seen.get(slot))}

    def entering(self, turn: TurnRecord) -> list[str]:
        """The slots of the active task whose value came in this turn (a resumed task's old values did not)."""
        flow = turn.after.flow
        if flow is None:
            return []
        seen = self.seen.get(flow, {})
        return [slot for slot, value in turn.after.slots.items()
                if value is not None and slot_key(value) != slot_key(seen.get(slot))]

    def _add(self, turn: TurnRecord, flow: str, slot: str, value: Any, reason: Reason,
             replacement: Any = None) -> None:
        """Take back ``value``; a list slot's values one by one (one of them may come back alone)."""
        since = self.entered.get((flow, slot), turn.index)
        for one in members(value):
            self.taken_back.append(TakenBack(flow, slot, one, reason, turn.index, since, replacement))

    def _replaced(self, turn: TurnRecord) -> None:
        """What the turn's values replace in their slots: a list slot loses the values not in its new list."""
        flow = turn.before.flow
        if flow is None:
            return
        for slot, said in turn.utterance.fills.items():
            old, new = turn.before.slots.get(slot), said.canonical
            gone = [v for v in members(old) if value_key(v) not in member_keys(new)]
            if gone:
                self._add(turn, flow, slot, gone, "corrected", new)

    def _forgotten(self, turn: TurnRecord, last: TurnRecord) -> None:
        """What the last turn put into the task's slots is taken back, and what it took back is not.
        A forget after a forget takes back nothing: the turn before said nothing (what it restored
        the user had said earlier)."""
        flow = last.after.flow
        if flow is None or flow != turn.before.flow or last.utterance.move == "forget":
            return
        self.taken_back = [t for t in self.taken_back if t.turn != last.index]
        for slot, value in last.after.slots.items():
            if value is None or self.entered.get((flow, slot)) != last.index:
                continue
            had = member_keys(last.before.slots.get(slot))      # a list slot keeps what it held before
            for one in (v for v in members(value) if value_key(v) not in had):
                self.taken_back.append(TakenBack(flow, slot, one, "forgotten", turn.index, last.index))

    # -- after the invariants ----------------------------------------------------------------------

    def settle(self, turn: TurnRecord) -> None:
        after = turn.after
        for slot in self.entering(turn):
            self.entered[(after.flow or "", slot)] = turn.index
        alive = set(after.stack)
        self.seen = {flow: slots for flow, slots in self.seen.items() if flow in alive}
        if after.flow is not None:
            self.seen[after.flow] = dict(after.slots)
        self.taken_back = [
            t for t in self.taken_back
            if t.flow in alive and not (t.reason == "denied" and after.state == "CONFIRMATION"
                                        and t.flow == after.flow and t.turn < turn.index)
        ]
        self._remember_holders(turn)
        self._remember_candidates(turn)
        self.said.append(self.keys_said(turn))
        self.language = turn.language
        self.turns.append(turn)

    def _remember_holders(self, turn: TurnRecord) -> None:
        for holder, key in _holders(turn):
            self.held.setdefault(key, []).append((holder, turn.index))

    def _remember_candidates(self, turn: TurnRecord) -> None:
        utterance = turn.utterance
        if utterance.move == "two_candidates" and len(utterance.mentions) == 2 and utterance.entity:
            first, second = utterance.mentions
            self.candidates = Candidates(first, second, utterance.entity, turn.index)
            self.last_list = utterance.mentions
        elif utterance.move != "off_topic":
            self.candidates = None

    # -- questions the invariants ask ---------------------------------------------------------------

    def taken_back_from(self, flow: str) -> list[TakenBack]:
        return [t for t in self.taken_back if t.flow == flow]

    def said_elsewhere(self, taken: TakenBack, now: TurnRecord) -> bool:
        """Whether the value belongs elsewhere too: the user named it in another turn than the one
        that put it in the slot, or another task (or an earlier one) held it, this turn included."""
        key = value_key(taken.value)
        if any(key in keys for index, keys in enumerate(self.said) if index != taken.since):
            return True
        held = [*self.held.get(key, ()), *((h, now.index) for h, v in _holders(now) if v == key)]
        return any(holder != taken.flow or turn < taken.since for holder, turn in held)


def _holders(turn: TurnRecord) -> list[tuple[str | None, str]]:
    """(holder, value) for each value a task held after the turn: a slot of the active flow, or
    the inputs of an action that ran."""
    holders: list[tuple[str | None, dict[str, Any]]] = [(turn.after.flow, turn.after.slots)]
    if turn.reply is not None:
        holders += [(f"action:{run.name}", run.inputs) for run in turn.reply.actions]
    return [(holder, value_key(v)) for holder, values in holders for held in values.values() for v in members(held)]


def members(value: Any) -> tuple[Any, ...]:
    """The values a slot holds: a list slot's items, another slot's one value, none for None."""
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def member_keys(value: Any) -> frozenset[str]:
    return frozenset(value_key(v) for v in members(value))


def slot_key(value: Any) -> str:
    """``value_key`` of what a slot holds, a list as the set of its values: ["spa", "gym"] and
    ["gym", "spa"] are one list, and ["spa"] is "spa" (one value written to a list slot)."""
    if not isinstance(value, (list, tuple)):
        return value_key(value)
    return "|".join(sorted(member_keys(value)))
