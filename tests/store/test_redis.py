"""What the Redis store adds to the contract: key layout, corrupt values, leases, killed workers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from dialogkit.errors import StoreError
from dialogkit.model.session import PersistedValue
from dialogkit.store.redis import RedisStore
from tests.store.factories import (
    REDIS_URL,
    assert_the_dead_turn_left_nothing,
    child_turn_script,
    make_session,
    needs_redis,
)

pytestmark = needs_redis

CHILD = child_turn_script(
    "from dialogkit.store.redis import RedisStore\nstore = RedisStore(sys.argv[1], prefix=sys.argv[2])"
)


@pytest.fixture
def store(redis_prefix: str) -> Iterator[RedisStore]:
    assert REDIS_URL is not None
    opened = RedisStore(REDIS_URL, prefix=redis_prefix, lock_lease_s=30)
    yield opened
    opened.close()


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    assert REDIS_URL is not None
    conn = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    yield conn
    conn.close()


class TestLayout:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_history_is_a_list_and_user_slots_a_hash(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str, language: str) -> None:
        """The blob has no history in it; messages are list entries; user slots are hash fields."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", language=language, messages=3))
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
        assert '"history":' not in client.get(f"{redis_prefix}session:s1")
        assert client.llen(f"{redis_prefix}history:s1") == 3
        assert client.hkeys(f"{redis_prefix}user:alice") == ["order_id"]
        assert not client.exists(f"{redis_prefix}lock:s1")

    def test_the_prefix_can_be_given_in_the_url(
            self, client: redis.Redis, redis_prefix: str) -> None:
        """redis://host/db?prefix=NAME: keeps several bots apart on one Redis database."""
        from dialogkit.store import open_store

        assert REDIS_URL is not None
        store = open_store(f"{REDIS_URL}?prefix={redis_prefix}bot2:")
        try:
            with store.transaction("s1") as txn:
                txn.save(make_session("s1"))
        finally:
            store.close()
        assert client.exists(f"{redis_prefix}bot2:session:s1")


class TestCorruptValues:
    def test_a_corrupt_blob_names_the_session(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """Bad JSON under the session key is a StoreError naming the session."""
        client.set(f"{redis_prefix}session:s1", "{broken 损坏")
        with pytest.raises(StoreError, match="session 's1' is corrupt"):
            store.load("s1")

    def test_a_corrupt_user_slot_names_the_user(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """A bad hash field is reported with its user and slot."""
        client.hset(f"{redis_prefix}user:bob", "product", "nope")
        with pytest.raises(StoreError, match="user 'bob': stored slot 'product' is corrupt"):
            store.user_slots("bob")


class TestLocks:
    def test_a_worker_killed_mid_turn_commits_nothing_and_frees_the_session(
            self, store: RedisStore, redis_prefix: str) -> None:
        """A process dying after save() leaves no trace; its lock (dead pid, this host) is reclaimed."""
        assert REDIS_URL is not None
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", messages=2))
        root = Path(__file__).resolve().parents[2]
        child = subprocess.Popen([sys.executable, "-c", CHILD, REDIS_URL, redis_prefix, "die", "0"], cwd=root,
                                 stdout=subprocess.PIPE, text=True)
        out, _ = child.communicate(timeout=10)
        assert out.strip() == "locked" and child.returncode == 9
        assert_the_dead_turn_left_nothing(store, messages=2)

    def test_a_lock_of_another_machine_blocks_until_its_lease_expires(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """A remote holder is waited for: busy before the lease ends, free after."""
        client.set(f"{redis_prefix}lock:s1", "elsewhere:1:token", px=400)
        with pytest.raises(StoreError, match="session 's1' is busy"), store.transaction("s1", timeout_s=0.1):
            pass
        with store.transaction("s1", timeout_s=5.0) as txn:
            txn.save(make_session("s1"))
        assert store.load("s1") is not None

    def test_a_turn_whose_lock_was_taken_over_commits_nothing(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """A late commit after another turn took the lock is refused, and the thief's lock stays."""
        with pytest.raises(StoreError, match="nothing was saved"), store.transaction("s1") as txn:
            txn.save(make_session("s1"))
            client.set(f"{redis_prefix}lock:s1", "elsewhere:1:thief")
        assert store.load("s1") is None
        assert client.get(f"{redis_prefix}lock:s1") == "elsewhere:1:thief"


class TestUsersIndex:
    def test_a_user_set_is_written_only_when_a_session_is_new_or_changes_user(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """Removing the set after the first turn shows the next turns of the same user never write it."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", user_id="alice"))
        assert client.smembers(f"{redis_prefix}sessions_of:alice") == {"s1"}
        client.delete(f"{redis_prefix}sessions_of:alice")
        with store.transaction("s1") as txn:
            assert txn.session is not None
            txn.save(txn.session)
        assert not client.exists(f"{redis_prefix}sessions_of:alice")
        with store.transaction("s1") as txn:
            assert txn.session is not None
            txn.session.user_id = "bob"
            txn.save(txn.session)
        assert client.smembers(f"{redis_prefix}sessions_of:bob") == {"s1"}

    def test_sessions_stored_before_the_index_are_indexed_on_open(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """As an older dialogkit left them: no sets, no marker. The first store opened builds them."""
        for sid, user in (("s1", "alice"), ("s2", "alice"), ("s3", "张伟")):
            with store.transaction(sid) as txn:
                txn.save(make_session(sid, user_id=user, language="zh"))
        client.delete(f"{redis_prefix}indexed", f"{redis_prefix}sessions_of:alice", f"{redis_prefix}sessions_of:张伟")
        assert REDIS_URL is not None
        reopened = RedisStore(REDIS_URL, prefix=redis_prefix)
        try:
            assert reopened.sessions_of("alice") == ["s1", "s2"]
            assert reopened.sessions_of("张伟") == ["s3"]
            assert client.get(f"{redis_prefix}indexed") == "1"
        finally:
            reopened.close()

    def test_an_id_whose_session_is_gone_is_dropped_from_the_set(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        with store.transaction("s1") as txn:
            txn.save(make_session("s1"))
        client.delete(f"{redis_prefix}session:s1")            # behind the store's back
        assert store.sessions_of("alice") == []
        assert not client.exists(f"{redis_prefix}sessions_of:alice")

    def test_retention_trims_the_list_head_and_counts_it(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        session = make_session("s1", messages=5)
        for i, message in enumerate(session.history):
            message.at = 1000.0 if i < 3 else 3000.0
        with store.transaction("s1") as txn:
            txn.save(session)
        assert store.purge_history(2000.0) == 3
        assert client.llen(f"{redis_prefix}history:s1") == 2
        assert client.hget(f"{redis_prefix}trimmed", "s1") == "3"
        assert store.delete_session("s1") == 2
        assert not client.hexists(f"{redis_prefix}trimmed", "s1")

    def test_user_keys_match_a_prefix_with_glob_characters_literally(
            self, client: redis.Redis, redis_prefix: str) -> None:
        assert REDIS_URL is not None
        starred = RedisStore(REDIS_URL, prefix=f"{redis_prefix}a*[b]:")
        try:
            with starred.transaction("s1") as txn:
                txn.set_user_slot("support/alice", "order_id", PersistedValue(value="12345"))
            client.hset(f"{redis_prefix}aXb:user:mallory", "x", "{}")   # what a bare * would match
            assert starred.user_keys() == ["support/alice"]
        finally:
            starred.close()
