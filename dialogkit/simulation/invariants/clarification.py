"""(d) An ambiguous reference is clarified, and the question survives one unrelated turn."""

from __future__ import annotations

from typing import Any

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import value_key


def _pronoun_clarified(turn: TurnRecord, judge: Judge) -> Finding | None:
    utterance, candidates = turn.utterance, judge.memory.candidates
    if utterance.move != "refer" or utterance.reference != "pronoun" or candidates is None:
        return None
    entity = judge.catalog.entities.get(candidates.entity)
    if entity is None or entity.kind != utterance.entity or turn.reply is None:
        return None
    asked = {value_key(v) for v in turn.reply.clarification or ()}
    wanted = [candidates.first.canonical, candidates.second.canonical]
    if {value_key(v) for v in wanted} <= asked:
        return None
    request = f"the request {utterance.text!r}" if utterance.flow else repr(utterance.text)
    message = (f"{request} after {candidates.first.text!r} and {candidates.second.text!r} were named "
               f"together was not clarified in {turn.before.state} (clarification: {turn.reply.clarification})")
    kind = "request_not_clarified" if utterance.flow else "question_not_clarified"
    return Finding(kind, message, {"clarify": wanted})


def _candidates(turn: TurnRecord | None) -> list[Any]:
    return list(turn.reply.clarification or ()) if turn is not None and turn.reply is not None else []


def _survives_unrelated_turn(turn: TurnRecord, judge: Judge) -> Finding | None:
    """Only the first unrelated turn after a question is checked: the one that follows the
    turn that asked it (a second unrelated turn may drop it)."""
    turns = judge.memory.turns
    if turn.utterance.move != "off_topic" or not turns or turn.reply is None:
        return None
    asked = _candidates(turns[-1])
    earlier = _candidates(turns[-2]) if len(turns) >= 2 else []
    if not asked or {value_key(v) for v in earlier} == {value_key(v) for v in asked}:
        return None
    now = {value_key(v) for v in turn.reply.clarification or ()}
    if now == {value_key(v) for v in asked}:
        return None
    message = f"the clarification {asked} did not survive the unrelated turn {turn.utterance.text!r}"
    return Finding("dropped_by_unrelated_turn", message, {"clarify": asked})


def ambiguous_reference_is_clarified(turn: TurnRecord, judge: Judge) -> Finding | None:
    """A pronoun that fits two candidates named in the same turn is ambiguous and is clarified in
    every state, including while a slot is being asked; a pending clarification survives one
    unrelated turn: the bot answers it and asks again (docs/behaviours.md, items 10 and 20).
    """
    return _pronoun_clarified(turn, judge) or _survives_unrelated_turn(turn, judge)


INVARIANT = Invariant(
    "ambiguity_not_clarified", "d", "an ambiguous reference is clarified, and the question survives one unrelated turn",
    ambiguous_reference_is_clarified,
)
