"""Fixtures that run one contract suite against every store: memory, SQLite, and Redis.

Redis runs when ``DIALOGKIT_TEST_REDIS_URL`` names a server (CI starts one on port 6399); each
test then gets its own key prefix, deleted afterwards, so tests never see each other's data.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dialogkit.store import MemoryStore, SessionStore, SqliteStore
from tests.store.factories import REDIS_URL, needs_redis


def _redis_store(prefix: str) -> SessionStore:
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    return RedisStore(REDIS_URL, prefix=prefix)


def _wipe_redis(prefix: str) -> None:
    import redis

    assert REDIS_URL is not None
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=needs_redis)])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], SessionStore]]:
    """Opens stores that share one backing (one SQLite file, one Redis prefix, one memory dict)."""
    kind: str = request.param
    opened: list[SessionStore] = []
    prefix = f"dktest:{uuid.uuid4().hex[:8]}:"
    memory = MemoryStore()

    def factory() -> SessionStore:
        if kind == "memory":
            return memory
        store = SqliteStore(tmp_path / "db" / "sessions.db") if kind == "sqlite" else _redis_store(prefix)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()
    if kind == "redis":
        _wipe_redis(prefix)


@pytest.fixture
def store(store_factory: Callable[[], SessionStore]) -> SessionStore:
    return store_factory()


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A fresh key prefix for Redis-only tests, wiped afterwards."""
    prefix = f"dktest:{uuid.uuid4().hex[:8]}:"
    yield prefix
    _wipe_redis(prefix)
