"""What the SQLite store adds to the contract: files, corrupt rows, append-only history, other processes.

The OS lock file itself (timeouts, dead holders, hash collisions, expiry) is in test_sqlite_locks.py.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from dialogkit.errors import StoreError
from dialogkit.model.session import PersistedValue
from dialogkit.store import SqliteStore
from dialogkit.store.cache import SessionCache
from dialogkit.store.codec import encode_message, encode_session
from dialogkit.store.lock_file import _LOCK_FILES
from tests.store.factories import add_messages, assert_the_dead_turn_left_nothing, child_turn_script, make_session

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
def store(db: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(db)
    yield opened
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
        with pytest.raises(StoreError, match=r"notes\.db"):
            SqliteStore(bogus)

    def test_a_file_of_another_store_schema_is_refused(self, store: SqliteStore, db: Path) -> None:
        """A database written by a future layout is refused instead of being misread, and untouched."""
        sql(db, "UPDATE meta SET value = '2' WHERE key = 'schema'")
        sql(db, "CREATE INDEX sessions_updated_at ON sessions (updated_at)")
        with pytest.raises(StoreError, match="schema version 2"):
            SqliteStore(db)
        assert sql(db, "SELECT name FROM sqlite_master WHERE name = 'sessions_updated_at'") != []


# The layout of files written before the rev column (schema 1 as first released), verbatim.
OLD_LAYOUT = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, updated_at REAL NOT NULL,
    history_count INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX sessions_updated_at ON sessions (updated_at);
CREATE TABLE messages (
    session_id TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)) WITHOUT ROWID;
CREATE TABLE user_slots (
    user_id TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (user_id, name)) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('schema', '1');
"""


def old_dialogkit_save(db: Path, session_id: str, turn: int, messages: int = 2) -> None:
    """Write a session as a dialogkit from before the rev column does: it names its own columns."""
    session = make_session(session_id, messages=messages)
    session.turn = turn
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute(
            "INSERT INTO sessions (id, user_id, updated_at, history_count, data) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, updated_at = excluded.updated_at, "
            "history_count = excluded.history_count, data = excluded.data",
            (session_id, session.user_id, session.updated_at, messages, encode_session(session)))
        conn.executemany("INSERT OR REPLACE INTO messages (session_id, idx, data) VALUES (?, ?, ?)",
                         [(session_id, i, encode_message(session_id, m)) for i, m in enumerate(session.history)])


def rev_of(db: Path, session_id: str) -> int:
    (rev,), = sql(db, "SELECT rev FROM sessions WHERE id = ?", (session_id,))
    assert isinstance(rev, int)
    return rev


class TestOldFiles:
    def test_a_file_without_rev_is_upgraded_in_place_and_keeps_its_sessions(self, tmp_path: Path) -> None:
        """Opening a file of the first schema-1 layout adds rev (0 in old rows), drops the
        updated_at index, and serves its sessions; it stays schema 1 for older versions."""
        db = tmp_path / "old.db"
        with closing(sqlite3.connect(db, isolation_level=None)) as conn:
            conn.executescript(OLD_LAYOUT)
        old_dialogkit_save(db, "s1", turn=4)
        store = SqliteStore(db)
        try:
            assert rev_of(db, "s1") == 0
            assert sql(db, "SELECT name FROM sqlite_master WHERE name = 'sessions_updated_at'") == []
            assert sql(db, "SELECT value FROM meta WHERE key = 'schema'") == [("1",)]
            with store.transaction("s1") as txn:
                assert txn.session is not None and txn.session.turn == 4
                txn.session.turn = 5
                add_messages(txn.session, 2)
                txn.save(txn.session)
            assert rev_of(db, "s1") != 0
            assert len(store.history("s1")) == 4
        finally:
            store.close()
        again = SqliteStore(db)                         # a second open changes nothing more
        try:
            loaded = again.load("s1")
            assert loaded is not None and loaded.turn == 5
        finally:
            again.close()

    def test_an_older_dialogkit_writing_the_session_invalidates_the_cache(self, tmp_path: Path) -> None:
        """A process that does not know rev updates the row without it: the trigger in the file
        resets rev to 0, so this store reloads instead of reusing its cached session."""
        db = tmp_path / "old.db"
        with closing(sqlite3.connect(db, isolation_level=None)) as conn:
            conn.executescript(OLD_LAYOUT)
        store = SqliteStore(db)
        try:
            with store.transaction("s1") as txn:          # committed here: cached with its rev
                txn.save(make_session("s1", messages=2))
            old_dialogkit_save(db, "s1", turn=9)
            assert rev_of(db, "s1") == 0
            with store.transaction("s1") as txn:
                assert txn.session is not None and txn.session.turn == 9
        finally:
            store.close()


class TestSessionCache:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_the_cache_is_bounded_by_bytes_as_well_as_entries(self, language: str) -> None:
        """Sessions weigh their committed row's bytes; the oldest go first once the budget is spent,
        a re-kept session is counted once, and one heavier than the whole budget is never kept."""
        cache = SessionCache(size=100, max_bytes=1000)
        for i in range(5):
            cache.keep(f"s{i}", i + 1, make_session(f"s{i}", language=language), None, 300)
        assert len(cache) == 3 and cache.bytes == 900
        assert cache.take("s0") is None and cache.take("s1") is None
        cache.keep("s4", 9, make_session("s4", language=language), None, 100)
        assert len(cache) == 3 and cache.bytes == 700
        cache.keep("huge", 1, make_session("huge", language=language), None, 1001)
        assert cache.take("huge") is None
        taken = cache.take("s4")
        assert taken is not None and taken[0] == 9 and cache.bytes == 600

    def test_a_store_weighs_what_it_committed(self, store: SqliteStore) -> None:
        """The store hands the cache the encoded row's size, so the bound follows real sessions."""
        with store.transaction("s1") as txn:
            session = make_session("s1", language="zh")
            add_messages(session, 4, "zh")
            txn.save(session)
        assert store._cache.bytes == len(encode_session(session)) > 0

    def test_every_commit_writes_a_new_non_zero_rev(self, store: SqliteStore, db: Path) -> None:
        """The rev the cache is checked against changes with every committed turn."""
        revs = []
        for turn in range(5):
            with store.transaction("s1") as txn:
                session = txn.session or make_session("s1")
                session.turn = turn
                txn.save(session)
            revs.append(rev_of(db, "s1"))
        assert 0 not in revs and len(set(revs)) == 5

    def test_a_hand_edit_of_the_row_resets_rev_and_is_seen(self, store: SqliteStore, db: Path) -> None:
        """An UPDATE that does not write a new rev (an operator, a script) zeroes it: the next turn
        reads the edited row instead of this store's cached copy."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1"))
        edited = make_session("s1")
        edited.turn = 42
        sql(db, "UPDATE sessions SET data = ? WHERE id = 's1'", (encode_session(edited),))
        assert rev_of(db, "s1") == 0
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session.turn == 42

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_another_store_on_the_file_invalidates_this_stores_copy(self, db: Path, language: str) -> None:
        """Two stores (each with its own cache) take turns on one session: each sees the other's."""
        first, second = SqliteStore(db), SqliteStore(db)
        try:
            for turn in range(1, 7):
                writer = first if turn % 2 else second
                with writer.transaction("s1") as txn:
                    session = txn.session or make_session("s1", language=language)
                    assert session.turn == turn - 1
                    session.turn = turn
                    add_messages(session, 2, language)
                    txn.save(session)
            for reader in (first, second):
                with reader.transaction("s1") as txn:
                    assert txn.session is not None and txn.session.turn == 6
                    assert len(txn.session.history) == 12
        finally:
            first.close()
            second.close()

    def test_a_session_deleted_and_written_again_is_not_served_from_the_cache(
            self, store: SqliteStore, db: Path) -> None:
        """delete_session from another store, then a new session of the same id: a new rev."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
        other = SqliteStore(db)
        try:
            other.delete_session("s1")
            with other.transaction("s1") as txn:
                assert txn.session is None
                fresh = make_session("s1", language="zh")
                fresh.turn = 3
                txn.save(fresh)
        finally:
            other.close()
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session.turn == 3 and txn.session.language == "zh"

    def test_a_turn_in_another_process_invalidates_the_cached_copy(self, store: SqliteStore, db: Path) -> None:
        """This process committed s1 last and cached it; another process's turn replaces the row."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
        assert finish(run_child(db, "hold")) == 0            # the child's turn: turn 0 -> 1
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session.turn == 1
        assert store.user_slots("alice")["order_id"].value == "from child"


class TestTurnBookkeeping:
    def test_every_way_a_turn_ends_gives_the_lock_file_back(self, store: SqliteStore, db: Path) -> None:
        """Commit, a raising block, a failed load and a lock timeout all end the turn's use of the
        lock file: once the store closes, the process holds no lock file open."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1"))
        with pytest.raises(ZeroDivisionError), store.transaction("s1"):
            raise ZeroDivisionError
        with store.transaction("bad") as txn:
            txn.save(make_session("bad"))
        sql(db, "UPDATE sessions SET data = 'oops' WHERE id = 'bad'")
        with pytest.raises(StoreError, match="corrupt"), store.transaction("bad"):
            pass
        child = run_child(db, "hold", pause=1.0)
        with pytest.raises(StoreError, match="busy"), store.transaction("s1", timeout_s=0.1):
            pass
        assert finish(child) == 0
        store.close()
        assert not any(lock_file.path.parent == db.parent for lock_file in _LOCK_FILES.values())

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_the_turns_of_a_thread_run_through_one_cursor(self, store: SqliteStore, language: str) -> None:
        """The rev read, mark_running and the commit reuse the thread's cursor instead of making one
        a statement; the turn still reads back what it wrote."""
        cursor = store._cursor()
        for turn in range(3):
            with store.transaction("s1") as txn:
                session = txn.session or make_session("s1", language=language)
                assert txn.mark_running(f"run{turn}", 1.0) is None
                add_messages(session, 2, language)
                txn.save(session)
            assert store._cursor() is cursor
        assert cursor.connection is store._conn()
        loaded = store.load("s1")
        assert loaded is not None and len(loaded.history) == 6 and loaded.language == language

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_turn_leaves_no_read_open_on_its_cursor(self, store: SqliteStore, db: Path, language: str) -> None:
        """Each read of the cursor is stepped to its end, so after a turn no snapshot pins the WAL:
        another connection's truncating checkpoint copies every frame and empties it."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", language=language, messages=2))
        with store.transaction("s1", users=("alice",)) as txn:
            assert txn.session is not None and txn.mark_running("k", 1.0) is None
            assert txn.mark_running("k", 2.0) == 1.0          # the repeated run reads the first one back
            txn.save(txn.session)
        assert not store._conn().in_transaction
        assert sql(db, "PRAGMA wal_checkpoint(TRUNCATE)")[0][0] == 0     # 0: not blocked by a reader
        assert db.with_name(db.name + "-wal").stat().st_size == 0


class TestExpiry:
    def test_purge_finds_idle_sessions_without_an_index(self, store: SqliteStore, db: Path) -> None:
        """No index on updated_at (it cost every turn); purge scans and still picks exactly the idle ones."""
        assert sql(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%updated_at%'") == []
        now = time.time()
        for i in range(40):
            session = make_session(f"s{i}", language="zh" if i % 2 else "en")
            session.updated_at = now - (3600 if i % 3 == 0 else 60)
            with store.transaction(session.id) as txn:
                txn.save(session)
        assert store.purge_expired(now - 1800) == 14
        kept = sorted(int(str(row[0])[1:]) for row in sql(db, "SELECT id FROM sessions"))
        assert kept == [i for i in range(40) if i % 3]


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
        assert_the_dead_turn_left_nothing(store, messages=2)


class TestUsersIndex:
    def test_a_file_without_the_user_index_gets_it_and_finds_old_sessions(self, tmp_path: Path) -> None:
        """Files made before sessions_of: the index is built on open, over the rows already there."""
        db = tmp_path / "old.db"
        with closing(sqlite3.connect(db, isolation_level=None)) as conn:
            conn.executescript(OLD_LAYOUT)
        old_dialogkit_save(db, "s1", turn=2)
        old_dialogkit_save(db, "s2", turn=3)
        store = SqliteStore(db)
        try:
            assert sql(db, "SELECT name FROM sqlite_master WHERE name = 'sessions_user_id'") != []
            assert store.sessions_of("alice") == ["s1", "s2"]
        finally:
            store.close()

    def test_a_turn_of_the_same_user_does_not_write_the_index(self, store: SqliteStore) -> None:
        """The turn's UPDATE names user_id only when the user changed, so SQLite leaves the index alone."""
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", user_id="s1"))
        for user in ("s1", "alice", "alice"):
            with store.transaction("s1") as txn:
                assert txn.session is not None
                txn.session.user_id = user
                txn.save(txn.session)
        # each UPDATE is traced again when the rev trigger runs: one entry per distinct statement;
        # the first turn INSERTs the row (with its user) and updates nothing
        updates = [s.split(" = ")[0] for s in dict.fromkeys(statements) if s.startswith("UPDATE sessions SET")]
        assert updates == ["UPDATE sessions SET updated_at", "UPDATE sessions SET user_id",
                           "UPDATE sessions SET updated_at"]
        assert store.sessions_of("alice") == ["s1"]

    def test_a_history_purge_stops_the_cached_session_being_reused(self, store: SqliteStore, db: Path) -> None:
        """The cached copy still holds the deleted messages: purge sets rev to 0, the next turn reloads."""
        session = make_session("s1", messages=4)
        for message in session.history:
            message.at = 1000.0
        with store.transaction("s1") as txn:
            txn.save(session)
        assert rev_of(db, "s1") != 0
        assert store.purge_history(2000.0) == 4
        assert rev_of(db, "s1") == 0
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session.history == []
            assert txn.session.history_offset == 4

    def test_a_corrupt_row_does_not_stop_a_purge(self, store: SqliteStore, db: Path) -> None:
        session = make_session("s1", messages=3)
        for message in session.history:
            message.at = 1000.0
        with store.transaction("s1") as txn:
            txn.save(session)
            txn.set_user_slot("support/alice", "order_id", PersistedValue(value="12345", at=1000.0))
        sql(db, "UPDATE messages SET data = '{broken' WHERE idx = 2")
        sql(db, "INSERT INTO user_slots VALUES ('support/alice', 'bad', '{broken', 0)")
        assert store.purge_history(2000.0) == 2
        assert store.delete_user_slots("support/alice", older_than=2000.0) == 1
