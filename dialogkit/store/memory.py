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
from dialogkit.store.codec import decode_messages, decode_session, decode_slots, older_prefix, written_before
from dialogkit.store.locks import KeyedLocks
from dialogkit.store.protocol import slice_bounds
from dialogkit.store.staging import PendingWrite, StagedTxn

__all__ = ["MemoryStore"]


@dataclass
class _Record:
    blob: bytes
    updated_at: float
    user_id: str
    history: list[str] = field(default_factory=list)   # message JSON, append-only
    base: int = 0                                      # absolute index of history[0] (after retention)

    @property
    def count(self) -> int:
        return self.base + len(self.history)


class MemoryStore:
    """A dict of sessions guarded by one short data lock plus a lock per session for turns."""

    def __init__(self, url: str = "memory://") -> None:
        self.url = url
        self._data_lock = threading.Lock()
        self._sessions: dict[str, _Record] = {}
        self._user_slots: dict[str, dict[str, str]] = {}
        self._users: dict[str, set[str]] = {}       # user id -> ids of that user's sessions
        self._running: dict[str, dict[str, float]] = {}  # session id -> idempotency key -> when marked
        self._turn_locks = KeyedLocks()

    @contextmanager
    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0, users: tuple[str, ...] = ()
    ) -> Iterator[StagedTxn]:
        """``users`` changes nothing here: a read of this store's values costs no round trip."""
        with self._turn_locks.hold(session_id, timeout_s, self.url):
            session, count = self._read(session_id, history_tail)
            txn = StagedTxn(session_id, session, count, self.user_slots, self.mark_running)
            yield txn
            self._commit(txn.pending)

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None:
        return self._read(session_id, history_tail)[0]

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]:
        with self._data_lock:
            record = self._sessions.get(session_id)
            if record is None:
                return []
            lo, hi = slice_bounds(record.count, start, end)
            rows = record.history[max(0, lo - record.base):max(0, hi - record.base)]
        return decode_messages(session_id, rows)

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        with self._data_lock:
            raw = dict(self._user_slots.get(user_id, {}))
        return decode_slots(user_id, raw.items())

    def delete_session(self, session_id: str, *, timeout_s: float = 30.0) -> int:
        with self._turn_locks.hold(session_id, timeout_s, self.url), self._data_lock:
            record = self._drop(session_id)
        return 0 if record is None else len(record.history)

    def purge_expired(self, older_than: float) -> int:
        """Drop idle sessions; a session whose turn is running right now is left alone."""
        with self._data_lock:
            expired = [sid for sid, record in self._sessions.items()
                       if record.updated_at < older_than and not self._turn_locks.held(sid)]
            for sid in expired:
                self._drop(sid)
        return len(expired)

    def sessions_of(self, user_id: str) -> list[str]:
        with self._data_lock:
            return sorted(self._users.get(user_id, ()))

    def user_keys(self) -> list[str]:
        with self._data_lock:
            return sorted(key for key, slots in self._user_slots.items() if slots)

    def delete_user_slots(self, key: str, *, older_than: float | None = None) -> int:
        with self._data_lock:
            slots = self._user_slots.get(key, {})
            names = [name for name, raw in slots.items()
                     if older_than is None or written_before(raw, older_than)]
            for name in names:
                del slots[name]
            if not slots:
                self._user_slots.pop(key, None)
        return len(names)

    def purge_history(self, older_than: float) -> int:
        """Drop each history's messages up to its last one older than ``older_than``; a session
        whose turn is running is left alone (its turn appends at the count it loaded)."""
        purged = 0
        with self._data_lock:
            for sid, record in self._sessions.items():
                if self._turn_locks.held(sid):
                    continue
                cut = older_prefix(record.history, older_than)
                del record.history[:cut]
                record.base += cut
                purged += cut
        return purged

    def close(self) -> None:
        """Nothing to release: the data lives as long as the object."""

    def mark_running(self, session_id: str, key: str, at: float) -> float | None:
        """``StoreTxn.mark_running``: the record lives as long as the session."""
        with self._data_lock:
            marks = self._running.setdefault(session_id, {})
            earlier = marks.get(key)
            if earlier is None:
                marks[key] = at
            return earlier

    def _read(self, session_id: str, history_tail: int | None) -> tuple[Session | None, int]:
        with self._data_lock:
            record = self._sessions.get(session_id)
            if record is None:
                return None, 0
            count = record.count
            offset = record.base if history_tail is None else max(record.base, count - history_tail)
            blob, rows = record.blob, record.history[offset - record.base:]
        return decode_session(session_id, blob, rows, offset), count

    def _drop(self, session_id: str) -> _Record | None:
        """Remove a session and its index entry; the caller holds the data lock."""
        record = self._sessions.pop(session_id, None)
        self._running.pop(session_id, None)
        if record is not None:
            self._unindex(record.user_id, session_id)
        return record

    def _unindex(self, user_id: str, session_id: str) -> None:
        owned = self._users.get(user_id)
        if owned is not None:
            owned.discard(session_id)
            if not owned:
                del self._users[user_id]

    def _commit(self, pending: PendingWrite) -> None:
        with self._data_lock:
            if pending.blob is not None:
                sid = pending.session_id
                record = self._sessions.get(sid)
                if record is None:
                    record = self._sessions[sid] = _Record(pending.blob, pending.updated_at, pending.user_id)
                if pending.user_changed or record.user_id != pending.user_id:
                    self._unindex(record.user_id, sid)
                    record.user_id = pending.user_id
                    if pending.user_id:             # an anonymous session is in no user's index
                        self._users.setdefault(pending.user_id, set()).add(sid)
                record.blob = pending.blob
                record.updated_at = pending.updated_at
                del record.history[max(0, pending.first_index - record.base):]
                record.history.extend(pending.appended)
                for index, row in pending.rewritten.items():
                    if 0 <= index - record.base < len(record.history):
                        record.history[index - record.base] = row
            for (user_id, name), raw in pending.slots.items():
                slots = self._user_slots.setdefault(user_id, {})
                if raw is None:
                    slots.pop(name, None)
                else:
                    slots[name] = raw
