"""Turns on an event loop: what ``Bot.ahandle`` runs (docs/serving.md, "ahandle").

Over a store that can be awaited (Redis: ``atransaction``) the turn runs natively on the loop
(``Turns.ahandle``): the store and the LLM are awaited, and only the rules' step, which runs the
bot's synchronous actions, goes to a thread. Over the other stores (SQLite, memory), whose calls
are synchronous, the whole turn runs in a thread. Either way the loop goes on serving other
requests while a turn waits, and threads come from one bounded pool shared by every bot of the
process. Turns of one session queue
on an ``asyncio.Lock`` of that session *before* they start: the store's own lock would
keep them apart as well, but only by parking a pool thread per waiting turn, and a burst on one
session could then starve every other session of threads. The map of locks holds only sessions
with a turn running or waiting, so it never grows past the number of calls in flight.

A caller that stops waiting (its task cancelled, its client gone) does not stop the turn: the
turn goes on to the end and is saved, and the session's lock is released only then, so the session's
next turn still comes strictly after it.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol, TypeVar

from dialogkit.model.reply import Reply

__all__ = ["TURN_THREADS", "AsyncTurns", "runner_of"]

TurnFunction = Callable[..., Reply]
T = TypeVar("T")


class NativeTurns(Protocol):
    """What ``Turns`` offers an async caller (``engine.pipeline``)."""

    @property
    def native_async(self) -> bool: ...

    def ahandle(self, session_id: str, text: object, *, user_id: str | None = ...,
                offload: Any = ...) -> Awaitable[Reply]: ...

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

    def __init__(self, handle: TurnFunction, executor: Executor | None = None, *,
                 native: Callable[[], NativeTurns | None] | None = None) -> None:
        self._handle = handle
        self._executor = executor          # None: the process's pool of TURN_THREADS threads
        self._native = native              # the bot's current turns (a reload replaces them)
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
            future = self._start(session_id, text, user_id)
        except BaseException:
            self._leave(session_id, queue, locked=True)
            raise
        future.add_done_callback(partial(self._finished, session_id, queue))
        return await asyncio.shield(future)

    def _start(self, session_id: str, text: object, user_id: str | None) -> asyncio.Future[Reply]:
        """The turn, started: a task on the loop over an awaitable store, else a thread's job."""
        turns = self._native() if self._native is not None else None
        if turns is not None and turns.native_async:
            return asyncio.ensure_future(turns.ahandle(session_id, text, user_id=user_id, offload=self._offload))
        call = partial(contextvars.copy_context().run, self._handle, session_id, text, user_id=user_id)
        return asyncio.get_running_loop().run_in_executor(self._executor or _shared_pool(), call)

    async def _offload(self, step: Callable[..., T], /, *args: Any) -> T:
        """A synchronous step of a native turn, in the pool (it may run the bot's actions)."""
        call = partial(contextvars.copy_context().run, step, *args)
        return await asyncio.get_running_loop().run_in_executor(self._executor or _shared_pool(), call)

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
    wraps ``owner.handle`` and reads ``owner.turns`` on every call, so a reloaded bot's turns go
    through the same session locks.
    """
    runner = getattr(owner, "_async_turns", None)
    if not isinstance(runner, AsyncTurns):
        runner = AsyncTurns(owner.handle, native=lambda: getattr(owner, "turns", None))
        owner._async_turns = runner
    return runner
