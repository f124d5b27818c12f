"""A turn's writes, staged: what the turn changed, serialised, waiting for the store to commit it.

Every store hands out the same ``StagedTxn``, so "nothing is written unless the turn finishes"
and "a value that cannot be stored fails inside the turn" hold alike for all of them; a store
only supplies the reads and the commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dialogkit.errors import StoreError
from dialogkit.model.session import Message, PersistedValue, Session
from dialogkit.store.codec import decode_slot, decode_slots, encode_message, encode_session, encode_slot

__all__ = ["MarkRunning", "PendingWrite", "ReadUserSlots", "StagedTxn", "UserRows", "reading_first"]

MarkRunning = Callable[[str, str, float], "float | None"]
"""A store's ``mark_running(session_id, key, at)``: records durably, now, that the action of ``key``
is about to run, and returns when an earlier record says it already was (None the first time)."""

ReadUserSlots = Callable[[str], dict[str, PersistedValue]]
"""A store's read of one user's stored slots, made at most once per user in a turn."""


UserRows = dict[str, dict[str, str]]
"""Stored slot rows as read, not decoded yet: user key -> slot name -> row."""


def reading_first(found: UserRows | None, read: ReadUserSlots) -> ReadUserSlots:
    """A turn's ``ReadUserSlots``: the rows of the users read along with the session (the same read,
    no round trip of their own), decoded only if the turn asks for them, as most turns do not (so a
    corrupt row fails only a turn that uses it); any other user read from the store."""
    if not found:
        return read

    def user_slots(user_id: str) -> dict[str, PersistedValue]:
        rows = found.get(user_id)
        return read(user_id) if rows is None else decode_slots(user_id, rows.items())

    return user_slots


@dataclass
class PendingWrite:
    """Everything one turn commits, already serialised, so a commit is pure I/O."""

    session_id: str
    blob: bytes | None = None                # None: the session itself was not saved this turn
    user_id: str = ""                        # "": an anonymous session, indexed under no user
    previous_user: str | None = None         # the stored session's user (None: a new session)
    updated_at: float = 0.0
    first_index: int = 0                     # absolute index of appended[0] (= stored count at load)
    appended: list[str] = field(default_factory=list)
    slots: dict[tuple[str, str], str | None] = field(default_factory=dict)   # None = delete
    rewritten: dict[int, str] = field(default_factory=dict)   # absolute index -> a stored row, replaced
    session: Session | None = field(default=None, repr=False)   # the saved object (for a store's cache)

    @property
    def history_count(self) -> int:
        return self.first_index + len(self.appended)

    @property
    def user_changed(self) -> bool:
        """Whether the session's user index needs this commit: a new session, or another user.
        A store writes the index only then, so a turn of the same user costs it nothing."""
        return self.previous_user != self.user_id

    @property
    def empty(self) -> bool:
        return self.blob is None and not self.slots and not self.rewritten


class StagedTxn:
    """The ``StoreTxn`` every store hands out: reads go to the store, writes are staged.

    ``save`` serialises a snapshot immediately, so a caller that keeps mutating the session after
    saving does not change what is committed, and an unserialisable value fails at ``save`` (inside
    the turn) rather than at commit.
    """

    def __init__(
        self,
        session_id: str,
        session: Session | None,
        stored_count: int,
        read_user_slots: ReadUserSlots,
        mark_running: MarkRunning | None = None,
    ) -> None:
        self.session = session
        self.pending = PendingWrite(session_id=session_id, first_index=stored_count,
                                    previous_user=None if session is None else session.user_id or "")
        self._read_user_slots = read_user_slots
        self._mark_running = mark_running
        self._user_reads: dict[str, dict[str, PersistedValue]] = {}

    def mark_running(self, key: str, at: float) -> float | None:
        """Record, committed at once and outside this turn's staged writes, that the action of
        ``key`` is about to run; when an earlier record exists, its time (the run's outcome is
        unknown: the turn that made it never committed). A store without the record returns None."""
        if self._mark_running is None:
            return None
        return self._mark_running(self.pending.session_id, key, at)

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        """The user's slots as this turn sees them: stored values plus this turn's staged writes.

        Read from the store once per turn and user (a turn asks when a task starts and again when
        it persists); this turn's own writes are laid over that snapshot on every call.
        """
        if user_id not in self._user_reads:
            self._user_reads[user_id] = self._read_user_slots(user_id)
        slots = dict(self._user_reads[user_id])
        for (owner, name), raw in self.pending.slots.items():
            if owner != user_id:
                continue
            if raw is None:
                slots.pop(name, None)
            else:
                slots[name] = decode_slot(user_id, name, raw)
        return slots

    def set_user_slot(self, user_id: str, name: str, value: PersistedValue) -> None:
        self.pending.slots[(user_id, name)] = encode_slot(user_id, name, value)

    def delete_user_slot(self, user_id: str, name: str) -> None:
        self.pending.slots[(user_id, name)] = None

    def rewrite_messages(self, updates: dict[int, Message]) -> None:
        """Stage stored history rows (by absolute index) to be replaced when the turn commits: the
        one exception to "appended, never rewritten", so a finished task's sensitive values are
        masked at rest. Rows this turn appends are not stored yet: ``save`` writes them as they are."""
        sid = self.pending.session_id
        for index, message in updates.items():
            if index < self.pending.first_index:
                self.pending.rewritten[index] = encode_message(sid, message)

    def save(self, session: Session) -> None:
        pending = self.pending
        if session.id != pending.session_id:
            raise StoreError(f"transaction for session {pending.session_id!r} cannot save "
                             f"session {session.id!r}")
        stored = pending.first_index
        if session.history_offset > stored:
            raise StoreError(f"session {session.id!r}: history starts at message "
                             f"{session.history_offset} but only {stored} are stored")
        skip = stored - session.history_offset
        appended = [encode_message(session.id, m) for m in session.history[skip:]]
        pending.blob = encode_session(session)
        pending.session = session
        pending.user_id = session.user_id or ""        # "": anonymous, in no user's index
        pending.updated_at = session.updated_at
        pending.appended = appended
