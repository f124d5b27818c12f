"""Rules for giving up: the task in progress, and what the same words request instead."""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine import explaining
from dialogkit.engine.commands import Cancel, Command, StartFlow
from dialogkit.engine.rules.base import Seen
from dialogkit.engine.rules.shapes import asked_yes_no, said_alone_span
from dialogkit.understanding.intents import INTENT_THRESHOLD

__all__ = ["answers_question", "cancel", "give_up", "instead"]


def cancel(seen: Seen) -> Sequence[Command]:
    """"算了" / "never mind" with no task: there is nothing to cancel (unless the words go on to
    request a flow, which then starts)."""
    if "cancel" not in seen.cues:
        return []
    return [Cancel(rule="cancel", words=explaining.cue_words(seen.ctx)), *instead(seen, None)]


def give_up(seen: Seen) -> Sequence[Command]:
    """"算了，不办了" / "forget it" inside a task cancels it, unless the words are a value the bot
    file declares for the question asked ("停止" to "暂停还是停止？"), a correction to such a value
    ("不对，停止"), or a no to a yes/no question ("不用了，谢谢" to "需要补寄新卡吗？")."""
    if "cancel" not in seen.cues or answers_question(seen):
        return []
    flow = seen.flow
    return [Cancel(rule="cancel", words=explaining.cue_words(seen.ctx)),
            *instead(seen, flow.name if flow is not None else None)]


def answers_question(seen: Seen) -> bool:
    """Whether words that also cancel answer the question asked: a value the bot file declares for
    it, a correction to such a value, or a no to a yes/no question."""
    return _declared_answer(seen) or _corrects_to_declared(seen) or _declines_asked(seen)


def instead(seen: Seen, cancelled: str | None) -> Sequence[Command]:
    """"那算了，帮我推荐一个餐厅" / "never mind, book a table instead": the words after the cancel
    request another flow, which starts in the same turn (the cancelled one is not asked again)."""
    after = seen.ctx.interp.instead        # read with the turn, by understanding
    if after is None or (top := after.top_intent) is None or top.score < INTENT_THRESHOLD \
            or top.flow not in seen.bot.flows or top.flow == cancelled:
        return []
    return [StartFlow(rule="instead", words=after.words, flow=top.flow)]


def _declines_asked(seen: Seen) -> bool:
    """The words are a no and nothing else ("不用了，谢谢" / "no thanks"), and a yes/no question is
    asked. The no is the reading's (``interp.answer``): the cancel cue took the words, not their answer."""
    if asked_yes_no(seen.task, seen.flow) is None:
        return False
    answer = seen.ctx.interp.answer
    return answer is not None and answer.whole and not answer.value


def _declared_answer(seen: Seen) -> bool:
    """The whole answer is a value the bot file declares for the asked slot."""
    task, flow = seen.task, seen.flow
    if task is None or flow is None or not task.pending_slot:
        return False
    slot = flow.spec.slot(task.pending_slot)
    if slot is None or slot.entity not in seen.bot.texts.spec.entities:
        return False
    start, end = said_alone_span(seen.ctx.interp.text)
    return any(m.start == start and m.end == end for m in seen.ctx.interp.read_as((slot.entity,)))


def _corrects_to_declared(seen: Seen) -> bool:
    """A correction naming a value the bot file declares for the task, other than the one held
    ("不对，手机……算了" gives up on the phone it names)."""
    task, flow = seen.task, seen.flow
    if "correction" not in seen.cues or task is None or flow is None:
        return False
    entities = seen.bot.texts.spec.entities
    types = {s.entity for s in flow.spec.slots if s.entity is not None and s.entity in entities}
    slots = [s for s in flow.spec.slots if s.entity in types]
    found = seen.ctx.interp.read_as(types) if types else []
    return any(m.type == s.entity and str(task.slots.get(s.name)) != str(m.value) for m in found for s in slots)
