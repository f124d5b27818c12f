"""(c) A mention is not a request."""

from __future__ import annotations

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord


def mention_starts_no_flow(turn: TurnRecord, judge: Judge) -> Finding | None:
    """An utterance made only of entity values (bare values, or two candidates named), said in
    IDLE with no question pending, starts no flow: the state stays IDLE (docs/behaviours.md,
    item 18). Utterances holding a trigger keyword are left out: a keyword may start a flow.
    """
    utterance = turn.utterance
    if utterance.move not in ("bare_value", "two_candidates") or not utterance.keyword_free:
        return None
    if turn.before.state != "IDLE" or turn.before.pending or turn.reply is None:
        return None
    if turn.after.state == "IDLE":
        return None
    message = f"the mention {utterance.text!r} started {turn.after.flow} ({turn.after.state})"
    return Finding("started_a_flow", message, {"state": "IDLE"})


INVARIANT = Invariant("mention_starts_flow", "c", "a mention starts no flow", mention_starts_no_flow)
