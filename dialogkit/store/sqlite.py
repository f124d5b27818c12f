"""``sqlite:///path``: the default store, one file that survives restarts; safe for many threads and processes.

Layout (``STORE_SCHEMA`` 1)::

    sessions(id, user_id, updated_at, history_count, rev, data)   the blob (UTF-8 JSON), without history;
                                                                   indexed by user_id (``sessions_of``)
    messages(session_id, idx, data)                                one row per message, append-only;
                                                                   retention deletes a prefix
    user_slots(user_id, name, data, updated_at)                    persisted values, keyed by
                                                                   ``user_scope(bot, user)``

A turn holds its session's lock from load to commit: one byte of a lock file beside the database,
locked by the OS (see ``dialogkit.store.lock_file``), so a killed process frees its sessions at
once. The turn is then one read plus one short ``BEGIN IMMEDIATE`` write (the commit, written by
``dialogkit.store.sqlite_writes``): the database-wide write lock is held only for that, and
different sessions run in parallel. The read also brings the persisted values of the users the
turn names (``transaction(users=...)``), which it would otherwise query one by one.

``rev`` is a random non-zero number written with every commit of a session, so a process can
tell with one small read whether the session is still the one it committed last and reuse the
object instead of decoding it again (``SessionCache``).

Connections: one per thread, WAL mode (readers never block the writer), ``busy_timeout`` set;
the statements of every turn go through one cursor per thread (see ``SqliteStore._cursor``).
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from types import TracebackType

from dialogkit.errors import StoreError
from dialogkit.model.session import Message, PersistedValue, Session
from dialogkit.store.cache import SessionCache
from dialogkit.store.codec import decode_messages, decode_session, decode_slots
from dialogkit.store.lock_file import LockFileHandle
from dialogkit.store.protocol import slice_bounds
from dialogkit.store.sqlite_checkpoints import SAFETY_NET_PAGES, Checkpointer
from dialogkit.store.sqlite_writes import write_pending
from dialogkit.store.staging import PendingWrite, StagedTxn, UserRows, reading_first

__all__ = ["STORE_SCHEMA", "SqliteStore"]

STORE_SCHEMA = 1

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
CREATE TABLE IF NOT EXISTS runs (
    session_id TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (session_id, key)) WITHOUT ROWID;
"""

# Files made before ``rev`` existed are upgraded in place when opened (and stay schema 1: older
# versions name their columns and keep working): the column is added, 0 in old rows, which never
# matches a cache, and this trigger, stored in the file so every writer fires it, resets ``rev`` to
# 0 when a row is updated without a new one (a hand edit, an older dialogkit). ``NEW.rev != 0``
# keeps the trigger's own update from firing it again. The index on ``updated_at`` served only
# the rare purge and cost every turn an update: it is dropped. The index on ``user_id`` finds a
# user's sessions; a turn's UPDATE names ``user_id`` only when the user changed, so the index
# costs the turn nothing (SQLite skips an index none of whose columns the UPDATE sets).
_UPGRADE = (
    "DROP INDEX IF EXISTS sessions_updated_at",
    "CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions (user_id)",
    "CREATE TRIGGER IF NOT EXISTS sessions_rev_reset AFTER UPDATE ON sessions "
    "WHEN NEW.rev = OLD.rev AND NEW.rev != 0 "
    "BEGIN UPDATE sessions SET rev = 0 WHERE id = NEW.id; END",
)

_MARK_RUNNING = "INSERT OR IGNORE INTO runs (session_id, key, at) VALUES (?, ?, ?)"
_SELECT_REV = "SELECT rev FROM sessions WHERE id = ?"

# When a message or a persisted value was written (its JSON ``at``); a corrupt row has none, and
# is left to the load that meets it rather than failing a purge.
_AT = "(CASE WHEN json_valid(data) THEN json_extract(data, '$.at') END)"

_PURGE_BATCH = 256          # sessions locked (non-blocking) and deleted per purge transaction


@lru_cache(maxsize=8)
def _rev_and_users_sql(users: int) -> str:
    """The session's ``rev`` and the slot rows of ``users`` keys, told apart by ``name`` (NULL only
    in the session's row: a slot's name is part of its key). One branch per key: ~1.2 us cheaper
    than one ``user_id IN (...)``, for which SQLite builds a table of the keys first."""
    return "SELECT rev, NULL, NULL FROM sessions WHERE id = ?" + (
        " UNION ALL SELECT user_id, name, data FROM user_slots WHERE user_id = ?" * users)


_REVS = random.Random()      # seeded from os.urandom; its own, so a caller's random.seed() cannot repeat it
if hasattr(os, "register_at_fork"):                 # POSIX: nor can a forked worker repeat its parent's
    os.register_at_fork(after_in_child=_REVS.seed)


def _new_rev() -> int:
    """A session row's revision: random, so a row deleted and written again never repeats an old
    one a cache may still hold, and never 0 (the value that means "unknown"). Not os.urandom
    per turn: a system call (~0.45 us) where the generator takes 0.04."""
    return _REVS.getrandbits(62) | 1


class _Turn:
    """``SqliteStore.transaction``: lock, load, hand out the ``StagedTxn``, commit, unlock.

    A class rather than stacked ``@contextmanager`` generators (lock file use, in-process lock,
    byte lock, the turn itself): this runs on every turn and the generator frames cost several
    microseconds. The order of release is the reverse of the order of taking, on every path.
    """

    __slots__ = ("_entry", "_history_tail", "_locks", "_offset", "_session_id", "_store", "_timeout_s", "_txn",
                 "_users")

    def __init__(self, store: SqliteStore, session_id: str, history_tail: int, timeout_s: float,
                 users: tuple[str, ...]) -> None:
        self._store = store
        self._session_id = session_id
        self._history_tail = history_tail
        self._timeout_s = timeout_s
        self._users = users

    def __enter__(self) -> StagedTxn:
        store = self._store
        locks = self._locks = store._locks.enter()
        try:
            self._offset, self._entry = locks.acquire(self._session_id, self._timeout_s)
        except BaseException:
            locks.leave()
            raise
        try:
            session, count, found = store._load_for_turn(self._session_id, self._history_tail, self._users)
        except BaseException:
            self._unlock()
            raise
        txn = self._txn = StagedTxn(self._session_id, session, count, reading_first(found, store.user_slots),
                                    store.mark_running)
        return txn

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if exc_type is None:          # a block that raised commits nothing
                pending = self._txn.pending
                rev = self._store._commit(pending, self._timeout_s)
                if rev is not None and pending.session is not None and pending.blob is not None:
                    self._store._cache.keep(self._session_id, rev, pending.session, self._history_tail,
                                            len(pending.blob))
        finally:
            self._unlock()

    def _unlock(self) -> None:
        try:
            self._locks.release(self._offset, self._entry)
        finally:
            self._locks.leave()


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
        self._checkpoints = Checkpointer(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for the session store {self.url}: {exc}") from exc
        self._locks = LockFileHandle(self.url)     # opened once the schema is known to be ours
        try:
            self._init_schema()
            self._locks.open(self.path.with_name(self.path.name + ".locks"))
        except StoreError:
            self.close()              # no connection left open behind a store that failed to open
            raise

    # ------------------------------------------------------------------ public API

    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0, users: tuple[str, ...] = ()
    ) -> AbstractContextManager[StagedTxn]:
        return _Turn(self, session_id, history_tail, timeout_s, users)

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
        return decode_slots(user_id, rows)

    def delete_session(self, session_id: str, *, timeout_s: float = 30.0) -> int:
        """Delete under the session's turn lock: a running turn ends first, and cannot commit after."""
        with self._locks.inside() as locks:
            offset, entry = locks.acquire(session_id, timeout_s)
            try:
                self._cache.take(session_id)
                with self._errors(), self._write() as conn:
                    deleted: int = conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,)).rowcount
                    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
                    conn.execute("DELETE FROM runs WHERE session_id = ?", (session_id,))
            finally:
                locks.release(offset, entry)
        return deleted

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
            with self._locks.inside() as locks, locks.try_hold_many(ids[start:start + _PURGE_BATCH]) as free:
                if not free:
                    continue
                with self._errors(), self._write() as conn:
                    for sid in free:      # re-checked: a turn may have committed since the SELECT
                        if conn.execute("DELETE FROM sessions WHERE id = ? AND updated_at < ?",
                                        (sid, older_than)).rowcount:
                            conn.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
                            conn.execute("DELETE FROM runs WHERE session_id = ?", (sid,))
                            purged += 1
        return purged

    def mark_running(self, session_id: str, key: str, at: float) -> float | None:
        """``StoreTxn.mark_running``: its own committed write, apart from the turn's (which the
        session's lock keeps from running meanwhile); the row goes with the session."""
        # One statement outside BEGIN ... COMMIT is its own transaction, committed when it ends: the
        # same durable write as BEGIN IMMEDIATE / INSERT / COMMIT (a write statement takes the write
        # lock before it reads, waiting as long as busy_timeout), in one round trip instead of three.
        try:     # inline ``_errors``: this runs on every turn that runs an action
            cur = self._cursor()
            if cur.execute(_MARK_RUNNING, (session_id, key, at)).rowcount:
                return None
            found = cur.execute("SELECT at FROM runs WHERE session_id = ? AND key = ?", (session_id, key)).fetchone()
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        earlier: float = found[0]
        return earlier

    def sessions_of(self, user_id: str) -> list[str]:
        if not user_id:                     # anonymous sessions are stored with user_id '': no one's
            return []
        with self._errors():
            rows = self._conn().execute("SELECT id FROM sessions WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()
        return [r[0] for r in rows]

    def user_keys(self) -> list[str]:
        with self._errors():
            rows = self._conn().execute("SELECT DISTINCT user_id FROM user_slots ORDER BY user_id").fetchall()
        return [r[0] for r in rows]

    def delete_user_slots(self, key: str, *, older_than: float | None = None) -> int:
        with self._errors(), self._write() as conn:
            if older_than is None:
                cursor = conn.execute("DELETE FROM user_slots WHERE user_id = ?", (key,))
            else:
                cursor = conn.execute(f"DELETE FROM user_slots WHERE user_id = ? AND {_AT} < ?", (key, older_than))
            deleted: int = cursor.rowcount
        return deleted

    def purge_history(self, older_than: float) -> int:
        """Delete each history's prefix through its last message older than ``older_than``.

        Sessions whose turn runs are skipped (their lock is tried, never waited for); ``rev`` goes
        to 0 so no process reuses a cached session that still holds the deleted messages.
        """
        with self._errors():
            cuts = dict(self._conn().execute(
                f"SELECT session_id, MAX(idx) FROM messages WHERE {_AT} < ? "
                "GROUP BY session_id", (older_than,)).fetchall())
        ids = sorted(cuts)
        purged = 0
        for start in range(0, len(ids), _PURGE_BATCH):
            with self._locks.inside() as locks, locks.try_hold_many(ids[start:start + _PURGE_BATCH]) as free:
                if not free:
                    continue
                with self._errors(), self._write() as conn:
                    for sid in free:
                        purged += conn.execute("DELETE FROM messages WHERE session_id = ? AND idx <= ?",
                                               (sid, cuts[sid])).rowcount
                        conn.execute("UPDATE sessions SET rev = 0 WHERE id = ?", (sid,))
        return purged

    def close(self) -> None:
        self._checkpoints.close()
        with self._all_guard:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._locks.close()

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
                conn.execute(f"PRAGMA wal_autocheckpoint = {SAFETY_NET_PAGES}")   # see sqlite_checkpoints
                conn.execute("PRAGMA cache_size = -512")   # 512 KiB a connection, not 2 MiB: a turn reads a
                #                                            few indexed rows; the OS caches the file
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open the session store {self.url}: {exc}") from exc
            self._all.append(conn)
        self._local.conn = conn
        self._local.cur = conn.cursor()
        return conn

    def _cursor(self) -> sqlite3.Cursor:
        """This thread's cursor, for the statements every turn runs (the session's ``rev``, the
        commit, ``mark_running``): ``conn.execute`` makes a cursor for each statement and drops it,
        about 1,300 instructions a statement, five or six a turn. One cursor serves them all because
        each is done with before the next runs: a write ends when it is executed, and the reads look
        up one row by key, which the fetch steps past, so SQLite resets the statement (no read
        transaction is left open); a ``fetchall`` reads to the end."""
        cur: sqlite3.Cursor | None = getattr(self._local, "cur", None)
        if cur is None:
            self._conn()
            cur = self._local.cur
        return cur

    def _failed(self, exc: sqlite3.Error) -> StoreError:
        return StoreError(f"session store {self.url} failed: {exc}")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Any SQLite failure becomes a StoreError naming the file, never a raw traceback."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc

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

    def _load_for_turn(self, session_id: str, history_tail: int,
                       users: tuple[str, ...]) -> tuple[Session | None, int, UserRows | None]:
        """The session at the start of a turn, read under its lock without any write transaction,
        and the stored rows of the ``users`` asked for (None when none were).

        If this process committed the session last and the stored ``rev`` is still the one it
        wrote, the cached object is reused: one SELECT of a number instead of decoding the blob
        and the history tail. The same SELECT finding no row ends a new session's load. Any other
        writer (another store or process, an older dialogkit, a hand edit) leaves a different
        ``rev`` or 0, and 0 is never written by a commit.
        """
        cached = self._cache.take(session_id)
        stored, found = self._rev_and_users(session_id, users)
        if stored is None:
            # A new session: nothing to read, and under its lock nobody else can create it.
            return None, 0, found
        if cached is not None and stored == cached[0]:
            session = cached[1]
            return session, session.history_offset + len(session.history), found
        return (*self._read(session_id, history_tail), found)

    def _rev_and_users(self, session_id: str,
                       users: tuple[str, ...]) -> tuple[int | None, UserRows | None]:
        """The session row's ``rev`` (None: no row) and, when ``users`` are named, their stored
        slot rows by user and name, in one statement and read transaction. A turn asks for them
        when a task starts and when it persists a value; measured in the support bot, reading them
        here costs a turn that does not ask ~2-5 us and saves one that does ~7-10 us (a read of
        its own, one per key, each a read transaction), ~3-6 us a turn over a session."""
        try:     # inline ``_errors``: this runs on every turn
            cur = self._cursor()
            if not users:
                row = cur.execute(_SELECT_REV, (session_id,)).fetchone()
                return (None if row is None else row[0]), None
            rows = cur.execute(_rev_and_users_sql(len(users)), (session_id, *users)).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        rev: int | None = None
        found: UserRows = {user: {} for user in users}
        for first, name, data in rows:
            if name is None:         # the session's row: (rev, NULL, NULL)
                rev = first
            else:
                found[first][name] = data
        return rev, found

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
        # The rows read are the last ones, contiguous up to count - 1 (retention deletes only a
        # prefix), so the first one's index is count - len(messages) with or without a purge.
        return decode_session(session_id, blob, messages, count - len(messages)), count

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
            cur = self._cursor()
            conn = cur.connection
            custom_timeout = int(timeout_s * 1000) != self._busy_ms
            if custom_timeout:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
            try:
                cur.execute("BEGIN IMMEDIATE")
                try:
                    write_pending(cur, pending, rev)
                except BaseException:
                    if conn.in_transaction:
                        conn.rollback()
                    raise
                cur.execute("COMMIT")
                self._checkpoints.committed()
            finally:
                if custom_timeout:
                    conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        return rev
