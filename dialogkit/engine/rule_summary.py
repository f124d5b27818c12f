"""The extractive summary of a few rounds: the values stay, the chit-chat goes.

Used when no LLM writes summaries (and whenever one fails): it needs nothing but the bot's own
entity finder, so folding old rounds costs one pass of the rules over each round.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dialogkit.lexicon import alternation, words, writing
from dialogkit.text.phrases import phrase

__all__ = ["ValueFinder", "rule_summary"]

ValueFinder = Callable[[str], list[tuple[str, str]]]
"""(canonical value, surface text) of every value of the bot's entity types in a text."""


def rule_summary(values_in: ValueFinder, texts: list[str], language: str) -> str:
    """Extractive summary that keeps the values and drops the chit-chat.

    Each text is cut into its pieces (a round's user and bot parts, a level-1 summary's rounds)
    and those into clauses; a clause stays only when it brings a value no kept clause has yet (an
    entity the rules find, or an identifier with a digit: order numbers, ticket ids), so small
    talk and the bot's echoes of values go. Values the kept (clipped) pieces lost are appended; nothing but
    small talk leaves a one-word marker. Level-2 summaries are summaries of level-1 ones, so a
    value said anywhere in a block survives both folds.
    """
    written = writing(language)
    found = _Found()
    kept: list[str] = []
    for text in texts:
        # One extraction per text (not per clause): clauses then claim the values whose surface
        # form they contain, so a fold costs one pass of the rules over each round.
        in_text = values_in(text)
        for piece in _PIECES.split(text):
            match = _ROLE.match(piece)
            role = match.group(0) if match else ""
            clauses = [c for c in (c.strip() for c in _CLAUSES.split(piece[len(role):])) if found.claims(c, in_text)]
            if clauses:
                kept.append(role + written.comma.join(clauses))
    base = written.clause_separator.join(kept) if kept else phrase("small_talk", language)
    lost = found.missing_from(base)
    if not lost:
        return base
    return phrase("summary_details", language, title=base, details=written.list_separator.join(lost))


class _Found:
    """The values kept so far, in order, with every surface form each was written in."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.surfaces: dict[str, set[str]] = {}

    def claims(self, clause: str, in_text: list[tuple[str, str]]) -> bool:
        """Record the clause's values; True when it brings one no kept clause has yet."""
        if not clause:
            return False
        here = [(v, f) for v, f in in_text if f and f in clause]
        here += [(v, v) for v in _IDENTIFIER.findall(clause)]
        for value, surface in here:
            self.surfaces.setdefault(value, set()).add(surface)
        new = [v for v in dict.fromkeys(v for v, _ in here) if v not in self.values]
        self.values.extend(new)
        return bool(new)

    def missing_from(self, text: str) -> list[str]:
        """Values none of whose forms made it into ``text`` (clipped pieces lose some)."""
        return [v for v in self.values if not any(f and f in text for f in {v, *self.surfaces.get(v, ())})]


# Stored user text reaches every pattern here: each is linear on any input (a run of spaces is
# taken whole, never split two ways; an identifier starts only where its run starts or at a digit).
_BOT = alternation(words("speaker_bot"))        # a summary's rounds: "用户：…；助手：…" / "User: …; Bot: …"
_SPEAKERS = alternation([*words("speaker_user"), *words("speaker_bot")])
_PIECES = re.compile(rf"[；;]\s*+|[，,]\s*+(?=(?:{_BOT})[：:])")
_ROLE = re.compile(rf"^\s*+(?:{_SPEAKERS})[：:]\s*+")
_CLAUSES = re.compile(r"[，,。!！?？()（）]\s*+")
_IDENTIFIER = re.compile(r"(?:(?<![A-Za-z0-9-])|(?=\d))[A-Za-z0-9-]*\d[A-Za-z0-9-]*")  # starts at run starts: linear
