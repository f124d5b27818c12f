"""Shapes of an answer that several rules and the processor ask about."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dialogkit.engine.slots import ANSWER_TYPE
from dialogkit.lexicon import alternation, words
from dialogkit.understanding.intents import INTENT_THRESHOLD

if TYPE_CHECKING:
    from dialogkit.model.interpretation import Interpretation
    from dialogkit.model.session import Task
    from dialogkit.spec.compiler import CompiledFlow
    from dialogkit.spec.schema import SlotSpec

__all__ = ["BARE_REMAINDER", "IDENTIFIERS", "NUMERIC", "asked_yes_no", "is_bare", "said_alone", "said_alone_span"]

BARE_REMAINDER = 3
"""A bare answer is one value plus at most this many other letters or digits ("是", "就这个")."""
_POLITE = re.compile("(?<![^\\W\\d_])(?:" + (alternation(w for w in words("fillers") if w.isascii()) or "(?!)")
                     + ")(?![^\\W\\d_])", re.IGNORECASE)
"""Fillers of the spaced languages ("please", "thanks", "por favor"), which count as no letters: a
Chinese one is a character or two and fits in the remainder already."""
NUMERIC = frozenset({"number", "integer"})
IDENTIFIERS = frozenset({"phone", "email"})


def is_bare(interp: Interpretation) -> bool:
    """True when the utterance is one value and little else ("12345", "三件", "是 67890")."""
    spans = {(m.start, m.end) for m in interp.mentions}
    if len(spans) > 1 or (interp.top_intent is not None and interp.top_intent.score >= INTENT_THRESHOLD):
        return False
    text = interp.text
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return sum(ch.isalnum() for ch in _POLITE.sub(" ", text)) <= BARE_REMAINDER


def asked_yes_no(task: Task | None, flow: CompiledFlow | None) -> SlotSpec | None:
    """The yes/no slot whose question is pending, if that is what is asked."""
    if task is None or flow is None or not task.pending_slot:
        return None
    slot = flow.spec.slot(task.pending_slot)
    return slot if slot is not None and slot.entity == ANSWER_TYPE else None


def said_alone(text: str) -> str:
    """An answer as a whole, without the full stop or exclamation it may end with."""
    start, end = said_alone_span(text)
    return text[start:end]


def said_alone_span(text: str) -> tuple[int, int]:
    """Where ``said_alone`` stands in ``text``, for asking the turn's reading about those words."""
    stripped = text.strip()
    answer = stripped.strip("。.!！")
    start = len(text) - len(text.lstrip()) + len(stripped) - len(stripped.lstrip("。.!！"))
    return start, start + len(answer)
