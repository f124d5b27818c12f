"""(a) No action runs with a value the user took back."""

from __future__ import annotations

from typing import Any

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import TakenBack, member_keys, value_key

HOW = {
    "corrected": "corrected away",
    "denied": 'answered "no" to at the confirmation',
    "forgotten": "took back with forget",
}


def _expect(taken: TakenBack) -> dict[str, Any]:
    """Correct behaviour: the replacement in the slot; after a "no", nothing runs; after forget, the slot is empty."""
    if taken.reason == "corrected":
        return {"slots": {taken.slot: taken.replacement}}
    if taken.reason == "denied":
        return {"action": None}
    return {"slots": {taken.slot: None}}


def action_never_runs_with_taken_back_value(turn: TurnRecord, judge: Judge) -> Finding | None:
    """An action never runs with a value the user rejected or replaced in that task: one they
    corrected away, answered "no" to at a confirmation, or forgot (docs/behaviours.md, item 19).

    Every ``reply.actions`` entry's inputs are compared with the values taken back in the task
    of the flow that names the action; a list slot's input must hold none of them.
    """
    if turn.reply is None:
        return None
    for run in turn.reply.actions:
        for flow in judge.catalog.action_flows(run.name):
            for taken in judge.memory.taken_back_from(flow):
                ran_with = run.inputs.get(taken.slot)
                if value_key(taken.value) in member_keys(ran_with):
                    message = (f"action {run.name} ran with {taken.slot}={ran_with!r}, which the user "
                               f"{HOW[taken.reason]} at turn {taken.turn + 1}")
                    return Finding(taken.reason, message, _expect(taken))
    return None


INVARIANT = Invariant(
    "taken_back_value_used", "a", "no action runs with a value the user took back",
    action_never_runs_with_taken_back_value,
)
