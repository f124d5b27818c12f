"""(f) After forgetting, the first empty required slot is asked."""

from __future__ import annotations

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord, questions

ASKING = ("PARAM_COLLECT", "CONFIRMATION")


def forget_asks_first_empty_slot(turn: TurnRecord, judge: Judge) -> Finding | None:
    """After "忘记刚才说的" / "forget what I just said" the next question asks for the first
    required slot that is now empty (docs/behaviours.md, items 14 and 22), in any of its re-ask
    variants (a failed answer before may have moved the question on).
    """
    reply = turn.reply
    if turn.utterance.move != "forget" or reply is None or reply.clarification:
        return None
    flow = judge.catalog.flows.get(reply.flow) if reply.flow else None
    if flow is None or reply.state not in ASKING:
        return None
    empty = next(iter(flow.missing(reply.slots)), None)
    if empty is None:
        return None
    asked = questions(judge.facts.texts, flow, empty, reply.language, reply.slots)
    if any(question in reply.text for question in asked):
        return None
    question = asked[0] if asked else ""
    message = f"after forgetting, {empty.name} is empty but the reply does not ask for it ({reply.state})"
    return Finding("wrong_question", message, {"bot": question})


INVARIANT = Invariant(
    "forget_reask", "f", "after forgetting, the first empty required slot is asked",
    forget_asks_first_empty_slot,
)
