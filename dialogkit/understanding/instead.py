""""那算了，帮我推荐一个餐厅" / "never mind, book a table instead": a cancel and a new request in one
turn. The clause that gives up cancels the task in progress (or finds none); the clauses after it
are a request of their own, read as if said alone.
"""

from __future__ import annotations

import re

from dialogkit.lexicon import alternation, words
from dialogkit.understanding.cues import cancels
from dialogkit.understanding.language import fold

__all__ = ["request_after_cancel"]

_CLAUSE_BREAK = re.compile(r"[,，。.!！?？;；、\n]+")
_DECLINED = re.compile(rf"^(?:{alternation(words('declined_request'))})(?![a-z])", re.IGNORECASE)


def request_after_cancel(text: str) -> str | None:
    """The words after the clause that gives up, when there are any ("帮我推荐一个餐厅"). A cancel
    alone, or one whose next words decline ("算了，不订了") or a request before the cancel gives None: only
    what follows the giving up is asked instead."""
    clauses = [c for c in _CLAUSE_BREAK.split(text) if c.strip()]
    for i, clause in enumerate(clauses[:-1]):      # a cancel in the last clause has nothing after it
        if cancels(fold(clause)):
            rest = "，".join(c.strip() for c in clauses[i + 1:])
            return rest if rest and not _DECLINED.match(rest) else None
    return None
