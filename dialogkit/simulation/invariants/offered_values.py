"""(m) A value offered for a slot of the active task is set, or the reply says why not."""

from __future__ import annotations

from typing import Any

from dialogkit.engine.doubtful_values import doubt
from dialogkit.simulation.catalog import FlowInfo, SlotInfo
from dialogkit.simulation.invariants.asked_slot import rule_messages
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge, slots_of_task
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import slot_key
from dialogkit.simulation.values import YES_NO, Said

OFFERING = ("offer", "several", "trigger_with_values", "correct", "list_values", "add_value", "drop_value", "roles")
"""The moves that give values for slots by name, by role words, as a correction or as an edit of a
list slot; a bare answer to the question asked is (b)'s to judge."""
LIST_EDITS = ("add_value", "drop_value")


def _kind(turn: TurnRecord, slot: SlotInfo) -> str:
    """The class of the finding: corrections, answers to the question asked, and unasked values
    (yes/no ones apart, which the engine reads by their own rules) break in different ways."""
    if turn.utterance.move == "correct":
        return "correction_ignored"
    if turn.utterance.move in LIST_EDITS:
        return "list_edit_ignored"
    if turn.utterance.move == "roles":
        return "role_value_ignored"
    if slot.name == turn.before.asked and turn.before.flow == slot.flow:
        return "asked_value_ignored"
    return "unasked_yes_no_ignored" if slot.entity == YES_NO else "unasked_value_ignored"


def _held(value: Any, said: Said) -> bool:
    """The slot holds the value meant ("r00000" and "R00000" are one order number); a list slot the
    values meant, in any order, and nothing when its last value was dropped."""
    if said.canonical is None:
        return value is None
    return value is not None and slot_key(value).lower() == slot_key(said.canonical).lower()


def _explained(turn: TurnRecord, slot: SlotInfo, said: Said) -> bool:
    """The reply says why the value is not set: a rule message of the slot (one the bot's validator
    code gives included), or a question about a value shaped like another type (a mobile number
    given as an order number)."""
    text = turn.text
    if any(message and message in text for message in rule_messages(slot)) or turn.refused_aloud():
        return True
    doubted = doubt(slot.spec, said.text, turn.language)
    return doubted is not None and doubted in text


def _flow_of(turn: TurnRecord, judge: Judge) -> FlowInfo | None:
    """The task the values are for: the flow a request names, else the task active before."""
    name = turn.utterance.flow or turn.before.flow
    return judge.catalog.flows.get(name) if name else None


def offered_value_is_set(turn: TurnRecord, judge: Judge) -> Finding | None:
    """A value the user offers for a slot of the active task — asked or not, named by its label
    (several at once, with the request that starts the task, or one the bot has not asked for
    yet) or said as a correction — is set in that slot; otherwise the reply asks a clarification
    or says why it refused the value: a rule message of that slot, or a question about a value
    shaped like another type (docs/behaviours.md, items 2, 4, 24 and 25).

    A task left in the same turn (cancelled, suspended by a digression, never started), a slot
    whose ``ask_if`` is false afterwards, and a turn said while a clarification was pending (its
    values may answer it) are not judged.
    """
    utterance, reply = turn.utterance, turn.reply
    if utterance.move not in OFFERING or not utterance.fills or reply is None or reply.clarification \
            or turn.before.pending:
        return None
    flow = _flow_of(turn, judge)
    after = slots_of_task(turn, flow.name, judge.catalog) if flow is not None else None
    if flow is None or after is None:
        return None
    for name, said in utterance.fills.items():
        slot = flow.slot(name)
        if slot is None or not flow.needed(slot, after) or _held(after.get(name), said) \
                or _explained(turn, slot, said):
            continue
        held = after.get(name)
        message = (f"{utterance.text!r} offered {said.text!r} for {name} of {flow.name}, which "
                   f"{'still holds ' + repr(held) if held is not None else 'was left empty'}, and the reply "
                   f"neither clarifies nor says why")
        return Finding(_kind(turn, slot), message, {"slots": {name: said.canonical}})
    return None


INVARIANT = Invariant(
    "offered_value_ignored", "m", "a value offered for a slot of the active task is set, or the reply says why not",
    offered_value_is_set,
)
