"""Turns on an event loop: what ``Bot.ahandle`` runs (docs/serving.md, "ahandle").

The stores and the LLM client are synchronous, so a turn runs in a thread pool (bounded, shared by
every bot of the process) and the loop goes on serving other requests while it waits for Redis,
SQLite or an LLM. Turns of one session queue
on an ``asyncio.Lock`` of that session *before* they take a thread: the store's own lock would
keep them apart as well, but only by parking a pool thread per waiting turn, and a burst on one
session could then starve every other session of threads. The map of locks holds only sessions
with a turn running or waiting, so it never grows past the number of calls in flight.

A caller that stops waiting (its task cancelled, its client gone) does not stop the turn: the
thread finishes it and saves it, and the session's lock is released only then, so the session's
next turn still comes strictly after it.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from typing import Any

from dialogkit.model.reply import Reply

__all__ = ["TURN_THREADS", "AsyncTurns", "runner_of"]

TurnFunction = Callable[..., Reply]

TURN_THREADS = 32
"""Threads that run turns, shared by every bot of the process. More than the loop's default pool
(CPU count + 4): a turn mostly waits (on the store, above all on an LLM), so a few cores keep many
turns in flight; a rule-based turn holds its thread for about a millisecond."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=TURN_THREADS, thread_name_prefix="dialogkit-turn")
        return _pool


class _Queue:
    """One session's lock and how many calls hold it or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class AsyncTurns:
    """Runs ``handle(session_id, text, user_id=...)`` off the loop, one turn per session at a time."""

    def __init__(self, handle: TurnFunction, executor: Executor | None = None) -> None:
        self._handle = handle
        self._executor = executor          # None: the process's pool of TURN_THREADS threads
        self._queues: dict[str, _Queue] = {}

    @property
    def sessions_in_flight(self) -> int:
        """Sessions with a turn running or waiting (the size of the lock map)."""
        return len(self._queues)

    async def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no turn runs or waits (a server stopping: a turn whose caller left is still
        running in its thread); False when ``timeout_s`` passed first."""
        deadline = time.monotonic() + timeout_s
        while self._queues:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    async def handle(self, session_id: str, text: object, *, user_id: str | None = None) -> Reply:
        queue = self._queues.get(session_id)
        if queue is None:
            queue = self._queues[session_id] = _Queue()
        queue.users += 1
        try:
            await queue.lock.acquire()
        except BaseException:
            self._leave(session_id, queue, locked=False)
            raise
        try:
            call = partial(contextvars.copy_context().run, self._handle, session_id, text, user_id=user_id)
            future = asyncio.get_running_loop().run_in_executor(self._executor or _shared_pool(), call)
        except BaseException:
            self._leave(session_id, queue, locked=True)
            raise
        future.add_done_callback(partial(self._finished, session_id, queue))
        return await asyncio.shield(future)

    def _finished(self, session_id: str, queue: _Queue, future: asyncio.Future[Reply]) -> None:
        if not future.cancelled():
            future.exception()            # retrieved here, so an abandoned failure logs no warning
        self._leave(session_id, queue, locked=True)

    def _leave(self, session_id: str, queue: _Queue, *, locked: bool) -> None:
        if locked:
            queue.lock.release()
        queue.users -= 1
        if queue.users == 0 and self._queues.get(session_id) is queue:
            del self._queues[session_id]


def runner_of(owner: Any) -> AsyncTurns:
    """The ``AsyncTurns`` of ``owner`` (a ``Bot``), made on first use and kept on it.

    Kept on the bot rather than built with it so a bot that is never awaited pays nothing; it
    wraps ``owner.handle``, so a reloaded bot's turns go through the same session locks.
    """
    runner = getattr(owner, "_async_turns", None)
    if not isinstance(runner, AsyncTurns):
        runner = AsyncTurns(owner.handle)
        owner._async_turns = runner
    return runner
