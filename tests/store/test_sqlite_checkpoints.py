"""The SQLite store's WAL is checkpointed by a thread of its own, never inside a turn's commit."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from dialogkit.store import SqliteStore
from dialogkit.store.sqlite_checkpoints import SAFETY_NET_PAGES, Checkpointer
from tests.store.factories import add_messages, make_session

THREAD = "dialogkit-sqlite-checkpoint"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "sessions.db")
    yield opened
    opened.close()


def turns(store: SqliteStore, count: int, language: str) -> None:
    """``count`` committed turns, each appending two messages to one of 20 sessions."""
    for i in range(count):
        with store.transaction(f"{language}-{i % 20}") as txn:
            session = txn.session or make_session(f"{language}-{i % 20}", language=language)
            add_messages(session, 2, language)
            txn.save(session)


def checkpointer(store: SqliteStore) -> Checkpointer:
    found: Checkpointer = store._checkpoints
    return found


def wait_for(condition: object, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_turn_connection_checkpoints_by_itself_only_far_above_the_usual_log(store: SqliteStore,
                                                                                 language: str) -> None:
    turns(store, 1, language)
    assert store._conn().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == SAFETY_NET_PAGES


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_thread_checkpoints_every_hundred_commits(store: SqliteStore, language: str) -> None:
    turns(store, 99, language)
    assert checkpointer(store).done == 0 and checkpointer(store)._thread is None
    turns(store, 1, language)
    assert wait_for(lambda: checkpointer(store).done == 1)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_log_stays_small_without_any_commit_checkpointing(tmp_path: Path, language: str) -> None:
    """2,000 turns write ~20 MB of log pages: without the thread (the safety net is 40 MB) the log
    would hold them all; with it, the log is rewritten from its start after each checkpoint."""
    store = SqliteStore(tmp_path / "sessions.db")
    try:
        for _ in range(20):
            turns(store, 100, language)
            done = checkpointer(store).done
            wait_for(lambda: checkpointer(store).done > done, 2.0)   # noqa: B023 - read at once
        wal = tmp_path / "sessions.db-wal"
        assert checkpointer(store).done >= 10
        assert wal.stat().st_size < 8 * 1024 * 1024
    finally:
        store.close()


def test_every_committed_turn_is_read_back_after_the_checkpoints(store: SqliteStore) -> None:
    turns(store, 250, "zh")
    assert wait_for(lambda: checkpointer(store).done == 2)
    with closing(sqlite3.connect(store.path)) as other:
        assert other.execute("SELECT count(*) FROM messages").fetchone()[0] == 500


def test_close_stops_the_thread(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "sessions.db")
    turns(store, 100, "en")
    thread = checkpointer(store)._thread
    assert thread is not None and thread.name == THREAD and thread.is_alive()
    store.close()
    assert not thread.is_alive()
