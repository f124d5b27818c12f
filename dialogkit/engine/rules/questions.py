"""Rules for a turn that arrives while the bot's own question (which one did you mean?) is pending."""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine.commands import Cancel, Choose, Command, Confirm, Deny, KeepQuestion, SetSlots, StartFlow
from dialogkit.engine.rules.base import Seen
from dialogkit.engine.rules.proposed import proposed
from dialogkit.engine.rules.shapes import NUMERIC, is_bare
from dialogkit.memory import clarification as clar
from dialogkit.model.session import PendingClarification
from dialogkit.understanding.intents import INTENT_THRESHOLD

__all__ = ["clarification_answer"]


def clarification_answer(seen: Seen) -> Sequence[Command]:
    """"第二个" / "the second one" to "您指的是哪一个：12345 还是 67890？" chooses a candidate; small
    talk or help keeps the question for one more turn; anything else drops it (no command)."""
    pending = seen.ctx.session.pending
    if pending is None:
        return []
    interp = seen.ctx.interp
    choice = clar.answer_clarification(pending, interp.text, interp.mentions)
    if choice is None:
        return _kept(seen, pending)
    task = seen.task
    if pending.kind == "slot_value" and (task is None or task.flow != pending.flow):
        return []
    return [Choose(rule="clarification_answer", words=interp.text.strip(), pending=pending, choice=choice)]


def _kept(seen: Seen, pending: PendingClarification) -> Sequence[Command]:
    """An unrelated turn (help, small talk) keeps the question, once. A new request, a cancel, a
    forget or a new value drops it, and so does any command the LLM heard (a request, a value, a
    cancel, an answer): the turn is then read as a new one."""
    interp = seen.ctx.interp
    cues, top = interp.cues, interp.top_intent
    if (pending.kept >= 1 or cues & {"cancel", "forget", "yes", "no", "correction"} or interp.declared_mentions
            or proposed(seen, Cancel, Confirm, Deny, StartFlow, SetSlots) is not None or _fills_active_task(seen)
            or (top is not None and top.score >= INTENT_THRESHOLD)):
        return []
    entry = None if cues & {"help", "greeting"} else seen.faq_entry()
    reply = "help" if "help" in cues else "greeting" if "greeting" in cues else "faq" if entry else "not_understood"
    return [KeepQuestion(rule="keep_question", words=interp.text.strip() or None, pending=pending,
                         reply=reply, entry=entry)]


def _fills_active_task(seen: Seen) -> bool:
    """True when the turn brings a value of a type the active task's slots take ("2028年1月1日")."""
    flow = seen.flow
    if flow is None:
        return False
    types = {s.entity for s in flow.spec.slots if s.entity}
    # A number in running text ("我刚喝了一杯咖啡") is no value for the task; a bare one is.
    interp = seen.ctx.interp
    return any(m.type in types and (m.type not in NUMERIC or is_bare(interp)) for m in interp.mentions)
