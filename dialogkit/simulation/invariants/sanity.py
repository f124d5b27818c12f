"""(g) Every turn completes with a known state."""

from __future__ import annotations

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.spec.schema import STATES


def turn_completes(turn: TurnRecord, judge: Judge) -> Finding | None:
    """No turn raises, and every reply's state is one of IDLE, TASK_INIT, PARAM_COLLECT,
    CONFIRMATION and EXECUTION (docs/behaviours.md, item 16).
    """
    if turn.error is not None:
        last = turn.error.strip().splitlines()[-1] if turn.error.strip() else "an exception"
        return Finding("raised", f"the turn raised: {last}")
    if turn.reply is not None and turn.reply.state not in STATES:
        return Finding("unknown_state", f"the reply's state {turn.reply.state!r} is not one of {', '.join(STATES)}")
    return None


INVARIANT = Invariant("turn_fails", "g", "no turn raises, and the state is one of the five", turn_completes)
