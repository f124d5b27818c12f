"""Filler in the rounds the context window sends word for word: the clauses the bot reads nothing in.

A long message often wraps one fact ("订单号是10000") in sentences of courtesy and background. The
ticket summary and entity memory already carry every fact, so a round an LLM sees again mostly
costs tokens for those sentences. With ``context.drop_filler`` the window keeps each clause of an
earlier user message that carries something (an entity, a number, a question, a cue such as yes,
no or "forget that", a reference such as "it" or "那个", a word of some flow's trigger, a masked
sensitive value) and puts one ``…`` where a run of the others was. The current message is always
sent whole, and so are the bot's own replies and short messages, where the saving would be a few
tokens.

The reading is the rule understanding's, so what counts as filler is what the bot itself would
ignore, in either language; it is kept per text, since a round is sent again on every turn it
stays in the window.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dialogkit.memory.references import find_references
from dialogkit.strings.cjk import has_cjk
from dialogkit.strings.redaction import MASK
from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["ELLIPSIS", "FillerTrim", "clauses"]

ELLIPSIS = "…"
MIN_TOKENS = 40
"""Messages shorter than this are sent whole: a sentence or two of filler is not worth a gap."""
CACHE_CHARS = 1_000_000
"""Characters of texts and their trimmed forms kept per bot: the rounds of the sessions of the
moment (a stored message holds at most 64K characters, so a few long ones cannot hold memory)."""

# A clause ends at Chinese punctuation, or at Latin punctuation followed by a space or the end
# (so "3.5", "1,000" and "a.b@example.com" stay whole).
_BOUNDARY = re.compile(r"[，。！？；…\n]+[ \t]*|[,.;!?]+(?:\s+|$)")
_VALUE_OR_QUESTION = re.compile(r"[\d?？]")


def clauses(text: str) -> list[str]:
    """``text`` cut after each clause's punctuation; joined again they give ``text`` back."""
    out: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        out.append(text[start:match.end()])
        start = match.end()
    if start < len(text):
        out.append(text[start:])
    return out


class FillerTrim:
    """``trim(text, language)``: ``text`` without the clauses that carry nothing the bot reads."""

    def __init__(self, understanding: RuleUnderstanding, count: Callable[[str], int]) -> None:
        self.understanding = understanding
        self.count = count
        self._trimmed: dict[tuple[str, str], str] = {}
        self._chars = 0

    def trim(self, text: str, language: str) -> str:
        key = (text, language)
        trimmed = self._trimmed.get(key)
        if trimmed is None:
            trimmed = self._trim(text, language)
            if self._chars + len(text) + len(trimmed) > CACHE_CHARS:
                self._trimmed.clear()
                self._chars = 0
            self._trimmed[key] = trimmed
            self._chars += len(text) + len(trimmed)
        return trimmed

    def _trim(self, text: str, language: str) -> str:
        if self.count(text) < MIN_TOKENS:
            return text
        pieces = clauses(text)
        kept = [self.carries(piece, language) for piece in pieces]
        if all(kept):
            return text
        gap = ELLIPSIS if has_cjk(text) else ELLIPSIS + " "
        out: list[str] = []
        for piece, keep in zip(pieces, kept, strict=True):
            if keep:
                out.append(piece)
            elif not out or out[-1] != gap:
                out.append(gap)
        return "".join(out).strip()

    def carries(self, clause: str, language: str) -> bool:
        """Whether the bot reads anything in ``clause``: what an LLM may need of an earlier round."""
        stripped = clause.strip()
        if not stripped or _VALUE_OR_QUESTION.search(stripped) or MASK in stripped:
            return bool(stripped)
        reading = self.understanding.interpret(stripped, language)
        return bool(reading.mentions or reading.cues or reading.intents or reading.rejected
                    or find_references(stripped, reading.language))
