"""Users' data in every store: a user's sessions (``sessions_of``), deleting sessions and
persisted values, and retention's ``purge_history``, run against memory, SQLite and Redis."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from dialogkit.model.session import PersistedValue
from dialogkit.store import SessionStore
from tests.store.factories import CONTENT, add_messages, make_session

LANGUAGES = ["zh", "en"]
DAY = 86400.0
NOW = 1_800_000_000.0            # a fixed "now", so message times are chosen, never the wall clock


def save(store: SessionStore, session_id: str, user_id: str = "alice", language: str = "en",
         times: list[float] | None = None) -> None:
    """A new session whose history has one message per entry of ``times``, written then."""
    session = make_session(session_id, user_id, language, messages=len(times or []))
    for message, at in zip(session.history, times or [], strict=True):
        message.at = at
    with store.transaction(session_id) as txn:
        txn.save(session)


def turn(store: SessionStore, session_id: str, *, user_id: str | None = None, messages: int = 2,
         at: float = NOW, language: str = "en") -> None:
    """One more turn of a stored session: ``messages`` new messages written at ``at``."""
    with store.transaction(session_id) as txn:
        session = txn.session
        assert session is not None
        if user_id is not None:
            session.user_id = user_id
        first = len(session.history)
        add_messages(session, messages, language)
        for message in session.history[first:]:
            message.at = at
        session.turn += 1
        txn.save(session)


def value(at: float, text: str = "12345") -> PersistedValue:
    return PersistedValue(value=text, at=at, flow="report_issue")


class TestSessionsOf:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_a_users_sessions_and_no_one_elses(self, store: SessionStore, language: str) -> None:
        save(store, "s2", "alice", language)
        save(store, "s1", "alice", language)
        save(store, "s3", "bob", language)
        assert store.sessions_of("alice") == ["s1", "s2"]
        assert store.sessions_of("bob") == ["s3"]
        assert store.sessions_of("carol") == []

    def test_a_session_that_changes_user_moves_to_the_new_one(self, store: SessionStore) -> None:
        """A session started without a user id is the session id's; naming the user later moves it."""
        save(store, "s1", user_id="s1")
        assert store.sessions_of("s1") == ["s1"]
        turn(store, "s1", user_id="alice")
        assert store.sessions_of("s1") == []
        assert store.sessions_of("alice") == ["s1"]
        turn(store, "s1")                                   # the same user again: still there
        assert store.sessions_of("alice") == ["s1"]

    def test_deleted_and_expired_sessions_leave_the_index(self, store: SessionStore) -> None:
        save(store, "s1")
        save(store, "s2")
        store.delete_session("s1")
        assert store.sessions_of("alice") == ["s2"]
        assert store.purge_expired(time.time() + 60) == 1
        assert store.sessions_of("alice") == []


class TestDeleteSession:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_it_returns_the_messages_deleted(self, store: SessionStore, language: str) -> None:
        save(store, "s1", language=language, times=[NOW] * 6)
        assert store.delete_session("s1") == 6
        assert store.load("s1") is None
        assert store.history("s1") == []
        assert store.delete_session("s1") == 0             # nothing left: harmless

    def test_it_waits_for_the_running_turn_which_cannot_bring_the_session_back(
            self, store: SessionStore) -> None:
        save(store, "s1", times=[NOW] * 2)
        inside, deleted = threading.Event(), threading.Event()

        def running_turn() -> None:
            with store.transaction("s1") as txn:
                assert txn.session is not None
                inside.set()
                assert not deleted.wait(0.3)              # the delete waits for this turn
                add_messages(txn.session, 2)
                txn.save(txn.session)

        worker = threading.Thread(target=running_turn)
        worker.start()
        assert inside.wait(5)
        assert store.delete_session("s1") == 4            # the turn's two messages went too
        deleted.set()
        worker.join(5)
        assert store.load("s1") is None


class TestPersistedValues:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_keys_are_listed_and_deleted_with_a_count(self, store: SessionStore, language: str) -> None:
        product = CONTENT[language][2]
        with store.transaction("s1") as txn:
            txn.set_user_slot("support/alice", "order_id", value(NOW))
            txn.set_user_slot("support/alice", "product", value(NOW, product))
            txn.set_user_slot("alice", "order_id", value(NOW))
            txn.set_user_slot("hr/alice", "name", value(NOW, "张伟"))
        assert store.user_keys() == ["alice", "hr/alice", "support/alice"]
        assert store.delete_user_slots("support/alice") == 2
        assert store.user_slots("support/alice") == {}
        assert store.user_keys() == ["alice", "hr/alice"]
        assert store.delete_user_slots("nobody") == 0

    def test_only_values_written_before_the_cutoff_go(self, store: SessionStore) -> None:
        with store.transaction("s1") as txn:
            txn.set_user_slot("support/alice", "order_id", value(NOW - 100 * DAY))
            txn.set_user_slot("support/alice", "product", value(NOW - DAY, "phone"))
        assert store.delete_user_slots("support/alice", older_than=NOW - 90 * DAY) == 1
        assert list(store.user_slots("support/alice")) == ["product"]
        assert store.delete_user_slots("support/alice", older_than=NOW - 90 * DAY) == 0


class TestPurgeHistory:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_old_messages_go_and_the_rest_keep_their_indexes(self, store: SessionStore, language: str) -> None:
        save(store, "s1", language=language, times=[NOW - 100 * DAY] * 4 + [NOW - DAY] * 2)
        save(store, "s2", language=language, times=[NOW - DAY] * 2)
        assert store.purge_history(NOW - 90 * DAY) == 4
        kept = store.history("s1")
        assert [m.content.endswith(f"#{i}") for i, m in zip(range(4, 6), kept, strict=True)] == [True, True]
        assert store.history("s1", 0, 5) == kept[:1]        # indexes are those of the full history
        loaded = store.load("s1", history_tail=None)
        assert loaded is not None and loaded.history_offset == 4 and len(loaded.history) == 2
        assert len(store.history("s2")) == 2
        assert store.purge_history(NOW - 90 * DAY) == 0

    def test_the_next_turn_appends_after_the_messages_kept(self, store: SessionStore) -> None:
        save(store, "s1", times=[NOW - 100 * DAY] * 4)
        assert store.purge_history(NOW - 90 * DAY) == 4      # the whole history
        turn(store, "s1", messages=2)
        turn(store, "s1", messages=2)
        history = store.history("s1")
        assert [m.content.rsplit("#", 1)[1] for m in history] == ["4", "5", "6", "7"]
        loaded = store.load("s1", history_tail=3)
        assert loaded is not None and loaded.history_offset == 5 and loaded.history == history[1:]

    def test_a_message_older_than_a_kept_one_takes_the_earlier_ones_with_it(self, store: SessionStore) -> None:
        """A history loses only a prefix: after a clock set back, everything up to the last old
        message goes, so what is kept stays contiguous."""
        save(store, "s1", times=[NOW - 100 * DAY, NOW - DAY, NOW - 100 * DAY, NOW - DAY])
        assert store.purge_history(NOW - 90 * DAY) == 3
        assert [m.content.rsplit("#", 1)[1] for m in store.history("s1")] == ["3"]

    def test_a_session_whose_turn_is_running_is_left_for_the_next_purge(self, store: SessionStore) -> None:
        save(store, "s1", times=[NOW - 100 * DAY] * 2)
        with store.transaction("s1") as txn:
            assert store.purge_history(NOW - 90 * DAY) == 0
            assert txn.session is not None
            txn.save(txn.session)
        assert store.purge_history(NOW - 90 * DAY) == 2


class TestAfterPurge:
    def test_a_store_reopened_reads_the_purged_history(self, store_factory: Callable[[], SessionStore]) -> None:
        first = store_factory()
        save(first, "s1", times=[NOW - 100 * DAY] * 2 + [NOW] * 2)
        assert first.purge_history(NOW - 90 * DAY) == 2
        second = store_factory()
        loaded = second.load("s1", history_tail=None)
        assert loaded is not None and loaded.history_offset == 2 and len(loaded.history) == 2
