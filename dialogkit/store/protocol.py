"""What every session store promises: the ``SessionStore`` and ``StoreTxn`` protocols.

A turn runs inside ``store.transaction(session_id)``: the session's lock is held, the session is
loaded with the tail of its history, and everything the turn changes (the session blob, new
history messages, user-scoped slots) is *staged* and written atomically when the ``with`` block
exits normally. If the block raises, nothing is written: a crash mid-turn never leaves half a
turn behind. A store that cannot do its job raises ``dialogkit.errors.StoreError``.

Why history lives apart from the session blob: a turn at 2,000 stored messages must cost about
what a turn at 20 costs. The blob is saved without ``history``; messages are appended one row
(or list entry) each and never rewritten but to mask a finished task's sensitive values
(``rewrite_messages``), and a load reads only the last ``history_tail`` of them.
``Session.history_offset`` is the absolute index of ``history[0]``, so on save every message
whose absolute index is at or past the stored count is new.

Users' data: a session records its ``user_id``, and every store indexes sessions by it
(``sessions_of``) without costing a turn anything while the user stays the same. Retention deletes
the oldest messages of a history (``purge_history``); the messages kept keep their absolute
indexes. See docs/stores.md, "Users' data and retention".
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from dialogkit.model.session import Message, PersistedValue, Session

__all__ = ["SessionStore", "StoreTxn", "slice_bounds"]


@runtime_checkable
class StoreTxn(Protocol):
    """One turn of one session, run under that session's lock."""

    session: Session | None

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]: ...

    def set_user_slot(self, user_id: str, name: str, value: PersistedValue) -> None: ...

    def delete_user_slot(self, user_id: str, name: str) -> None: ...

    def save(self, session: Session) -> None: ...

    def rewrite_messages(self, updates: dict[int, Message]) -> None:
        """Replace stored history messages (by absolute index) when the turn commits: a finished
        task's sensitive values masked at rest (docs/stores.md, "Sensitive values at rest")."""
        ...

    def mark_running(self, key: str, at: float) -> float | None:
        """Durably record, before an action runs, that it is about to (docs/stores.md, "Actions
        run at most once"); the time of an earlier record of ``key``, or None."""
        ...


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions, their full history and user-scoped slots live between turns."""

    url: str

    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0, users: tuple[str, ...] = ()
    ) -> AbstractContextManager[StoreTxn]:
        """The turn of ``session_id`` (see above). ``users``: keys whose persisted values the turn
        may ask for (its user's, ``user_scope(bot, user)`` and the bare user id), read along with
        the session where that saves the store a round trip; any other key is read when asked."""
        ...

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None: ...

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]: ...

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]: ...

    def delete_session(self, session_id: str, *, timeout_s: float = 30.0) -> int:
        """Delete a session and its history once no turn of it runs; the messages deleted."""
        ...

    def purge_expired(self, older_than: float) -> int: ...

    def sessions_of(self, user_id: str) -> list[str]:
        """The ids of the stored sessions whose ``user_id`` is ``user_id``, sorted."""
        ...

    def user_keys(self) -> list[str]:
        """Every key that holds persisted values (``user_scope(bot, user)`` or a bare user id), sorted."""
        ...

    def delete_user_slots(self, key: str, *, older_than: float | None = None) -> int:
        """Delete the persisted values under ``key`` (only those written before ``older_than`` when
        given, by their ``at``); how many were deleted."""
        ...

    def purge_history(self, older_than: float) -> int:
        """Delete every history message written before ``older_than`` (by its ``at``), with the
        messages before it in its session, skipping sessions whose turn runs; how many were deleted."""
        ...

    def close(self) -> None: ...


def slice_bounds(count: int, start: int, end: int | None) -> tuple[int, int]:
    """What ``SessionStore.history(start, end)`` means over ``count`` stored messages: Python
    slice semantics on absolute indexes (negative counts from the end), the same in every store."""
    lo, hi, _ = slice(start, end).indices(count)
    return lo, max(lo, hi)
