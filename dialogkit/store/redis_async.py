"""The Redis store's turn on an event loop: the same two scripts as the sync store, awaited, so
``Bot.ahandle`` never parks a thread on Redis (docs/serving.md, "ahandle"). They go over one
pipelined connection per loop (``resp``) when the URL is a plain ``redis://`` one, else through
``redis.asyncio``; a waiter's ``BLPOP`` always goes through ``redis.asyncio``.

An asyncio client belongs to the loop it first ran on. One is made per loop, on first use, and
closed with it: by ``aclose`` (the server's shutdown), or else when ``asyncio.run`` finalises
its async generators, which includes the one holding the client open here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from dialogkit.errors import StoreError
from dialogkit.store import redis_scripts as scripts
from dialogkit.store.cache import SessionCache
from dialogkit.store.resp import LeanError, LeanScript, Pipe, Target, lean_target
from dialogkit.store.staging import MarkRunning, PendingWrite, ReadUserSlots, StagedTxn, reading_first

__all__ = ["AsyncRedis"]


class _LoopClient:
    """One loop's clients: the ``redis`` client, and the pipelined connection (``resp``) that runs a
    turn's two scripts when the URL is one it speaks; the async generator that closes both with the loop."""

    def __init__(self, client: Any, target: Target | None, timeout_s: float) -> None:
        self.client = client
        self.target, self.timeout_s = target, timeout_s
        self.pipe: Pipe | None = None
        self.connecting = asyncio.Lock()
        self.scripts: dict[str, tuple[LeanScript, Any]] = {}    # by source: over the pipe, over the client
        self.loop = asyncio.get_running_loop()
        self.keeper = _close_at_end(self)

    async def run(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """The script ``source`` under ``keys`` with ``args``: over the pipe, else the ``redis`` client."""
        pair = self.scripts.get(source)
        if pair is None:
            pair = self.scripts[source] = (LeanScript(source), self.client.register_script(source))
        if self.target is None:
            return await pair[1](keys=keys, args=args)
        pipe = self.pipe
        if pipe is None or pipe.closed:
            pipe = await self._connect(self.target)
        return await pair[0](pipe, keys, args)

    async def _connect(self, target: Target) -> Pipe:
        async with self.connecting:
            if self.pipe is None or self.pipe.closed:
                self.pipe = await Pipe.open(target, self.timeout_s)
            return self.pipe


class AsyncRedis:
    """What ``RedisStore.atransaction`` runs: lock and load, then commit and unlock, awaited."""

    def __init__(self, url: str, *, prefix: str, lease_ms: int, describe: str, client_options: dict[str, Any],
                 cache: SessionCache, read_user_slots: ReadUserSlots, mark_running: MarkRunning) -> None:
        self._url, self._options, self._describe = url, client_options, describe
        self._prefix, self._lease_ms = prefix, lease_ms
        self._cache = cache                           # shared with the sync store
        # The sync store's reads: users not read with the session, and the mark before an action
        # (both run in the rules' step, which a server runs in a thread).
        self._read_user_slots, self._mark_running = read_user_slots, mark_running
        self._current: _LoopClient | None = None

    @asynccontextmanager
    async def transaction(self, session_id: str, token: str, *, history_tail: int, users: tuple[str, ...],
                          timeout_s: float) -> AsyncIterator[StagedTxn]:
        parts = await self._parts()
        keys = scripts.LockKeys.of(self._prefix, session_id)
        loaded = await self._lock(parts, session_id, token, timeout_s, tail=history_tail, users=users)
        try:
            txn = StagedTxn(session_id, loaded.session, loaded.count,
                            reading_first(loaded.users, self._read_user_slots), self._mark_running)
            yield txn
        except BaseException:
            await self._unlock(parts, keys, token)
            raise
        await self._unlock(parts, keys, token, txn.pending, loaded.base)
        scripts.remember(self._cache, txn.pending, loaded.base, history_tail)

    async def run_script(self, source: str, keys: list[str], args: list[str]) -> Any:
        """Run a Lua script of another part (the server's rate limits) on this loop's connection."""
        parts = await self._parts()
        with self._errors():
            return await parts.run(source, keys, args)

    async def aclose(self) -> None:
        current, self._current = self._current, None
        if current is not None and current.loop is asyncio.get_running_loop():
            await current.keeper.aclose()

    async def _parts(self) -> _LoopClient:
        current = self._current
        if current is None or current.loop is not asyncio.get_running_loop():
            from redis import asyncio as aioredis

            with self._errors():
                current = _LoopClient(aioredis.Redis.from_url(self._url, **self._options), lean_target(self._url),
                                      float(self._options.get("socket_timeout") or 30.0))
            await anext(current.keeper)         # started in this loop, so finalised with it
            self._current = current
        return current

    async def _lock(self, parts: _LoopClient, session_id: str, token: str, timeout_s: float, *, tail: int,
                    users: tuple[str, ...]) -> scripts.Loaded:
        cached = self._cache.take(session_id)
        names, args = scripts.lock_args(self._prefix, session_id, token, self._lease_ms, tail=tail, users=users,
                                cached=cached)
        keys = scripts.LockKeys.of(self._prefix, session_id)
        deadline = time.monotonic() + timeout_s
        with self._errors():
            while True:
                answer = await parts.run(scripts.LOCK_LOAD, keys=names, args=args)
                step = scripts.after_try(answer, session_id, deadline, timeout_s, self._describe)
                if step.taken:
                    return scripts.read_loaded(session_id, answer, users, cached)
                if step.dead_holder is not None:
                    await self._unlock(parts, keys, step.dead_holder)
                elif step.wait > 0:           # BLPOP's 0 would block for ever
                    await parts.client.blpop([keys.wake], timeout=step.wait)

    async def _unlock(self, parts: _LoopClient, keys: scripts.LockKeys, token: str, pending: PendingWrite | None = None,
                      base: int = 0) -> None:
        names, args = scripts.commit_args(self._prefix, keys, token, pending, base)
        with self._errors():
            done = await parts.run(scripts.COMMIT, keys=names, args=args)
        scripts.check_committed(done, pending)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        from redis import RedisError

        try:
            yield
        except (RedisError, LeanError) as exc:
            raise StoreError(f"session store {self._describe} failed: {exc}") from exc


async def _close_at_end(parts: _LoopClient) -> AsyncGenerator[None, None]:
    """Holds the loop's clients open until closed: by ``aclose``, or by the loop finalising it at the end."""
    try:
        yield
    finally:
        if parts.pipe is not None:
            parts.pipe.close()
        await parts.client.aclose()
