"""``sqlite:///path``: the default store, one file that survives restarts.

Layout (``STORE_SCHEMA`` 1)::

    sessions(id, user_id, updated_at, history_count, data)   the blob, without history
    messages(session_id, idx, data)                           one row per message, append-only
    user_slots(user_id, name, data, updated_at)               persist: user values
    session_locks(session_id, owner, pid, host, expires_at)   per-session turn locks

Locking: threads of this process wait on an in-process lock per session; processes sharing the
file wait on a lease row in ``session_locks``. Different sessions run their turns in parallel:
the database-wide write lock (``BEGIN IMMEDIATE``) is taken only for the short moments that take
a lease and that commit a turn, never for the whole turn. A lease left by a killed process is
reclaimed once it expires, or at once when its process is known dead on this host.

Connections: one per thread, WAL mode (readers never block the writer), ``busy_timeout`` set.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dialogkit.errors import StoreError
from dialogkit.runtime.session import Message, PersistedValue, Session
from dialogkit.store.base import (
    HOST,
    KeyedLocks,
    PendingWrite,
    StagedTxn,
    decode_messages,
    decode_session,
    decode_slot,
    lock_timeout_message,
    pid_alive,
    slice_bounds,
)

__all__ = ["STORE_SCHEMA", "SqliteStore"]

STORE_SCHEMA = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, updated_at REAL NOT NULL,
    history_count INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_updated_at ON sessions (updated_at);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS user_slots (
    user_id TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (user_id, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_locks (
    session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
    expires_at REAL NOT NULL);
"""

_LIVE_LOCKS = "SELECT session_id FROM session_locks WHERE expires_at >= ?"


class SqliteStore:
    """Sessions in one SQLite file; safe for many threads and many processes."""

    def __init__(self, path: str | Path, *, url: str | None = None, lock_lease_s: float = 120.0,
                 busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.url = url or f"sqlite:///{self.path}"
        self.lock_lease_s = lock_lease_s
        self._busy_ms = int(busy_timeout_s * 1000)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_guard = threading.Lock()
        self._closed = False
        self._turn_locks = KeyedLocks()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for the session store {self.url}: {exc}") from exc
        self._init_schema()

    # ------------------------------------------------------------------ public API

    @contextmanager
    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0
    ) -> Iterator[StagedTxn]:
        deadline = time.monotonic() + timeout_s
        with self._turn_locks.hold(session_id, timeout_s, self.url):
            token = uuid.uuid4().hex
            # Taking the lease also reads the session (one short write transaction), and the commit
            # releases it: a turn costs two write transactions, not four.
            rows = self._take_lease(session_id, token, deadline, timeout_s, history_tail)
            released = False
            try:
                session, count = self._decode(session_id, rows, history_tail)
                txn = StagedTxn(session_id, session, count, self.user_slots)
                yield txn
                released = self._commit(txn.pending, token, timeout_s)
            finally:
                if not released:
                    self._drop_lease(session_id, token)

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None:
        return self._read(session_id, history_tail)[0]

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]:
        with self._errors(), self._snapshot() as conn:
            row = conn.execute("SELECT history_count FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                return []
            lo, hi = slice_bounds(row[0], start, end)
            rows = conn.execute(
                "SELECT data FROM messages WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
                (session_id, lo, hi)).fetchall()
        return decode_messages(session_id, [r[0] for r in rows])

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        with self._errors():
            rows = self._conn().execute(
                "SELECT name, data FROM user_slots WHERE user_id = ?", (user_id,)).fetchall()
        return {name: decode_slot(user_id, name, data) for name, data in rows}

    def delete_session(self, session_id: str) -> None:
        with self._errors(), self._write() as conn:
            conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def purge_expired(self, older_than: float) -> int:
        """Delete sessions idle since before ``older_than``; user slots and running turns survive."""
        with self._errors(), self._write() as conn:
            now = time.time()
            ids = [r[0] for r in conn.execute(
                f"SELECT id FROM sessions WHERE updated_at < ? AND id NOT IN ({_LIVE_LOCKS})",
                (older_than, now)).fetchall()]
            for sid in ids:
                conn.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
                conn.execute("DELETE FROM sessions WHERE id = ?", (sid,))
        return len(ids)

    def close(self) -> None:
        with self._all_guard:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()

    # ------------------------------------------------------------------ connections

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._all_guard:
            if self._closed:
                raise StoreError(f"the session store {self.url} is closed")
            try:
                conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=self._busy_ms / 1000)
                conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
                conn.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open the session store {self.url}: {exc}") from exc
            self._all.append(conn)
        self._local.conn = conn
        return conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Any SQLite failure becomes a StoreError naming the file, never a raw traceback."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"session store {self.url} failed: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A short ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on error."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        conn.execute("COMMIT")

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction, so several SELECTs see the same committed state."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def _init_schema(self) -> None:
        with self._errors():
            conn = self._conn()
            conn.execute("PRAGMA journal_mode = WAL")
            with self._write() as w:
                for statement in _DDL.split(";"):
                    if statement.strip():
                        w.execute(statement)
                w.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),))
                found = w.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if found != str(STORE_SCHEMA):
            raise StoreError(f"session store {self.url} has schema version {found}; "
                             f"this dialogkit reads version {STORE_SCHEMA}")

    # ------------------------------------------------------------------ turns

    def _take_lease(self, session_id: str, token: str, deadline: float, timeout_s: float,
                    history_tail: int | None) -> tuple[int, str, list[str]] | None:
        """Wait for the session's cross-process lease (reclaimed from expired or dead holders);
        return the session's row and history tail, read under the lease."""
        pause = 0.002
        while True:
            try:
                with self._write() as conn:
                    now = time.time()
                    row = conn.execute("SELECT pid, host, expires_at FROM session_locks WHERE session_id = ?",
                                       (session_id,)).fetchone()
                    free = row is None or row[2] < now or (row[1] == HOST and not pid_alive(row[0]))
                    if free:
                        conn.execute("INSERT OR REPLACE INTO session_locks VALUES (?, ?, ?, ?, ?)",
                                     (session_id, token, os.getpid(), HOST, now + self.lock_lease_s))
                        return self._fetch(conn, session_id, history_tail)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise StoreError(f"session store {self.url} failed: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"session store {self.url} failed: {exc}") from exc
            if time.monotonic() >= deadline:
                raise StoreError(lock_timeout_message(session_id, timeout_s, self.url))
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _drop_lease(self, session_id: str, token: str) -> None:
        with self._errors(), self._write() as conn:
            conn.execute("DELETE FROM session_locks WHERE session_id = ? AND owner = ?", (session_id, token))

    def _read(self, session_id: str, history_tail: int | None) -> tuple[Session | None, int]:
        """The blob and the history tail from one read snapshot (WAL: never blocks on writers)."""
        with self._errors(), self._snapshot() as conn:
            rows = self._fetch(conn, session_id, history_tail)
        return self._decode(session_id, rows, history_tail)

    @staticmethod
    def _fetch(conn: sqlite3.Connection, session_id: str,
               history_tail: int | None) -> tuple[int, str, list[str]] | None:
        row = conn.execute("SELECT history_count, data FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            return None
        count, blob = row
        offset = 0 if history_tail is None else max(0, count - history_tail)
        messages = conn.execute("SELECT data FROM messages WHERE session_id = ? AND idx >= ? ORDER BY idx",
                                (session_id, offset)).fetchall()
        return count, blob, [m[0] for m in messages]

    @staticmethod
    def _decode(session_id: str, rows: tuple[int, str, list[str]] | None,
                history_tail: int | None) -> tuple[Session | None, int]:
        if rows is None:
            return None, 0
        count, blob, messages = rows
        offset = 0 if history_tail is None else max(0, count - history_tail)
        return decode_session(session_id, blob, messages, offset), count

    def _commit(self, pending: PendingWrite, token: str, timeout_s: float) -> bool:
        """Write the turn and release its lease in one transaction, only if this turn still owns
        the lease. Returns False when there was nothing to write (the caller releases the lease)."""
        if pending.empty:
            return False
        with self._errors():
            conn = self._conn()
            custom_timeout = int(timeout_s * 1000) != self._busy_ms
            if custom_timeout:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
            try:
                with self._write():
                    owner = conn.execute("SELECT owner FROM session_locks WHERE session_id = ?",
                                         (pending.session_id,)).fetchone()
                    if owner is None or owner[0] != token:
                        raise StoreError(f"session {pending.session_id!r}: the turn's lock expired and "
                                         f"was taken over before it could commit; nothing was saved")
                    self._write_pending(conn, pending)
                    conn.execute("DELETE FROM session_locks WHERE session_id = ? AND owner = ?",
                                 (pending.session_id, token))
            finally:
                if custom_timeout:
                    conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        return True

    @staticmethod
    def _write_pending(conn: sqlite3.Connection, pending: PendingWrite) -> None:
        sid = pending.session_id
        if pending.blob is not None:
            conn.execute(
                "INSERT INTO sessions (id, user_id, updated_at, history_count, data) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, updated_at = excluded.updated_at, "
                "history_count = excluded.history_count, data = excluded.data",
                (sid, pending.user_id, pending.updated_at, pending.history_count, pending.blob))
            conn.execute("DELETE FROM messages WHERE session_id = ? AND idx >= ?", (sid, pending.first_index))
            conn.executemany("INSERT INTO messages (session_id, idx, data) VALUES (?, ?, ?)",
                             [(sid, pending.first_index + i, data) for i, data in enumerate(pending.appended)])
        now = time.time()
        for (user_id, name), raw in pending.slots.items():
            if raw is None:
                conn.execute("DELETE FROM user_slots WHERE user_id = ? AND name = ?", (user_id, name))
            else:
                conn.execute(
                    "INSERT INTO user_slots (user_id, name, data, updated_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (user_id, name) DO UPDATE SET data = excluded.data, "
                    "updated_at = excluded.updated_at", (user_id, name, raw, now))
