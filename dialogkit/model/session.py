"""Session state as plain, serialisable data.

Everything a turn needs lives here so any store can save it in one transaction and a process
killed between turns loses nothing that was committed. The shared state machines never hold
per-session data: a turn binds this data to them and reads the new state back.
"""

from __future__ import annotations

import os
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 2
"""2: an anonymous session has no ``user_id`` (version 1 stored its own id there; see
``engine.ownership.is_ambiguous``). Stores read both."""
READABLE_VERSIONS = frozenset({1, SCHEMA_VERSION})


class _Data(BaseModel):
    """Validated when built or read from a store; written as plain attributes after that.

    A turn sets a dozen fields (turn, language, state, updated_at...), all typed: pydantic's own
    ``__setattr__`` validates nothing here and only adds a Python call to each. The fields set
    are then not tracked (``model_fields_set``), which nothing reads: the stored JSON holds every
    field either way. A name that is no field is not refused at run time (the type check refuses
    it), and it is never stored.
    """

    model_config = ConfigDict(extra="ignore", validate_assignment=False)
    __setattr__ = object.__setattr__


class SlotChange(_Data):
    """A value a slot held before a correction replaced it: kept as history, not overwritten."""

    value: Any
    turn: int
    at: float
    superseded_at: float


class Task(_Data):
    """One flow being worked on. The top of ``Session.stack`` is the active task."""

    id: str = Field(default_factory=lambda: os.urandom(6).hex())     # 48 random bits, as 12 hex digits
    flow: str
    state: str = "TASK_INIT"
    slots: dict[str, Any] = Field(default_factory=dict)
    slot_turns: dict[str, int] = Field(default_factory=dict)      # turn that filled each slot
    slot_history: dict[str, list[SlotChange]] = Field(default_factory=dict)
    prefilled: list[str] = Field(default_factory=list)            # slots filled from persistence
    pending_slot: str | None = None                               # the question awaiting an answer
    doubted: dict[str, str] = Field(default_factory=dict)         # slot -> a value asked about (a phone as an id)
    reprompts: int = 0
    started_turn: int = 0

    @property
    def key(self) -> str:
        """How the ticket summary names this task ("report_issue#3f9a…"): a second task of the same
        flow gets lines of its own."""
        return f"{self.flow}#{self.id}"


class Message(_Data):
    """One entry of the full history (the dual track's complete side)."""

    role: Literal["user", "assistant", "system"]
    content: str
    turn: int
    at: float = Field(default_factory=time.time)
    language: str = "en"
    pinned: bool = False


class Entity(_Data):
    """A tracked entity of the session's working memory."""

    id: str
    type: str
    kind: str = "other"
    value: Any
    aliases: list[str] = Field(default_factory=list)
    mentions: int = 0
    attributes: dict[str, Any] = Field(default_factory=dict)
    first_turn: int = 0
    last_turn: int = 0
    first_position: int = 0          # global mention order: the n-th mention of the session
    last_position: int = 0
    mention_turns: list[int] = Field(default_factory=list)
    scope: Literal["session", "user"] = "session"
    # parallel to mention_turns, so forgetting one turn can undo exactly what it added
    mention_positions: list[int] = Field(default_factory=list)
    mention_texts: list[str] = Field(default_factory=list)
    attribute_turns: dict[str, int] = Field(default_factory=dict)   # attribute -> turn that set it
    source: str = "user"             # who mentioned it first: user | bot | action


class SummaryItem(_Data):
    """One line of the ticket summary, kept in both languages and tagged with its turn."""

    key: str                          # stable id so an update replaces instead of appending
    zh: str
    en: str
    turn: int


class SummaryState(_Data):
    """The incremental ticket summary plus the hierarchical round summaries."""

    facts: list[SummaryItem] = Field(default_factory=list)       # what the user stated
    confirmed: list[SummaryItem] = Field(default_factory=list)   # what both sides confirmed
    pending: list[SummaryItem] = Field(default_factory=list)     # actions still to happen
    round_summaries: list[dict[str, Any]] = Field(default_factory=list)   # one per 5 rounds
    block_summaries: list[dict[str, Any]] = Field(default_factory=list)   # one per 3 of those
    # The items in the bot's own language besides zh and en (a Spanish bot's es), by language and
    # then by the item's en text; None for a zh/en bot (and in sessions stored before), at no cost.
    others: dict[str, dict[str, str]] | None = None


class Candidate(_Data):
    """One option of a clarification question."""

    value: Any
    type: str
    label: str
    entity_id: str | None = None


class PendingClarification(_Data):
    """A question the bot asked because a reference or a slot value was ambiguous."""

    kind: Literal["reference", "slot_value"]
    candidates: list[Candidate]
    original_text: str
    expression: str = ""             # the ambiguous words ("它", "him")
    slot: str | None = None
    flow: str | None = None
    language: str = "en"
    turn: int = 0
    kept: int = 0                    # unrelated turns it has survived (one is allowed)


class Noted(_Data):
    """Values a turn offered with no request, by entity type: the flow the next turn starts
    takes them (``engine.noted_values``)."""

    turn: int
    values: list[tuple[str, Any]] = Field(default_factory=list)


class PersistedValue(_Data):
    """A persisted slot value (session- or user-scoped) with its superseded history."""

    value: Any
    at: float = Field(default_factory=time.time)
    flow: str | None = None
    history: list[SlotChange] = Field(default_factory=list)


class Usage(_Data):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0


class Session(_Data):
    """Everything one conversation remembers between turns."""

    version: int = SCHEMA_VERSION
    bot_version: str = ""            # the bot file's version this session was last saved with (docs/lifecycle.md)
    id: str
    user_id: str | None = None       # None: anonymous, no user's values reach it (engine.ownership)
    language: str = "en"
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    turn: int = 0
    stack: list[Task] = Field(default_factory=list)
    history: list[Message] = Field(default_factory=list)        # the loaded tail of the full history
    history_offset: int = 0          # absolute index of history[0]; stores append, never rewrite
    full_tokens: int = 0             # running token total of the full history (dual track's cost side)
    entities: list[Entity] = Field(default_factory=list)
    entity_counter: int = 0
    mention_counter: int = 0
    last_list: list[str] = Field(default_factory=list)       # entity ids of the last list mentioned
    summary: SummaryState = Field(default_factory=SummaryState)
    pending: PendingClarification | None = None
    session_slots: dict[str, PersistedValue] = Field(default_factory=dict)
    executed: dict[str, dict[str, Any]] = Field(default_factory=dict)   # idempotency key -> result
    usage: Usage = Field(default_factory=Usage)
    last_flow: str | None = None     # the flow of the last task that ran (for follow-ups)
    last_turn_added: dict[str, Any] = Field(default_factory=dict)      # what the last user turn added (for forgetting)
    noted: Noted | None = None       # the last facts offered with no request
    # Sensitive values of finished tasks, redacted from later windows (capped).
    secrets: list[str] = Field(default_factory=list)

    @property
    def task(self) -> Task | None:
        return self.stack[-1] if self.stack else None

    @property
    def state(self) -> str:
        return self.stack[-1].state if self.stack else "IDLE"

    @property
    def flow(self) -> str | None:
        return self.stack[-1].flow if self.stack else None

    def entity(self, entity_id: str) -> Entity | None:
        return next((e for e in self.entities if e.id == entity_id), None)


def user_scope(bot: str, user_id: str) -> str:
    """The store key of one user's persisted values for one bot.

    Persisted values belong to the bot: two bots sharing a store never see each other's values.
    Values written before this scoping are stored under the bare user id (see ``engine.slot_writes``).
    """
    return f"{bot}/{user_id}"
