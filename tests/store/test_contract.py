"""The contract every session store keeps, run against memory, SQLite and (when available) Redis."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from itertools import pairwise

import pytest

from dialogkit.errors import StoreError
from dialogkit.model.session import Entity, PersistedValue, SummaryItem
from dialogkit.store import MemoryStore, SessionStore, SqliteStore
from dialogkit.store.staging import StagedTxn
from tests.store.factories import CONTENT, add_messages, make_session

LANGUAGES = ["zh", "en"]


class Boom(Exception):
    """Stands for a turn that dies half-way (a bug, a kill signal turned exception)."""


def save_new(store: SessionStore, session_id: str, user_id: str = "alice", language: str = "en",
             messages: int = 0, updated_at: float | None = None) -> None:
    session = make_session(session_id, user_id, language, messages)
    if updated_at is not None:
        session.updated_at = updated_at
    with store.transaction(session_id) as txn:
        txn.save(session)


def corrupt_user_slot(store: SessionStore, key: str, name: str) -> None:
    """Overwrite one stored persisted value with bytes no decoder accepts, as a hand edit might."""
    if isinstance(store, MemoryStore):
        store._user_slots[key][name] = "[1, 2"
    elif isinstance(store, SqliteStore):
        with closing(sqlite3.connect(store.path, isolation_level=None)) as conn:
            conn.execute("UPDATE user_slots SET data = '[1, 2' WHERE user_id = ? AND name = ?", (key, name))
    else:
        store._client.hset(store._key("user", key), name, "[1, 2")  # type: ignore[attr-defined]


class TestRoundTrip:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_a_saved_session_loads_back_equal(self, store: SessionStore, language: str) -> None:
        """Everything the session holds survives save and load, Chinese and English text alike."""
        said, reply, product = CONTENT[language]
        session = make_session("s1", language=language, messages=4)
        session.entities.append(Entity(id="e1", type="product", kind="thing", value=product, aliases=[product]))
        session.summary.facts.append(SummaryItem(key="issue", zh="用户反馈手机屏幕碎了", en="phone broken", turn=1))
        session.session_slots["order_id"] = PersistedValue(value="12345", flow="check_status")
        session.executed["s1:t1"] = {"ticket_id": "T-1001", "note": said}
        with store.transaction("s1") as txn:
            assert txn.session is None
            txn.save(session)

        loaded = store.load("s1")
        assert loaded is not None
        assert loaded.model_dump() == session.model_dump()
        assert loaded.history[0].content.startswith(said)
        assert loaded.history[1].content.startswith(reply)

    def test_an_unknown_session_is_none_everywhere(self, store: SessionStore) -> None:
        """A session never saved loads as None, has no history, and its transaction starts empty."""
        assert store.load("nobody") is None
        assert store.history("nobody") == []
        with store.transaction("nobody") as txn:
            assert txn.session is None
        assert store.load("nobody") is None

    def test_a_transaction_sees_the_last_committed_turn(self, store: SessionStore) -> None:
        """The next turn loads exactly what the previous one committed."""
        save_new(store, "s1", messages=2)
        with store.transaction("s1") as txn:
            assert txn.session is not None
            txn.session.turn = 7
            txn.session.stack[0].slots["issue_type"] = "damaged"
            txn.save(txn.session)
        with store.transaction("s1") as txn:
            assert txn.session is not None
            assert txn.session.turn == 7
            assert txn.session.stack[0].slots["issue_type"] == "damaged"

    def test_a_store_reopened_on_the_same_backing_sees_the_data(
            self, store_factory: Callable[[], SessionStore]) -> None:
        """Committed turns survive closing the store and opening it again (a process restart)."""
        first = store_factory()
        save_new(first, "s1", messages=3)
        first.close()
        again = store_factory()
        loaded = again.load("s1")
        assert loaded is not None and len(loaded.history) == 3


class TestHistory:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_a_load_returns_the_tail_with_its_offset(self, store: SessionStore, language: str) -> None:
        """history holds the last N messages; history_offset is the absolute index of the first."""
        save_new(store, "s1", language=language, messages=30)
        tail = store.load("s1", history_tail=10)
        assert tail is not None
        assert tail.history_offset == 20
        assert [m.content.rsplit("#", 1)[1] for m in tail.history] == [str(i) for i in range(20, 30)]
        full = store.load("s1", history_tail=None)
        assert full is not None and full.history_offset == 0 and len(full.history) == 30

    def test_turns_append_messages_and_never_lose_older_ones(self, store: SessionStore) -> None:
        """Saving a session loaded with only a tail appends the new messages after the stored ones."""
        save_new(store, "s1", messages=6)
        for _ in range(5):
            with store.transaction("s1", history_tail=3) as txn:
                assert txn.session is not None
                add_messages(txn.session, 2)
                txn.save(txn.session)
        everything = store.history("s1")
        assert len(everything) == 16
        assert [m.content.rsplit("#", 1)[1] for m in everything] == [str(i) for i in range(16)]

    def test_a_save_serialises_only_the_new_messages(self, store: SessionStore) -> None:
        """At 2,000 stored messages a turn stages two messages, not the whole history."""
        save_new(store, "s1", messages=2000)
        with store.transaction("s1") as txn:
            assert txn.session is not None and len(txn.session.history) == 200
            add_messages(txn.session, 2)
            txn.save(txn.session)
            assert isinstance(txn, StagedTxn) and len(txn.pending.appended) == 2
        loaded = store.load("s1", history_tail=1)
        assert loaded is not None and loaded.history_offset == 2001

    def test_history_reads_an_absolute_range(self, store: SessionStore) -> None:
        """history(start, end) indexes the full history, with Python slice semantics."""
        save_new(store, "s1", messages=12)
        assert [m.content.rsplit("#", 1)[1] for m in store.history("s1", 5, 8)] == ["5", "6", "7"]
        assert [m.content.rsplit("#", 1)[1] for m in store.history("s1", -2)] == ["10", "11"]
        assert store.history("s1", 20) == []

    def test_a_history_gap_is_refused(self, store: SessionStore) -> None:
        """A session claiming to start past the stored history would leave a hole: refused."""
        save_new(store, "s1", messages=2)
        with pytest.raises(StoreError, match="'s1'"), store.transaction("s1") as txn:
            assert txn.session is not None
            txn.session.history_offset = 5
            txn.save(txn.session)


class TestUserSlots:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_user_slots_carry_across_sessions(self, store: SessionStore, language: str) -> None:
        """A persist: user value set in one session is there in the user's next session."""
        product = CONTENT[language][2]
        with store.transaction("monday") as txn:
            txn.save(make_session("monday", "alice", language))
            txn.set_user_slot("alice", "product", PersistedValue(value=product, flow="report_issue"))
        with store.transaction("tuesday") as txn:
            assert txn.user_slots("alice")["product"].value == product
        assert store.user_slots("alice")["product"].flow == "report_issue"

    def test_a_turn_reads_its_own_staged_slots_but_others_do_not(self, store: SessionStore) -> None:
        """Inside the turn its writes are visible; outside they appear only after the commit."""
        with store.transaction("s1") as txn:
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
            assert txn.user_slots("alice")["order_id"].value == "12345"
            assert store.user_slots("alice") == {}
        assert store.user_slots("alice")["order_id"].value == "12345"

    def test_a_deleted_user_slot_is_gone(self, store: SessionStore) -> None:
        """delete_user_slot removes one slot and leaves the others."""
        with store.transaction("s1") as txn:
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
            txn.set_user_slot("alice", "product", PersistedValue(value="phone"))
        with store.transaction("s1") as txn:
            txn.delete_user_slot("alice", "order_id")
            assert set(txn.user_slots("alice")) == {"product"}
        assert set(store.user_slots("alice")) == {"product"}

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_users_read_with_the_session_are_what_a_later_read_gives(self, store: SessionStore,
                                                                    language: str) -> None:
        """Keys named to ``transaction`` read the same values as keys asked for later, for a new and
        a stored session, a key with no values, and a key not named; staged writes lie over them."""
        product = CONTENT[language][2]
        with store.transaction("setup") as txn:
            txn.set_user_slot("support/张三", "product", PersistedValue(value=product, flow="report_issue"))
            txn.set_user_slot("张三", "order_id", PersistedValue(value="12345"))
            txn.set_user_slot("bob", "order_id", PersistedValue(value="999"))
        for _ in range(2):                       # the first turn (no session yet), then a stored one
            with store.transaction("s1", users=("support/张三", "张三", "nobody")) as txn:
                assert txn.user_slots("support/张三")["product"].value == product
                assert txn.user_slots("张三")["order_id"].value == "12345"
                assert txn.user_slots("nobody") == {}
                assert txn.user_slots("bob")["order_id"].value == "999"          # not named: read when asked
                txn.delete_user_slot("张三", "order_id")
                assert txn.user_slots("张三") == {}
                txn.save(txn.session or make_session("s1", "张三", language))
            with store.transaction("setup") as txn:
                txn.set_user_slot("张三", "order_id", PersistedValue(value="12345"))
        assert store.user_slots("support/张三")["product"].flow == "report_issue"

    def test_a_corrupt_slot_of_a_named_user_fails_only_a_turn_that_asks(self, store: SessionStore) -> None:
        """Rows read with the session are decoded when asked: a turn that does not ask commits, one
        that does fails naming the row, and the session's lock is free after both."""
        users = ("support/张三", "张三")
        with store.transaction("setup") as txn:
            txn.set_user_slot("support/张三", "order_id", PersistedValue(value="12345"))
        corrupt_user_slot(store, "support/张三", "order_id")
        with store.transaction("s1", users=users) as txn:
            txn.save(make_session("s1", "张三", "zh"))
        with pytest.raises(StoreError, match="user 'support/张三': stored slot 'order_id' is corrupt"), \
                store.transaction("s1", users=users) as txn:
            txn.user_slots("support/张三")
        with store.transaction("s1", timeout_s=0.5) as txn:
            assert txn.session is not None and txn.session.user_id == "张三"

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_users_never_see_each_others_slots(self, store: SessionStore, language: str) -> None:
        """User-scoped values are keyed by user: bob does not get alice's order number."""
        with store.transaction("a") as txn:
            txn.set_user_slot("alice", "product", PersistedValue(value=CONTENT[language][2]))
        assert store.user_slots("bob") == {}
        with store.transaction("b") as txn:
            assert txn.user_slots("bob") == {}


class TestIsolation:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_sessions_do_not_share_state(self, store: SessionStore, language: str) -> None:
        """Two sessions of one user keep separate tasks, history and session slots."""
        save_new(store, "s1", language=language, messages=2)
        other = make_session("s2", language=language)
        other.stack.clear()
        other.session_slots["order_id"] = PersistedValue(value="67890")
        with store.transaction("s2") as txn:
            txn.save(other)
        first, second = store.load("s1"), store.load("s2")
        assert first is not None and second is not None
        assert first.stack and not second.stack
        assert "order_id" not in first.session_slots and len(second.history) == 0

    def test_callers_never_alias_stored_state(self, store: SessionStore) -> None:
        """Mutating a loaded session, or one after save(), changes nothing stored."""
        session = make_session("s1", messages=1)
        with store.transaction("s1") as txn:
            txn.save(session)
            session.stack[0].slots["order_id"] = "changed after save"
        loaded = store.load("s1")
        assert loaded is not None
        loaded.stack[0].slots["order_id"] = "changed after load"
        loaded.history[0].content = "changed after load"
        again = store.load("s1")
        assert again is not None
        assert again.stack[0].slots["order_id"] == "12345"
        assert again.history[0].content.endswith("#0")

    def test_a_transaction_cannot_save_another_session(self, store: SessionStore) -> None:
        """Saving session B inside A's transaction (A's lock) is a bug, reported as such."""
        with pytest.raises(StoreError, match="'s2'"), store.transaction("s1") as txn:
            txn.save(make_session("s2"))


class TestRollback:
    def test_an_exception_after_save_commits_nothing(self, store: SessionStore) -> None:
        """A turn that dies after save() and set_user_slot() leaves the store as it was."""
        save_new(store, "s1", messages=2)
        with pytest.raises(Boom), store.transaction("s1") as txn:
            assert txn.session is not None
            txn.session.turn = 99
            add_messages(txn.session, 2)
            txn.save(txn.session)
            txn.set_user_slot("alice", "order_id", PersistedValue(value="67890"))
            raise Boom
        loaded = store.load("s1")
        assert loaded is not None and loaded.turn == 0 and len(loaded.history) == 2
        assert store.user_slots("alice") == {}

    def test_a_failed_first_turn_leaves_no_session(self, store: SessionStore) -> None:
        """Nothing of a brand-new session is written when its first turn fails."""
        with pytest.raises(Boom), store.transaction("new") as txn:
            txn.save(make_session("new", messages=1))
            raise Boom
        assert store.load("new") is None

    def test_the_lock_is_released_after_a_failure(self, store: SessionStore) -> None:
        """The next turn of the session is not blocked by the failed one."""
        with pytest.raises(Boom), store.transaction("s1"):
            raise Boom
        with store.transaction("s1", timeout_s=1.0) as txn:
            txn.save(make_session("s1"))
        assert store.load("s1") is not None

    def test_an_unsaveable_value_fails_inside_the_turn(self, store: SessionStore) -> None:
        """A slot value JSON cannot hold raises StoreError at save(), naming the session."""
        session = make_session("s1")
        session.stack[0].slots["order_id"] = object()
        with pytest.raises(StoreError, match="'s1'"), store.transaction("s1") as txn:
            txn.save(session)
        assert store.load("s1") is None


class TestLocking:
    def test_two_turns_of_one_session_never_interleave(self, store: SessionStore) -> None:
        """Eight threads each add one to the turn counter; none reads a value another will overwrite."""
        save_new(store, "s1")
        spans: list[tuple[float, float]] = []
        errors: list[BaseException] = []

        def turn() -> None:
            try:
                with store.transaction("s1", timeout_s=20.0) as txn:
                    began = time.monotonic()
                    assert txn.session is not None
                    txn.session.turn += 1
                    time.sleep(0.01)
                    txn.save(txn.session)
                    spans.append((began, time.monotonic()))
            except BaseException as exc:       # surfaced below: a thread cannot fail the test itself
                errors.append(exc)

        threads = [threading.Thread(target=turn) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        loaded = store.load("s1")
        assert loaded is not None and loaded.turn == 8
        spans.sort()
        assert all(end <= next_start for (_, end), (next_start, _) in pairwise(spans))

    def test_different_sessions_run_in_parallel(self, store: SessionStore) -> None:
        """While one session's turn is held open, another session's turn completes."""
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with store.transaction("slow") as txn:
                holding.set()
                release.wait(10)
                txn.save(make_session("slow"))

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert holding.wait(5)
            with store.transaction("fast", timeout_s=2.0) as txn:
                txn.save(make_session("fast"))
        finally:
            release.set()
            thread.join()
        assert store.load("fast") is not None and store.load("slow") is not None

    def test_a_lock_wait_past_the_timeout_is_a_clear_error(self, store: SessionStore) -> None:
        """A turn that cannot get the session's lock in time raises StoreError naming the session."""
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with store.transaction("s1"):
                holding.set()
                release.wait(10)

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert holding.wait(5)
            with pytest.raises(StoreError, match=r"session 's1' is busy"), \
                    store.transaction("s1", timeout_s=0.2):
                pass
        finally:
            release.set()
            thread.join()


class TestExpiry:
    def test_purge_removes_idle_sessions_and_keeps_user_slots(self, store: SessionStore) -> None:
        """Sessions idle past the cut-off go (history too); recent ones and user slots stay."""
        now = time.time()
        save_new(store, "old", messages=3, updated_at=now - 3600)
        save_new(store, "recent", messages=1, updated_at=now)
        with store.transaction("old") as txn:
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
        assert store.purge_expired(now - 1800) == 1
        assert store.load("old") is None and store.history("old") == []
        assert store.load("recent") is not None
        assert store.user_slots("alice")["order_id"].value == "12345"
        assert store.purge_expired(now - 1800) == 0

    def test_delete_session_keeps_the_users_slots(self, store: SessionStore) -> None:
        """Deleting a conversation does not forget what the user asked to be remembered."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
        store.delete_session("s1")
        assert store.load("s1") is None and store.history("s1") == []
        assert "order_id" in store.user_slots("alice")


class TestSchemaVersion:
    def test_a_session_of_another_schema_version_is_refused(self, store: SessionStore) -> None:
        """A blob written by a newer dialogkit raises StoreError naming the session and versions."""
        future = make_session("s1")
        future.version = 99
        with store.transaction("s1") as txn:
            txn.save(future)
        with pytest.raises(StoreError, match=r"session 's1'.*schema version 99"):
            store.load("s1")
