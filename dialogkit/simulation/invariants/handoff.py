"""(l) A give-up handed to a person says a person will take over."""

from __future__ import annotations

from dialogkit.engine.handoff import take_over_message
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord


def handoff_says_a_person_takes_over(turn: TurnRecord, judge: Judge) -> Finding | None:
    """When a give-up hands the conversation to a person (``bot.handoff: {action: NAME}`` ran
    without error), the task ends and the reply says, in the turn's language, that a person will
    take over (docs/bot-file.md, "handoff"; docs/behaviours.md, item 3).
    """
    handoff = judge.catalog.spec.bot.handoff_action
    reply = turn.reply
    if handoff is None or reply is None or turn.before.flow is None:
        return None
    if not any(run.name == handoff.action and run.error is None for run in reply.actions):
        return None
    line = take_over_message(turn.language)
    if line not in reply.text:
        return Finding("no_take_over_line", "the handoff ran but the reply does not say a person takes over",
                       {"bot": line})
    if turn.after.flow == turn.before.flow:
        return Finding("task_kept", f"the handoff ran but {turn.before.flow} is still the task", {"state": "IDLE"})
    return None


INVARIANT = Invariant(
    "handoff_not_announced", "l", "a give-up handed to a person says a person will take over",
    handoff_says_a_person_takes_over,
)
