"""``sqlite:///path``: the default store, one file that survives restarts.

Layout (``STORE_SCHEMA`` 1)::

    sessions(id, user_id, updated_at, history_count, data)   the blob, without history
    messages(session_id, idx, data)                           one row per message, append-only
    user_slots(user_id, name, data, updated_at)               persist: user values

Locking: a turn holds its session's lock from load to commit, and that lock is an OS advisory
lock on ONE byte of a lock file beside the database (``sessions.db.locks``), at an offset hashed
from the session id. Taking it costs no SQLite write transaction, and the kernel drops it the
moment its process dies: a killed worker frees its sessions at once, with no stale lease to
expire and no pid to check. A turn is then one read plus one write transaction (the commit);
the database-wide write lock is held only for that commit, so different sessions run in parallel.

- Linux, macOS and other POSIX systems: ``fcntl.lockf`` byte-range locks. They belong to the
  *process*, not the thread, and closing *any* descriptor of the file drops *all* of the
  process's locks on it. Hence (a) threads first take an in-process lock keyed by the byte
  offset, not the session id: two sessions hashing to the same byte serialise, and no thread ever
  unlocks a byte another thread of this process still relies on; (b) the lock file is opened
  once per process and database, shared by every ``SqliteStore`` on that file (which also makes
  two stores of one process exclude each other), and closed only when the last one closes.
- Windows: ``msvcrt.locking`` on the same bytes, with the same in-process locks (released by the
  OS when the process ends, too). The ``session_locks`` lease table of earlier versions is no
  longer used; a file created by them keeps the empty table harmlessly. Every process sharing a
  file must run a dialogkit with the same locking scheme.
- The lock file must live on a local filesystem (or one with working POSIX locks), as SQLite's
  own WAL mode already requires.

Connections: one per thread, WAL mode (readers never block the writer), ``busy_timeout`` set.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from dialogkit.errors import StoreError
from dialogkit.runtime.session import Message, PersistedValue, Session
from dialogkit.store.base import (
    KeyedLocks,
    PendingWrite,
    SessionCache,
    StagedTxn,
    decode_messages,
    decode_session,
    decode_slot,
    lock_timeout_message,
    slice_bounds,
)

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

__all__ = ["LOCK_SLOTS", "STORE_SCHEMA", "SqliteStore", "lock_offset"]

STORE_SCHEMA = 1

LOCK_SLOTS = 2**31
"""Bytes of the lock file sessions hash onto. Every process sharing a database must agree on it."""

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
"""

_PURGE_BATCH = 256          # sessions locked (non-blocking) and deleted per purge transaction


def lock_offset(session_id: str) -> int:
    """The byte of the lock file that stands for ``session_id``: the same in every process and run
    (a stable hash, unlike ``hash()``), spread over ``LOCK_SLOTS`` so unrelated sessions rarely share one."""
    digest = hashlib.blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % LOCK_SLOTS


class _LockFile:
    """This process's one open descriptor of a database's lock file, plus its in-process locks.

    Shared by every store of this process on the same database (see ``_open_lock_file``): a
    second descriptor could never be closed without dropping the first one's POSIX locks. For the
    same reason the descriptor is closed only when no store uses it (``users``) *and* no turn or
    purge is inside it (``active``): a store closed while another thread's turn still runs must
    not drop that turn's lock, nor let the descriptor number be reused under it.
    """

    def __init__(self, path: Path, url: str) -> None:
        self.path = path
        self.url = url
        self.users = 0                       # stores using it; both counts under _LOCK_FILES_GUARD
        self.active = 0                      # turns and purges inside it right now
        self.threads = KeyedLocks()          # keyed by byte offset: see the module docstring
        self._seek_guard = threading.Lock()  # Windows locks at the file position: seek + lock as one
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {path} of the session store {url}: {exc}") from exc

    @contextmanager
    def hold(self, session_id: str, timeout_s: float) -> Iterator[None]:
        """Hold ``session_id``'s turn lock against threads of this process and other processes."""
        deadline = time.monotonic() + timeout_s
        offset = lock_offset(session_id)
        with self.threads.hold(offset, timeout_s, self.url, name=session_id):
            pause = 0.002
            while not self._try_lock(offset):
                if time.monotonic() >= deadline:
                    raise StoreError(lock_timeout_message(session_id, timeout_s, self.url))
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                pause = min(pause * 2, 0.05)
            try:
                yield
            finally:
                self._unlock(offset)

    @contextmanager
    def try_hold_many(self, session_ids: Iterable[str]) -> Iterator[list[str]]:
        """Lock, without waiting, every given session whose turn is not running; yield those."""
        by_offset: dict[int, list[str]] = {}
        for sid in session_ids:
            by_offset.setdefault(lock_offset(sid), []).append(sid)
        free: list[str] = []
        with ExitStack() as stack:
            for offset, sids in by_offset.items():
                if stack.enter_context(self.threads.try_hold(offset)) and self._try_lock(offset):
                    stack.callback(self._unlock, offset)
                    free.extend(sids)
            yield free

    if sys.platform == "win32":
        def _try_lock(self, offset: int) -> bool:
            with self._seek_guard:
                os.lseek(self.fd, offset, os.SEEK_SET)
                try:
                    msvcrt.locking(self.fd, msvcrt.LK_NBLCK, 1)
                except OSError as exc:
                    if exc.errno in (errno.EACCES, errno.EDEADLOCK):
                        return False
                    raise self._failure(exc) from exc
            return True

        def _unlock(self, offset: int) -> None:
            with self._seek_guard:
                os.lseek(self.fd, offset, os.SEEK_SET)
                msvcrt.locking(self.fd, msvcrt.LK_UNLCK, 1)
    else:
        def _try_lock(self, offset: int) -> bool:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset, os.SEEK_SET)
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EAGAIN):
                    return False
                raise self._failure(exc) from exc
            return True

        def _unlock(self, offset: int) -> None:
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, offset, os.SEEK_SET)

    def _failure(self, exc: OSError) -> StoreError:
        return StoreError(f"cannot lock {self.path} for the session store {self.url}: {exc}")


_LOCK_FILES: dict[tuple[int, str], _LockFile] = {}
_LOCK_FILES_GUARD = threading.Lock()


def _registry_key(path: Path) -> tuple[int, str]:
    """Keyed by pid as well, so a forked child (which inherits descriptors but none of the
    parent's locks) opens its own."""
    return os.getpid(), os.path.realpath(path)


def _open_lock_file(path: Path, url: str) -> _LockFile:
    """The process-wide ``_LockFile`` of ``path``, opened on first use."""
    key = _registry_key(path)
    with _LOCK_FILES_GUARD:
        lock_file = _LOCK_FILES.get(key)
        if lock_file is None:
            lock_file = _LOCK_FILES[key] = _LockFile(path, url)
        lock_file.users += 1
        return lock_file


def _release_lock_file(lock_file: _LockFile, *, user: bool) -> None:
    """One store (``user``) or one turn stops using the file; the last one out closes it.

    Called with ``_LOCK_FILES_GUARD`` held, so nobody can pick the file up while it closes.
    """
    if user:
        lock_file.users -= 1
    else:
        lock_file.active -= 1
    if lock_file.users > 0 or lock_file.active > 0:
        return
    key = _registry_key(lock_file.path)
    if _LOCK_FILES.get(key) is lock_file:
        del _LOCK_FILES[key]
    os.close(lock_file.fd)


class SqliteStore:
    """Sessions in one SQLite file; safe for many threads and many processes."""

    def __init__(self, path: str | Path, *, url: str | None = None, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.url = url or f"sqlite:///{self.path}"
        self._busy_ms = int(busy_timeout_s * 1000)
        self._local = threading.local()
        self._cache = SessionCache()
        self._all: list[sqlite3.Connection] = []
        self._all_guard = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for the session store {self.url}: {exc}") from exc
        self._locks: _LockFile | None = None
        try:
            self._init_schema()
            self._locks = _open_lock_file(self.path.with_name(self.path.name + ".locks"), self.url)
        except StoreError:
            self.close()              # no connection left open behind a store that failed to open
            raise

    # ------------------------------------------------------------------ public API

    @contextmanager
    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0
    ) -> Iterator[StagedTxn]:
        with self._lock_file() as locks, locks.hold(session_id, timeout_s):
            session, count = self._load_for_turn(session_id, history_tail)
            txn = StagedTxn(session_id, session, count, self.user_slots)
            yield txn
            if self._commit(txn.pending, timeout_s):
                self._cache.keep(txn.pending, history_tail)

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
        """Delete sessions idle since before ``older_than``; user slots and running turns survive.

        A session is deleted only while this call holds its turn lock (taken without waiting), so
        a turn running in any thread or process is skipped rather than waited for or cut short.
        """
        with self._errors():
            ids = [r[0] for r in self._conn().execute(
                "SELECT id FROM sessions WHERE updated_at < ?", (older_than,)).fetchall()]
        purged = 0
        for start in range(0, len(ids), _PURGE_BATCH):
            with self._lock_file() as locks, locks.try_hold_many(ids[start:start + _PURGE_BATCH]) as free:
                if not free:
                    continue
                with self._errors(), self._write() as conn:
                    for sid in free:      # re-checked: a turn may have committed since the SELECT
                        if conn.execute("DELETE FROM sessions WHERE id = ? AND updated_at < ?",
                                        (sid, older_than)).rowcount:
                            conn.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
                            purged += 1
        return purged

    def close(self) -> None:
        with self._all_guard:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()
        with _LOCK_FILES_GUARD:
            locks, self._locks = self._locks, None
            if locks is not None:
                _release_lock_file(locks, user=True)

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
    def _lock_file(self) -> Iterator[_LockFile]:
        """The lock file, kept open (even past ``close``) until the turn using it ends."""
        with _LOCK_FILES_GUARD:
            locks = self._locks
            if locks is None:
                raise StoreError(f"the session store {self.url} is closed")
            locks.active += 1
        try:
            yield locks
        finally:
            with _LOCK_FILES_GUARD:
                _release_lock_file(locks, user=False)

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

    def _load_for_turn(self, session_id: str, history_tail: int) -> tuple[Session | None, int]:
        """The session at the start of a turn, read under its lock without any write transaction.

        If this process committed the session last and the stored blob is still the one it wrote,
        the cached object is reused: one SELECT instead of decoding the blob and the history tail.
        """
        cached = self._cache.take(session_id)
        if cached is not None:
            with self._errors():
                stored = self._conn().execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if stored is not None and stored[0] == cached[0]:
                session = cached[1]
                return session, session.history_offset + len(session.history)
        return self._read(session_id, history_tail)

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

    def _commit(self, pending: PendingWrite, timeout_s: float) -> bool:
        """Write the turn in one transaction; False when there was nothing to write.

        No ownership check: the turn's OS lock cannot be lost while its process lives, and a
        process that dies takes its uncommitted turn with it.
        """
        if pending.empty:
            return False
        # The same BEGIN IMMEDIATE / COMMIT-or-ROLLBACK as ``_write`` and the same StoreError as
        # ``_errors``, written out inline: this runs on every turn, where the two generator-based
        # context managers cost ~2 µs for nothing.
        try:
            conn = self._conn()
            custom_timeout = int(timeout_s * 1000) != self._busy_ms
            if custom_timeout:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    self._write_pending(conn, pending)
                except BaseException:
                    if conn.in_transaction:
                        conn.rollback()
                    raise
                conn.execute("COMMIT")
            finally:
                if custom_timeout:
                    conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        except sqlite3.Error as exc:
            raise StoreError(f"session store {self.url} failed: {exc}") from exc
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
            # No "DELETE ... WHERE idx >= first_index" first: first_index is the stored count read
            # under the turn lock, and rows are only ever written together with that count in one
            # transaction (deleted with it too), so no row at or past it exists. The one way to get
            # one is editing the file by hand (deleting a sessions row but not its messages):
            # OR REPLACE overwrites such leftovers instead of failing, at no extra statement.
            conn.executemany("INSERT OR REPLACE INTO messages (session_id, idx, data) VALUES (?, ?, ?)",
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
