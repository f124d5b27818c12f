"""``memory://``: sessions in this process's memory, for tests and throwaway chats.

It keeps the same contract as the persistent stores, down to serialising the session blob to
JSON on every save: a value SQLite or Redis could not store fails here too, and callers never
alias stored state (what ``load`` returns is a fresh copy; what ``save`` took is a snapshot).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from dialogkit.model.session import Message, PersistedValue, Session
from dialogkit.store.codec import decode_messages, decode_session, decode_slot
from dialogkit.store.locks import KeyedLocks
from dialogkit.store.protocol import slice_bounds
from dialogkit.store.staging import PendingWrite, StagedTxn

__all__ = ["MemoryStore"]


@dataclass
class _Record:
    blob: bytes
    updated_at: float
    history: list[str] = field(default_factory=list)   # message JSON, append-only


class MemoryStore:
    """A dict of sessions guarded by one short data lock plus a lock per session for turns."""

    def __init__(self, url: str = "memory://") -> None:
        self.url = url
        self._data_lock = threading.Lock()
        self._sessions: dict[str, _Record] = {}
        self._user_slots: dict[str, dict[str, str]] = {}
        self._turn_locks = KeyedLocks()

    @contextmanager
    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0
    ) -> Iterator[StagedTxn]:
        with self._turn_locks.hold(session_id, timeout_s, self.url):
            session, count = self._read(session_id, history_tail)
            txn = StagedTxn(session_id, session, count, self.user_slots)
            yield txn
            self._commit(txn.pending)

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None:
        return self._read(session_id, history_tail)[0]

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]:
        with self._data_lock:
            record = self._sessions.get(session_id)
            rows = list(record.history) if record else []
        lo, hi = slice_bounds(len(rows), start, end)
        return decode_messages(session_id, rows[lo:hi])

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        with self._data_lock:
            raw = dict(self._user_slots.get(user_id, {}))
        return {name: decode_slot(user_id, name, value) for name, value in raw.items()}

    def delete_session(self, session_id: str) -> None:
        with self._data_lock:
            self._sessions.pop(session_id, None)

    def purge_expired(self, older_than: float) -> int:
        """Drop idle sessions; a session whose turn is running right now is left alone."""
        with self._data_lock:
            expired = [sid for sid, record in self._sessions.items()
                       if record.updated_at < older_than and not self._turn_locks.held(sid)]
            for sid in expired:
                del self._sessions[sid]
        return len(expired)

    def close(self) -> None:
        """Nothing to release: the data lives as long as the object."""

    def _read(self, session_id: str, history_tail: int | None) -> tuple[Session | None, int]:
        with self._data_lock:
            record = self._sessions.get(session_id)
            if record is None:
                return None, 0
            count = len(record.history)
            offset = 0 if history_tail is None else max(0, count - history_tail)
            blob, rows = record.blob, record.history[offset:]
        return decode_session(session_id, blob, rows, offset), count

    def _commit(self, pending: PendingWrite) -> None:
        with self._data_lock:
            if pending.blob is not None:
                record = self._sessions.get(pending.session_id)
                if record is None:
                    record = self._sessions[pending.session_id] = _Record(pending.blob, pending.updated_at)
                record.blob = pending.blob
                record.updated_at = pending.updated_at
                del record.history[pending.first_index:]
                record.history.extend(pending.appended)
            for (user_id, name), raw in pending.slots.items():
                slots = self._user_slots.setdefault(user_id, {})
                if raw is None:
                    slots.pop(name, None)
                else:
                    slots[name] = raw
