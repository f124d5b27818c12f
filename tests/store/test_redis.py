"""What the Redis store adds to the contract: key layout, corrupt values, leases, killed workers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from dialogkit import Bot
from dialogkit.errors import StoreError
from dialogkit.model.reply import Reply
from dialogkit.model.session import PersistedValue, Session
from dialogkit.store import redis_scripts
from dialogkit.store.redis import RedisStore
from tests.service.conftest import CONVERSATIONS, STUB_TICKET, SUPPORT, assert_same_replies
from tests.store.factories import (
    REDIS_URL,
    add_messages,
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


def save_with_old_messages(store: RedisStore, *, messages: int, old: int) -> Session:
    """Session s1 with ``messages`` messages, the first ``old`` of them written at 1000, the rest at 3000."""
    session = make_session("s1", messages=messages)
    for i, message in enumerate(session.history):
        message.at = 1000.0 if i < old else 3000.0
    with store.transaction("s1") as txn:
        txn.save(session)
    return session


class TestLayout:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_history_is_a_list_and_user_slots_a_hash(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str, language: str) -> None:
        """The blob has no history in it; messages are list entries; user slots are hash fields."""
        with store.transaction("s1") as txn:
            txn.save(make_session("s1", language=language, messages=3))
            txn.set_user_slot("alice", "order_id", PersistedValue(value="12345"))
        assert '"history":' not in str(client.get(f"{redis_prefix}session:s1"))
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
        save_with_old_messages(store, messages=5, old=3)
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


class TestRoundTrips:
    def test_a_turn_reuses_the_session_this_process_committed(
            self, store: RedisStore, client: redis.Redis, redis_prefix: str) -> None:
        """Two scripts a turn; the second turn gets back the very object the first committed,
        until another writer changes the session behind this store's back."""
        with store.transaction("s1") as txn:
            saved = make_session("s1", messages=2)
            txn.save(saved)
        with store.transaction("s1") as txn:
            assert txn.session is saved
            add_messages(saved, 2)
            txn.save(saved)
        other = RedisStore(REDIS_URL or "", prefix=redis_prefix)
        try:
            with other.transaction("s1") as txn:
                assert txn.session is not None and txn.session is not saved
                add_messages(txn.session, 2)
                txn.save(txn.session)
        finally:
            other.close()
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session is not saved
            assert len(txn.session.history) == 6        # the other writer's messages are read

    def test_a_retention_trim_is_not_hidden_by_the_cached_session(self, store: RedisStore) -> None:
        session = save_with_old_messages(store, messages=4, old=2)
        assert store.purge_history(2000.0) == 2
        with store.transaction("s1") as txn:
            assert txn.session is not None and txn.session is not session
            assert txn.session.history_offset == 2 and len(txn.session.history) == 2

    def test_a_waiting_turn_is_woken_by_the_release_not_by_polling(
            self, store: RedisStore, monkeypatch: pytest.MonkeyPatch) -> None:
        """The waiter blocks on the wake list; with a 5 s poll it still starts right after the release."""
        monkeypatch.setattr(redis_scripts, "WAKE_POLL_S", 5.0)
        released: list[float] = []
        got: list[float] = []

        def holder() -> None:
            with store.transaction("s1") as txn:
                time.sleep(0.4)
                txn.save(make_session("s1"))
            released.append(time.monotonic())

        thread = threading.Thread(target=holder)
        thread.start()
        time.sleep(0.1)
        with store.transaction("s1", timeout_s=10) as txn:
            got.append(time.monotonic())
            assert txn.session is not None
        thread.join()
        assert got[0] - released[0] < 1.0

    def test_rediss_to_a_server_that_never_answers_tls_fails_within_the_connect_timeout(self) -> None:
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(1)
            started = time.monotonic()
            with pytest.raises(StoreError, match=r"TLS handshake within 0\.5s"):
                RedisStore(f"rediss://127.0.0.1:{silent.getsockname()[1]}/0", connect_timeout_s=0.5)
        assert time.monotonic() - started < 3

    def test_rediss_to_a_plain_redis_fails_fast(self) -> None:
        assert REDIS_URL is not None
        started = time.monotonic()
        with pytest.raises(StoreError, match="plain Redis server"):
            RedisStore(REDIS_URL.replace("redis://", "rediss://", 1), connect_timeout_s=0.5)
        assert time.monotonic() - started < 3


class TestAsyncTurns:
    """``Bot.ahandle`` over Redis: the store awaited through redis.asyncio, never a thread."""

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_ahandle_answers_what_handle_answers(self, redis_prefix: str, language: str) -> None:
        url = f"{REDIS_URL}?prefix={redis_prefix}"
        with Bot.from_file(SUPPORT, store=url, actions=STUB_TICKET) as bot:
            assert bot.turns.native_async

            async def run() -> list[Reply]:
                replies = [await bot.ahandle("a1", text, user_id="alice") for text in CONVERSATIONS[language]]
                await bot.store.aclose()          # type: ignore[attr-defined]
                return replies

            awaited = asyncio.run(run())
            handled = [bot.handle("h1", text, user_id="bob") for text in CONVERSATIONS[language]]
        assert_same_replies(awaited, handled)

    def test_two_workers_share_sessions_and_lose_no_turn(self, redis_prefix: str) -> None:
        """Two bots (two workers' stores) on one Redis, the same 8 sessions driven through both at
        once, each loop closed by asyncio.run with its client: every message is stored, in order."""
        url = f"{REDIS_URL}?prefix={redis_prefix}"
        texts = ["my phone arrived broken", "12345", "never mind", "my laptop is damaged", "67890"]
        with Bot.from_file(SUPPORT, store=url) as first, Bot.from_file(SUPPORT, store=url) as second:
            async def user(n: int) -> None:
                for i, text in enumerate(texts):
                    await (first if (n + i) % 2 else second).ahandle(f"u{n}", text)

            async def everyone() -> None:
                await asyncio.wait_for(asyncio.gather(*(user(n) for n in range(8))), 30)

            for _ in range(2):                   # a second loop: a new client, the first one closed
                asyncio.run(everyone())
            for n in range(8):
                said = [m.content for m in first.session(f"u{n}").history if m.role == "user"]
                assert said == texts * 2
