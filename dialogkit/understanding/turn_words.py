"""What one turn's words say besides their mentions, each fact found at most once a turn.

The bot file declares words of its own: a slot's label ("订单号是" / "my order number is"), the
words that name a yes/no slot ("早餐" / "breakfast"). Several steps of one turn look for the same
ones (the slot offer, the check that a labelled value went to another slot, the free-text answer),
so the reading keeps a table: a pattern is matched the first time it is asked about, and the
matches are kept for the rest of the turn. The yes or no the words are is kept the same way: the
cues read it only when no cancel or forget took the turn, and a cancelling rule still asks whether
"不用了，谢谢" / "no thanks" declines the question asked. So are two facts few turns are asked
about: whether the words give nothing ("没有", "I don't know") and whether they say goodbye.
"""

from __future__ import annotations

import re

from dialogkit.understanding.choices import declines
from dialogkit.understanding.cues import Answer, leading_answer, says_farewell

__all__ = ["TurnWords"]


class TurnWords:
    """The matches of the patterns asked about in one turn's words, kept per pattern, and the
    turn's leading yes/no answer (``leading_answer`` of the folded words), read when first asked."""

    __slots__ = ("_answer", "_answered", "_declines", "_farewell", "_folded", "_found", "_text")

    def __init__(self, text: str, folded: str) -> None:
        self._text = text
        self._folded = folded
        # By the pattern's id: a compiled pattern hashes its whole program on every lookup. The
        # table keeps each pattern with its matches, so no other pattern takes its id this turn.
        self._found: dict[int, tuple[re.Pattern[str], tuple[re.Match[str], ...]]] = {}
        self._answer: Answer | None = None
        self._answered = False         # None is an answer read too: the words are no yes or no
        self._declines: bool | None = None
        self._farewell: bool | None = None

    def matches(self, pattern: re.Pattern[str]) -> tuple[re.Match[str], ...]:
        """Every match of ``pattern`` in the turn's words as written, in text order."""
        kept = self._found.get(id(pattern))
        if kept is None:
            kept = self._found[id(pattern)] = (pattern, tuple(pattern.finditer(self._text)))
        return kept[1]

    def leading_answer(self) -> Answer | None:
        """The yes or the no the words are, or None."""
        if not self._answered:
            self._answer, self._answered = leading_answer(self._folded), True
        return self._answer

    def declines(self) -> bool:
        """Whether the words give nothing ("没有", "不知道", "No.", "I don't know")."""
        if self._declines is None:
            self._declines = declines(self._folded.lower())
        return self._declines

    def says_farewell(self) -> bool:
        """Whether the words say goodbye ("谢谢，再见", "thanks, bye")."""
        if self._farewell is None:
            self._farewell = says_farewell(self._folded.lower())
        return self._farewell
