"""(i) An FAQ question is answered and changes nothing."""

from __future__ import annotations

from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import value_key
from dialogkit.spec.schema import prompt_text


def faq_answered_in_place(turn: TurnRecord, judge: Judge) -> Finding | None:
    """A question of the bot's ``faq:`` is answered in any state, in the turn's language; the
    flow, the state and the slots stay as they were, and inside a task the pending question
    follows the answer (docs/bot-file.md, "faq"; docs/behaviours.md, item 20).
    """
    utterance, reply = turn.utterance, turn.reply
    if utterance.move != "faq" or utterance.faq is None or reply is None:
        return None
    entry = judge.catalog.spec.faq.get(utterance.faq)
    answer = prompt_text(entry.answer, turn.language) if entry is not None else ""
    if answer and answer not in reply.text:
        return Finding("not_answered", f"the FAQ question {utterance.text!r} was not answered", {"bot": answer})
    before, after = turn.before, turn.after
    if (after.flow, after.state) != (before.flow, before.state):
        message = f"the FAQ question moved {before.flow} ({before.state}) to {after.flow} ({after.state})"
        return Finding("changed_state", message, {"state": before.state})
    changed = {k for k in {*before.slots, *after.slots}      # in IDLE, slots only echo the task that ended
               if before.flow is not None and value_key(before.slots.get(k)) != value_key(after.slots.get(k))}
    if changed:
        return Finding("changed_slots", f"the FAQ question changed {sorted(changed)}",
                       {"slots": {k: before.slots.get(k) for k in sorted(changed)}})
    if before.asked is not None and after.asked != before.asked:
        message = f"after the FAQ answer the pending question for {before.asked} did not follow"
        return Finding("question_dropped", message, {"state": before.state})
    return None


INVARIANT = Invariant(
    "faq_changes_state", "i", "an FAQ question is answered, changes nothing, and the pending question follows",
    faq_answered_in_place,
)
