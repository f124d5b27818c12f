"""Rules that take the LLM's commands: what the model heard that the words' own reading misses.

The LLM layer checks the model's commands (real flows and slots, values the rules validate, a
confirm only where the words open with a yes: ``engine.grounding``) and leaves those that stand
on the turn, as the same commands the rules make (``ctx.proposed``, made by rule ``llm``). The
rules here stand in the order next to the rules that read the same thing in the words, so the
words decide first wherever they say something: a value the user typed, an answer to the
question asked, a no to the confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine.commands import Cancel, Command, Confirm, Deny
from dialogkit.engine.rules import cancelling
from dialogkit.engine.rules.base import Seen

__all__ = ["llm_answer", "llm_cancel", "proposed"]


def proposed(seen: Seen, *kinds: type[Command]) -> Command | None:
    """The model's last command of one of ``kinds`` this turn (its last word: "confirm, no, deny" is a deny)."""
    return next((c for c in reversed(seen.ctx.proposed) if isinstance(c, kinds)), None)


def llm_cancel(seen: Seen) -> Sequence[Command]:
    """"这个先不弄了" / "let's leave it there": a cancel the model heard. Inside a task it ends the
    task, unless the words answer the question asked, as the cancel rule reads them ("停止" to
    "暂停还是停止？", "不用了" to a yes/no question); with no task there is nothing to cancel."""
    cancel = proposed(seen, Cancel)
    if cancel is None:
        return []
    flow = seen.flow
    if flow is not None and cancelling.answers_question(seen):
        return []
    return [cancel, *cancelling.instead(seen, flow.name if flow is not None else None)]


def llm_answer(seen: Seen) -> Sequence[Command]:
    """"好的，就这么办吧，麻烦你们了" / "sure, that is exactly what I need" to the confirmation: a yes
    the words open with (the rules' own yes allows less after it), heard by the model, runs the
    action. A model's deny asks what to change, whatever the words: it runs nothing. A model's
    confirm never stands against a no or a correction in the words: the deny rule reads those."""
    answer = proposed(seen, Confirm, Deny)
    if isinstance(answer, Confirm) and seen.cues & {"no", "correction"}:
        return []
    return [answer] if answer is not None else []
