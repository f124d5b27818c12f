"""What the SQLite store adds to the contract: files, corrupt rows, append-only history, other processes.

The OS lock file itself (timeouts, dead holders, hash collisions, expiry) is in test_sqlite_locks.py.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from dialogkit.errors import StoreError
from dialogkit.runtime.session import PersistedValue
from dialogkit.store import SqliteStore
from tests.store.factories import add_messages, child_turn_script, make_session

# A second process that takes session s1's turn lock, says so, and then either finishes the turn
# after a pause ("hold") or dies mid-turn after saving ("die"), as a killed worker would.
CHILD = child_turn_script("from dialogkit.store import SqliteStore\nstore = SqliteStore(sys.argv[1])")


def run_child(db: Path, mode: str, pause: float = 0.0) -> subprocess.Popen[str]:
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), mode, str(pause)], cwd=root,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "locked"
    return child


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "folder" / "sessions.db"


@pytest.fixture
def store(db: Path) -> SqliteStore:
    opened = SqliteStore(db)
    yield opened          # type: ignore[misc]
    opened.close()


def sql(db: Path, statement: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run one statement on the file behind the store's back, as an operator (or a bug) would."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        return conn.execute(statement, params).fetchall()


def finish(child: subprocess.Popen[str]) -> int:
    child.communicate(timeout=10)
    return child.returncode


class TestFile:
    def test_the_folder_is_created_and_the_file_uses_wal(self, store: SqliteStore, db: Path) -> None:
        """A path in a folder that does not exist yet just works, in WAL mode."""
        assert db.exists()
        assert sql(db, "PRAGMA journal_mode") == [("wal",)]

    def test_a_file_that_is_not_a_database_is_a_store_error(self, tmp_path: Path) -> None:
        """Pointing the store at some other file fails with the URL, not a sqlite3 traceback."""
        bogus = tmp_path / "notes.db"
        bogus.write_text("这不是数据库 / this is not a database " * 100)
        with pytest.raises(StoreError, match="notes.db"):
            SqliteStore(bogus)

    def test_a_file_of_another_store_schema_is_refused(self, store: SqliteStore, db: Path) -> None:
        """A database written by a future layout is refused instead of being misread."""
        sql(db, "UPDATE meta SET value = '2' WHERE key = 'schema'")
        with pytest.raises(StoreError, match="schema version 2"):
            SqliteStore(db)


class TestCorruptRows:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_corrupt_session_row_names_the_session(self, store: SqliteStore, db: Path, language: str) -> None:
        """Bad JSON in the blob is a StoreError naming the session, for load and for a turn."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", language=language, messages=2))
        sql(db, "UPDATE sessions SET data = '{\"id\": \"s1\", 半截' WHERE id = 's1'")
        with pytest.raises(StoreError, match="session 's1' is corrupt"):
            store.load("s1")
        with pytest.raises(StoreError, match="session 's1' is corrupt"), store.transaction("s1"):
            pass
        store.delete_session("s1")               # the failed turn released its lock: cleanup works
        assert store.load("s1") is None

    def test_a_corrupt_message_row_names_the_session(self, store: SqliteStore, db: Path) -> None:
        """One bad history row is reported with its session id."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=3))
        sql(db, "UPDATE messages SET data = 'oops' WHERE session_id = 's1' AND idx = 2")
        with pytest.raises(StoreError, match="session 's1' has a corrupt history message"):
            store.history("s1")

    def test_a_corrupt_user_slot_names_the_user_and_slot(self, store: SqliteStore, db: Path) -> None:
        """A bad user-slot row names who and what, so it can be fixed by hand."""
        with store.transaction("s1") as txn:
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
        sql(db, "UPDATE user_slots SET data = '[1, 2' WHERE user_id = 'alice'")
        with pytest.raises(StoreError, match="user 'alice': stored slot 'order_id' is corrupt"):
            store.user_slots("alice")


class TestAppendOnly:
    def test_a_turn_writes_the_same_rows_at_2000_messages_as_at_20(self, store: SqliteStore, db: Path) -> None:
        """History rows are appended, never rewritten: a turn writes its new messages and no others."""
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("CREATE TABLE audit (n INTEGER)")
        conn.execute("INSERT INTO audit VALUES (0)")
        for event in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER count_{event.lower()} AFTER {event} ON messages "
                         f"BEGIN UPDATE audit SET n = n + 1; END")

        def rows_written_by_one_turn(session_id: str) -> int:
            before = conn.execute("SELECT n FROM audit").fetchone()[0]
            with store.transaction(session_id) as txn:
                assert txn.session is not None
                add_messages(txn.session, 2)
                txn.save(txn.session)
            return conn.execute("SELECT n FROM audit").fetchone()[0] - before

        for session_id, count in (("small", 20), ("large", 2000)):
            with store.transaction(session_id) as txn:
                txn.save(make_session(session_id, messages=count))
        assert rows_written_by_one_turn("small") == 2
        assert rows_written_by_one_turn("large") == 2
        conn.close()
        assert len(store.history("large")) == 2002


class TestProcesses:
    def test_a_turn_in_another_process_blocks_the_same_session(self, store: SqliteStore, db: Path) -> None:
        """Two processes serialise turns of one session; the second sees the first one's commit."""
        child = run_child(db, "hold", pause=1.5)
        started = time.monotonic()
        with store.transaction("other", timeout_s=2.0) as txn:      # other sessions are not blocked
            txn.save(make_session("other"))
        assert time.monotonic() - started < 1.0
        with store.transaction("s1", timeout_s=10.0) as txn:
            assert txn.session is not None and txn.session.turn == 1
        assert finish(child) == 0

    def test_a_process_killed_mid_turn_commits_nothing_and_frees_the_session(
            self, store: SqliteStore, db: Path) -> None:
        """A worker dying inside the turn (after save) leaves no trace, and its lock is reclaimed."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
        child = run_child(db, "die")
        assert finish(child) == 9
        started = time.monotonic()
        with store.transaction("s1", timeout_s=5.0) as txn:
            assert txn.session is not None and txn.session.turn == 0
        assert time.monotonic() - started < 1.0
        assert store.user_slots("alice") == {}
        assert len(store.history("s1")) == 2
