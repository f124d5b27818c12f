"""The data of the context window: what goes in, what comes out, and the part priorities.

Kept apart from ``window.py`` (the trimming algorithm) so callers that only assemble inputs or
render the result (the CLI's ``/context`` and ``/export``) need not read the algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

TRUNCATION_MARKER = "…[truncated {n} tokens]"

# Part names, as they appear in ``ContextMessage.part`` and ``BuiltContext.breakdown``.
SYSTEM = "system"
FLOW = "flow"
SUMMARY = "summary"
PINNED = "pinned"
ENTITY_MEMORY = "entity_memory"
RECENT = "recent"
ROUND_SUMMARY = "round_summary"
OLDER = "older"
CURRENT = "current"

PRIORITIES: dict[str, int] = {
    SYSTEM: 100,
    CURRENT: 100,
    FLOW: 90,
    SUMMARY: 80,
    PINNED: 70,
    ENTITY_MEMORY: 60,
    RECENT: 50,
    ROUND_SUMMARY: 30,
    OLDER: 20,
}
"""Higher is kept longer. Round summaries outrank the raw older rounds they replace: once a
stretch of history is compressed, the compressed form is the last of it to go."""


@dataclass
class ContextMessage:
    """One message of the built context, with why it is there and what it costs."""

    role: str
    content: str
    priority: int
    tokens: int
    part: str
    pinned: bool = False


@dataclass
class Round:
    """One exchange: a user message and the bot's reply(ies), in order. ``index`` is absolute."""

    index: int
    messages: list[tuple[str, str]]


@dataclass
class RoundSummary:
    """A summary of rounds ``start_round..end_round`` (inclusive).

    Level 1 covers 5 rounds; level 2 covers 3 level-1 summaries. A summary stands in for the
    raw rounds (or lower-level summaries) inside its range when the window needs the room.
    """

    start_round: int
    end_round: int
    text: str
    level: Literal[1, 2] = 1

@dataclass
class ContextInputs:
    """Everything the window may send, before trimming.

    ``rounds`` are chronological and need only be the rounds not yet covered by a summary plus
    the recent ones: building is O(what is passed), so callers keep it O(recent window).
    """

    system_prompt: str
    flow_instructions: str = ""
    summary: str = ""
    pinned: list[tuple[str, str]] = field(default_factory=list)
    entity_memory: str = ""
    rounds: list[Round] = field(default_factory=list)
    round_summaries: list[RoundSummary] = field(default_factory=list)
    current_user_message: str = ""
    sensitive_values: list[str] = field(default_factory=list)


@dataclass
class BuiltContext:
    """The messages to send plus the accounting the CLI's ``/stats`` and ``/export`` show.

    ``used`` and ``sent_tokens`` include the reply priming; ``dropped`` names parts left out
    entirely, ``summarized`` the rounds (and summaries) a higher-level summary stands in for,
    ``truncated`` the parts cut to fit.
    """

    messages: list[ContextMessage]
    budget: int
    used: int
    dropped: list[str]
    truncated: list[str]
    full_tokens: int
    sent_tokens: int
    saved_tokens: int
    saved_pct: float
    breakdown: dict[str, int]
    summarized: list[str] = field(default_factory=list)
    encoding: str = ""

    @property
    def net_saved_tokens(self) -> int:
        """What sending the window saves against the full history, signed: negative while the
        window costs more (``saved_tokens`` stops at 0; ``saved_pct`` is signed too)."""
        return self.full_tokens - self.sent_tokens

    @property
    def over_budget(self) -> bool:
        """True only when the pinned parts alone could not be cut below the budget."""
        return self.used > self.budget
