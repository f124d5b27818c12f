"""The SQLite store's turn lock: one OS-locked byte of ``sessions.db.locks`` per session.

Other processes here are real ones: a holder started with ``python -c`` that takes a session's
turn, reports it, and then finishes, dies, or is killed when the test says so.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from dialogkit.errors import StoreError
from dialogkit.model.session import PersistedValue
from dialogkit.store import SqliteStore
from dialogkit.store.lock_file import lock_offset
from tests.store.factories import add_messages, make_session

ROOT = Path(__file__).resolve().parents[2]

# zh and en session ids: the lock is keyed by a hash of the id's UTF-8 bytes, whatever the script.
SESSION_IDS = {"zh": "会话-张三-1", "en": "chat-alice-1"}

# Holds a session's turn until told on stdin: "commit" ends the turn normally, "die" exits mid-turn.
HOLDER = """
import os, sys
from dialogkit.store import SqliteStore
from tests.store.factories import make_session
store = SqliteStore(sys.argv[1])
with store.transaction(sys.argv[2]) as txn:
    session = txn.session or make_session(sys.argv[2])
    session.turn += 1
    txn.save(session)
    print("locked", flush=True)
    if sys.stdin.readline().strip() == "die":
        os._exit(9)
print("done", flush=True)
"""

# Tries one turn of a session without waiting long; prints "busy" or "got".
PROBE = """
import sys
from dialogkit.errors import StoreError
from dialogkit.store import SqliteStore
store = SqliteStore(sys.argv[1])
try:
    with store.transaction(sys.argv[2], timeout_s=0.3):
        print("got", flush=True)
except StoreError:
    print("busy", flush=True)
"""


class Holder:
    """Another process in the middle of a turn of ``session_id``."""

    def __init__(self, db: Path, session_id: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), session_id], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"

    def tell(self, word: str) -> int:
        self.process.communicate(word + "\n", timeout=10)
        return self.process.returncode

    def kill(self) -> None:
        self.process.kill()
        self.process.communicate(timeout=10)


def probe(db: Path, session_id: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, str(db), session_id], cwd=ROOT,
                          capture_output=True, text=True, timeout=20, check=True)
    return done.stdout.strip()


def colliding_ids(prefix: str) -> tuple[str, str]:
    """Two session ids whose locks fall on the same byte (a birthday search: ~30k hashes)."""
    seen: dict[int, str] = {}
    index = 0
    while True:
        session_id = f"{prefix}-{index}"
        offset = lock_offset(session_id)
        if offset in seen:
            return seen[offset], session_id
        seen[offset] = session_id
        index += 1


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def store(db: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(db)
    yield opened
    opened.close()


def hold_in_thread(store: SqliteStore, session_id: str) -> tuple[threading.Thread, threading.Event]:
    """A thread of this process inside a turn of ``session_id`` until the returned event is set."""
    inside, leave = threading.Event(), threading.Event()

    def run() -> None:
        with store.transaction(session_id) as txn:
            inside.set()
            leave.wait(10)
            txn.save(txn.session or make_session(session_id))

    thread = threading.Thread(target=run)
    thread.start()
    assert inside.wait(5)
    return thread, leave


class TestCost:
    def test_the_lock_file_sits_beside_the_database(self, store: SqliteStore, db: Path) -> None:
        """Locks live in sessions.db.locks, never in the database: no write transaction to take one."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1"))
        assert db.with_name("sessions.db.locks").exists()

    def test_a_turn_is_one_read_and_one_write_transaction(self, store: SqliteStore) -> None:
        """Lock, one SELECT of the row's rev (the cache check), then BEGIN IMMEDIATE, the rows, COMMIT:
        nothing else. The rev trigger's program is entered by the UPDATE (Python's trace reports it
        with the UPDATE's text again) but its WHEN is false for a commit, so it writes nothing."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)       # this thread's connection
        with store.transaction("s1") as txn:
            assert txn.session is not None
            add_messages(txn.session, 2)
            txn.save(txn.session)
        kinds = [" ".join(s.split()[:3]) for s in statements]
        assert kinds == ["SELECT rev FROM", "BEGIN IMMEDIATE", "UPDATE sessions SET", "UPDATE sessions SET",
                         "INSERT OR REPLACE", "COMMIT"]     # both new messages in one INSERT

    @pytest.mark.parametrize("language", ["zh", "en"])
    @pytest.mark.parametrize("count", [1, 2, 8, 9, 30])
    def test_new_messages_of_any_count_are_stored_in_order(self, store: SqliteStore, language: str,
                                                           count: int) -> None:
        """Up to 8 new rows go in one multi-row INSERT, more (a history imported) row by row; both
        store every message at its index, after the ones already stored."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", language=language, messages=3))
        with store.transaction("s1") as txn:
            assert txn.session is not None
            add_messages(txn.session, count, language)
            txn.save(txn.session)
            expected = [m.content for m in txn.session.history]
        assert [m.content for m in store.history("s1")] == expected and len(expected) == 3 + count

    def test_a_new_session_is_inserted_without_a_missed_update(self, store: SqliteStore) -> None:
        """No row was read under the lock, so the first commit goes straight to INSERT."""
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=1))
        kinds = [" ".join(s.split()[:3]) for s in statements]
        assert kinds == ["SELECT rev FROM", "BEGIN IMMEDIATE", "INSERT INTO sessions", "INSERT OR REPLACE",
                         "COMMIT"]

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_row_that_appeared_during_a_first_turn_is_overwritten(self, store: SqliteStore, db: Path,
                                                                    language: str) -> None:
        """A row written meanwhile without the lock (a hand edit) is updated, as a missed UPDATE then
        INSERT did before; the turn neither fails nor leaves the stray row."""
        session_id = SESSION_IDS[language]
        with store.transaction(session_id) as txn:
            assert txn.session is None
            with closing(sqlite3.connect(db, isolation_level=None)) as other:
                other.execute("INSERT INTO sessions (id, user_id, updated_at, history_count, data) "
                              "VALUES (?, 'stray', 0, 0, '{}')", (session_id,))
            txn.save(make_session(session_id, language=language, messages=1, user_id="alice"))
        loaded = store.load(session_id)
        assert loaded is not None and loaded.user_id == "alice" and len(loaded.history) == 1
        assert store.sessions_of("alice") == [session_id]

    def test_the_run_record_is_one_committed_statement(self, store: SqliteStore, db: Path) -> None:
        """mark_running is one INSERT in autocommit: no BEGIN/COMMIT round trips, and another
        connection sees the record before the turn around it commits."""
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        with store.transaction("s1") as txn:
            txn.save(make_session("s1"))
            assert txn.mark_running("s1:t1", 5.0) is None
            with closing(sqlite3.connect(db, isolation_level=None)) as other:
                assert other.execute("SELECT at FROM runs WHERE session_id = 's1'").fetchall() == [(5.0,)]
                assert other.execute("SELECT COUNT(*) FROM sessions").fetchone() == (0,)
            assert txn.mark_running("s1:t1", 6.0) == 5.0
        kinds = [" ".join(s.split()[:3]) for s in statements]
        assert kinds[:4] == ["SELECT rev FROM", "INSERT OR IGNORE", "INSERT OR IGNORE", "SELECT at FROM"]
        assert kinds.count("BEGIN IMMEDIATE") == 1           # the turn's commit, nothing else

    def test_the_users_named_are_read_in_the_statement_that_checks_the_cache(self, store: SqliteStore) -> None:
        """One SELECT gives the row's rev and the named users' slots; asking for those users later
        costs no statement, for a new session and a stored one; a user not named costs one."""
        with store.transaction("setup") as txn:
            txn.set_user_slot("support/alice", "product", PersistedValue(value="手机"))
        for _ in range(2):
            statements: list[str] = []
            store._conn().set_trace_callback(statements.append)
            with store.transaction("s1", users=("support/alice", "alice")) as txn:
                assert txn.user_slots("support/alice")["product"].value == "手机"
                assert txn.user_slots("alice") == {}
                assert len(statements) == 1 and "UNION ALL" in statements[0]
                assert txn.user_slots("bob") == {}
                assert len(statements) == 2
                txn.save(txn.session or make_session("s1", "alice"))
            store._conn().set_trace_callback(None)

    def test_a_turn_that_saves_nothing_writes_nothing(self, store: SqliteStore) -> None:
        """A turn that only reads takes no write transaction at all."""
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        with store.transaction("s1") as txn:
            assert txn.session is None
        assert not any(s.startswith("BEGIN IMMEDIATE") for s in statements)


class TestOtherProcesses:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_lock_held_by_another_process_blocks_until_the_timeout(
            self, store: SqliteStore, db: Path, language: str) -> None:
        """The turn waits out its timeout, then says which session is busy; other sessions go on."""
        session_id = SESSION_IDS[language]
        holder = Holder(db, session_id)
        try:
            started = time.monotonic()
            with pytest.raises(StoreError, match=rf"session '{session_id}' is busy.*0\.3s"), \
                    store.transaction(session_id, timeout_s=0.3):
                pass
            assert time.monotonic() - started >= 0.3
            with store.transaction("someone-else", timeout_s=1.0) as txn:
                txn.save(make_session("someone-else"))
        finally:
            assert holder.tell("commit") == 0
        with store.transaction(session_id, timeout_s=5.0) as txn:
            assert txn.session is not None and txn.session.turn == 1

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_killed_holder_frees_the_session_at_once(self, store: SqliteStore, db: Path, language: str) -> None:
        """SIGKILL mid-turn: the kernel drops the lock, nothing of the turn is saved, no wait."""
        session_id = SESSION_IDS[language]
        with store.transaction(session_id) as txn:
            txn.save(make_session(session_id, language=language, messages=2))
        holder = Holder(db, session_id)
        holder.kill()
        started = time.monotonic()
        with store.transaction(session_id, timeout_s=5.0) as txn:
            assert txn.session is not None and txn.session.turn == 0
        assert time.monotonic() - started < 0.5

    def test_a_waiting_turn_proceeds_when_the_holder_commits(self, store: SqliteStore, db: Path) -> None:
        """A turn blocked by another process gets the session once it commits, and sees its write."""
        holder = Holder(db, "s1")
        result: list[int] = []

        def wait_for_turn() -> None:
            with store.transaction("s1", timeout_s=10.0) as txn:
                result.append(txn.session.turn if txn.session else -1)

        waiter = threading.Thread(target=wait_for_turn)
        waiter.start()
        time.sleep(0.1)
        assert result == []
        assert holder.tell("commit") == 0
        waiter.join(10)
        assert result == [1]


class TestOneProcess:
    def test_a_lock_is_visible_to_other_processes_while_a_thread_holds_it(
            self, store: SqliteStore, db: Path) -> None:
        """A turn running in a thread here blocks the same session in another process."""
        thread, leave = hold_in_thread(store, "s1")
        try:
            assert probe(db, "s1") == "busy"
            assert probe(db, "s2") == "got"
        finally:
            leave.set()
            thread.join()
        assert probe(db, "s1") == "got"

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_colliding_sessions_serialise_and_keep_the_byte_locked(
            self, store: SqliteStore, db: Path, language: str) -> None:
        """Two sessions on one byte: the second waits for the first in-process, and when the first
        ends the byte stays locked for the second (one thread's unlock never frees another's)."""
        first, second = colliding_ids(SESSION_IDS[language])
        thread, leave = hold_in_thread(store, first)
        got_second, leave_second = threading.Event(), threading.Event()

        def take_second() -> None:
            with store.transaction(second, timeout_s=10.0):
                got_second.set()
                leave_second.wait(10)

        waiter = threading.Thread(target=take_second)
        waiter.start()
        try:
            assert not got_second.wait(0.2)              # serialised behind the first session
            leave.set()
            thread.join()
            assert got_second.wait(5)
            assert probe(db, first) == "busy"            # the byte is still held, for `second`
        finally:
            leave.set()
            leave_second.set()
            waiter.join()
        assert probe(db, first) == "got" and probe(db, second) == "got"

    def test_colliding_sessions_under_load_neither_deadlock_nor_lose_turns(self, store: SqliteStore) -> None:
        """Threads hammering two sessions that share a byte finish, with every turn counted."""
        ids = colliding_ids("load")
        errors: list[BaseException] = []

        def turns(session_id: str) -> None:
            try:
                for _ in range(20):
                    with store.transaction(session_id, timeout_s=20.0) as txn:
                        session = txn.session or make_session(session_id)
                        session.turn += 1
                        txn.save(session)
            except BaseException as exc:       # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=turns, args=(ids[i % 2],)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert errors == []
        for session_id in ids:
            loaded = store.load(session_id)
            assert loaded is not None and loaded.turn == 60

    def test_two_stores_on_one_file_exclude_each_other_and_closing_one_keeps_the_locks(
            self, store: SqliteStore, db: Path) -> None:
        """Stores of one process share the lock file: same-session turns exclude each other, and
        closing a store does not drop locks another still holds (closing an fd would)."""
        other = SqliteStore(db)
        thread, leave = hold_in_thread(store, "s1")
        try:
            with pytest.raises(StoreError, match="session 's1' is busy"), other.transaction("s1", timeout_s=0.2):
                pass
            other.close()
            assert probe(db, "s1") == "busy"
        finally:
            leave.set()
            thread.join()

    def test_closing_a_store_mid_turn_keeps_that_turns_lock_until_it_ends(self, db: Path) -> None:
        """close() from another thread does not cut a running turn's lock short."""
        closing = SqliteStore(db)
        inside, leave = threading.Event(), threading.Event()

        def turn() -> None:
            with closing.transaction("s1"):
                inside.set()
                leave.wait(10)

        thread = threading.Thread(target=turn)
        thread.start()
        try:
            assert inside.wait(5)
            closing.close()
            assert probe(db, "s1") == "busy"
        finally:
            leave.set()
            thread.join()
        assert probe(db, "s1") == "got"

    def test_a_closed_store_refuses_turns(self, db: Path) -> None:
        """After close() the lock file is gone for this store: a clear error, not a bad descriptor."""
        closed = SqliteStore(db)
        closed.close()
        with pytest.raises(StoreError, match="is closed"), closed.transaction("s1"):
            pass


class TestPurge:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_purge_skips_a_session_whose_turn_runs_in_another_process(
            self, store: SqliteStore, db: Path, language: str) -> None:
        """An idle-looking session in the middle of a turn elsewhere is left alone, then purged."""
        session_id = SESSION_IDS[language]
        old = make_session(session_id, language=language, messages=2)
        old.updated_at = time.time() - 3600
        with store.transaction(session_id) as txn:
            txn.save(old)
        holder = Holder(db, session_id)
        try:
            assert store.purge_expired(time.time() - 1800) == 0
            assert store.load(session_id) is not None
        finally:
            holder.kill()
        assert store.purge_expired(time.time() - 1800) == 1
        assert store.load(session_id) is None and store.history(session_id) == []

    def test_purge_skips_a_session_whose_turn_runs_in_a_thread(self, store: SqliteStore) -> None:
        """Same in this process: the running turn is skipped, not waited for."""
        old = make_session("old")
        old.updated_at = time.time() - 3600
        with store.transaction("old") as txn:
            txn.save(old)
        thread, leave = hold_in_thread(store, "old")
        try:
            started = time.monotonic()
            assert store.purge_expired(time.time() - 1800) == 0
            assert time.monotonic() - started < 0.5
        finally:
            leave.set()
            thread.join()
