"""``sqlite:///path``: the default store, one file that survives restarts.

Layout (``STORE_SCHEMA`` 1)::

    sessions(id, user_id, updated_at, history_count, rev, data)   the blob (UTF-8 JSON), without history
    messages(session_id, idx, data)                                one row per message, append-only
    user_slots(user_id, name, data, updated_at)                    persist: user values

``rev`` is a random non-zero number written with every commit of a session, so a process can
tell with one small read whether the session is still the one it committed last (its cache, see
``_load_for_turn``) without reading the blob. Files written before it existed are upgraded in
place when opened: the column is added (0 in old rows, which never validates a cache) and a
trigger, stored in the file so every writer fires it, resets ``rev`` to 0 whenever a row is
updated without a new one: a hand edit, or a process running an older dialogkit. Such files stay
schema 1: older versions name their columns and keep working on them.

There is no index on ``updated_at``: it served only ``purge_expired`` (rare housekeeping, which
now scans the table) and cost every turn an index update; opening a file drops it.

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
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from types import TracebackType

from dialogkit.errors import StoreError
from dialogkit.model.session import Message, PersistedValue, Session
from dialogkit.store.base import (
    KeyedLocks,
    PendingWrite,
    SessionCache,
    StagedTxn,
    _LockEntry,
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
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, updated_at REAL NOT NULL,
    history_count INTEGER NOT NULL, rev INTEGER NOT NULL DEFAULT 0, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS user_slots (
    user_id TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (user_id, name)) WITHOUT ROWID;
"""

# Run after the tables exist and ``rev`` was added to an older file (see the module docstring). The
# recursion guard ``NEW.rev != 0`` keeps the trigger's own update from firing it again.
_UPGRADE = (
    "DROP INDEX IF EXISTS sessions_updated_at",
    "CREATE TRIGGER IF NOT EXISTS sessions_rev_reset AFTER UPDATE ON sessions "
    "WHEN NEW.rev = OLD.rev AND NEW.rev != 0 "
    "BEGIN UPDATE sessions SET rev = 0 WHERE id = NEW.id; END",
)

_UPDATE_SESSION = ("UPDATE sessions SET user_id = ?, updated_at = ?, history_count = ?, rev = ?, data = ? "
                   "WHERE id = ?")
_INSERT_SESSION = "INSERT INTO sessions (user_id, updated_at, history_count, rev, data, id) VALUES (?, ?, ?, ?, ?, ?)"

_PURGE_BATCH = 256          # sessions locked (non-blocking) and deleted per purge transaction


def _new_rev() -> int:
    """A session row's revision: random, so a row deleted and written again never repeats an old
    one a cache may still hold, and never 0 (the value that means "unknown")."""
    return (int.from_bytes(os.urandom(8), "big") >> 2) | 1     # 62 random bits, odd


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

    def acquire(self, session_id: str, timeout_s: float) -> tuple[int, _LockEntry]:
        """Take ``session_id``'s turn lock against threads of this process and other processes.

        Returns what ``release`` needs. Not a context manager: the turn (``_Turn``) calls it once
        per turn and owns the exit, which saves the nested generator frames.
        """
        started = time.monotonic()
        offset = lock_offset(session_id)
        entry = self.threads.acquire(offset, timeout_s, self.url, name=session_id)
        try:
            if not self._try_lock(offset):
                self._wait_lock(offset, session_id, started + timeout_s, timeout_s)
        except BaseException:
            self.threads.release(offset, entry)
            raise
        return offset, entry

    def release(self, offset: int, entry: _LockEntry) -> None:
        """Free a lock taken with ``acquire``: the byte first, then the in-process lock."""
        try:
            self._unlock(offset)
        finally:
            self.threads.release(offset, entry)

    def _wait_lock(self, offset: int, session_id: str, deadline: float, timeout_s: float) -> None:
        """Poll the byte held by another process until it is ours or the deadline passes."""
        pause = 0.002
        while True:
            if time.monotonic() >= deadline:
                raise StoreError(lock_timeout_message(session_id, timeout_s, self.url))
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.05)
            if self._try_lock(offset):
                return

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


class _Turn:
    """``SqliteStore.transaction``: lock, load, hand out the ``StagedTxn``, commit, unlock.

    A class rather than stacked ``@contextmanager`` generators (lock file use, in-process lock,
    byte lock, the turn itself): this runs on every turn and the generator frames cost several
    microseconds. The order of release is the reverse of the order of taking, on every path.
    """

    __slots__ = ("_store", "_session_id", "_history_tail", "_timeout_s", "_locks", "_offset", "_entry", "_txn")

    def __init__(self, store: SqliteStore, session_id: str, history_tail: int, timeout_s: float) -> None:
        self._store = store
        self._session_id = session_id
        self._history_tail = history_tail
        self._timeout_s = timeout_s

    def __enter__(self) -> StagedTxn:
        store = self._store
        locks = self._locks = store._use_lock_file()
        try:
            self._offset, self._entry = locks.acquire(self._session_id, self._timeout_s)
        except BaseException:
            _done_with_lock_file(locks)
            raise
        try:
            session, count = store._load_for_turn(self._session_id, self._history_tail)
        except BaseException:
            self._unlock()
            raise
        txn = self._txn = StagedTxn(self._session_id, session, count, store.user_slots)
        return txn

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if exc_type is None:          # a block that raised commits nothing
                pending = self._txn.pending
                rev = self._store._commit(pending, self._timeout_s)
                if rev is not None and pending.session is not None:
                    self._store._cache.keep(self._session_id, rev, pending.session, self._history_tail)
        finally:
            self._unlock()

    def _unlock(self) -> None:
        try:
            self._locks.release(self._offset, self._entry)
        finally:
            _done_with_lock_file(self._locks)


def _done_with_lock_file(lock_file: _LockFile) -> None:
    """A turn or purge counted by ``SqliteStore._use_lock_file`` has left the lock file."""
    with _LOCK_FILES_GUARD:
        _release_lock_file(lock_file, user=False)


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

    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0
    ) -> AbstractContextManager[StagedTxn]:
        return _Turn(self, session_id, history_tail, timeout_s)

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
        locks = self._use_lock_file()
        try:
            yield locks
        finally:
            _done_with_lock_file(locks)

    def _use_lock_file(self) -> _LockFile:
        """Count one more turn (or purge) inside the lock file; ``_done_with_lock_file`` ends it."""
        with _LOCK_FILES_GUARD:
            locks = self._locks
            if locks is None:
                raise StoreError(f"the session store {self.url} is closed")
            locks.active += 1
            return locks

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
        """Create the tables, or check and upgrade in place those of an existing schema-1 file.

        One write transaction, so two processes opening a new file at once cannot both add
        ``rev``; a file of another schema version is refused before anything in it changes.
        """
        with self._errors():
            conn = self._conn()
            conn.execute("PRAGMA journal_mode = WAL")
            with self._write() as w:
                w.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                w.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),))
                found = w.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
                if found != str(STORE_SCHEMA):
                    raise StoreError(f"session store {self.url} has schema version {found}; "
                                     f"this dialogkit reads version {STORE_SCHEMA}")
                for statement in _DDL.split(";"):
                    if statement.strip():
                        w.execute(statement)
                if "rev" not in {row[1] for row in w.execute("PRAGMA table_info(sessions)")}:
                    w.execute("ALTER TABLE sessions ADD COLUMN rev INTEGER NOT NULL DEFAULT 0")
                for statement in _UPGRADE:
                    w.execute(statement)

    # ------------------------------------------------------------------ turns

    def _load_for_turn(self, session_id: str, history_tail: int) -> tuple[Session | None, int]:
        """The session at the start of a turn, read under its lock without any write transaction.

        If this process committed the session last and the stored ``rev`` is still the one it
        wrote, the cached object is reused: one SELECT of a number instead of decoding the blob
        and the history tail. The same SELECT finding no row ends a new session's load. Any other writer (another store or process, an older dialogkit, a
        hand edit) leaves a different ``rev`` or 0, and 0 is never written by a commit.
        """
        cached = self._cache.take(session_id)
        try:
            stored = self._conn().execute("SELECT rev FROM sessions WHERE id = ?", (session_id,)).fetchone()
        except sqlite3.Error as exc:     # inline ``_errors``: this runs on every turn
            raise StoreError(f"session store {self.url} failed: {exc}") from exc
        if stored is None:
            # A new session: nothing to read, and under its lock nobody else can create it.
            return None, 0
        if cached is not None and stored[0] == cached[0]:
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

    def _commit(self, pending: PendingWrite, timeout_s: float) -> int | None:
        """Write the turn in one transaction; the session's new ``rev``, or None when the session
        row was not written (nothing at all, or only user slots).

        No ownership check: the turn's OS lock cannot be lost while its process lives, and a
        process that dies takes its uncommitted turn with it.
        """
        if pending.empty:
            return None
        rev = _new_rev() if pending.blob is not None else None
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
                    self._write_pending(conn, pending, rev)
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
        return rev

    @staticmethod
    def _write_pending(conn: sqlite3.Connection, pending: PendingWrite, rev: int | None) -> None:
        sid = pending.session_id
        if pending.blob is not None:
            # UPDATE, and INSERT only when no row was there (a session's first turn): inside BEGIN
            # IMMEDIATE nobody can add the row in between. Measured a little cheaper per turn
            # than one INSERT ... ON CONFLICT DO UPDATE, which first tries (and fails) the insert.
            row = (pending.user_id, pending.updated_at, pending.history_count, rev, pending.blob, sid)
            if not conn.execute(_UPDATE_SESSION, row).rowcount:
                conn.execute(_INSERT_SESSION, row)
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
