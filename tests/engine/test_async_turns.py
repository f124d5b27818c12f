"""The native async turn (``Turns.ahandle``): over a store whose transaction is awaited, the store
and the LLM are awaited on the loop, only the rules' step takes a thread, and the turns of one
session still never interleave. The store here is the memory store behind an ``atransaction``
that waits like a network round trip; tests/store/test_redis.py runs the same path over Redis.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.engine.async_turns import runner_of
from dialogkit.errors import SessionOwnerError
from dialogkit.model.reply import Reply
from dialogkit.store import MemoryStore
from dialogkit.store.protocol import StoreTxn
from tests.service.conftest import CONVERSATIONS, STUB_TICKET, SUPPORT, abandon, assert_same_replies


class AwaitedStore:
    """The memory store with an awaited transaction that takes ``delay`` to lock and load and
    again to commit, recording when each turn held its session and on which thread it waited."""

    def __init__(self, delay: float = 0.0) -> None:
        self.inner = MemoryStore()
        self.delay = delay
        self.spans: list[tuple[str, float, float]] = []
        self.users: list[tuple[str, ...]] = []
        self.loop_threads: set[int] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @asynccontextmanager
    async def atransaction(self, session_id: str, *, history_tail: int = 200,
                           users: tuple[str, ...] = ()) -> AsyncIterator[StoreTxn]:
        self.loop_threads.add(threading.get_ident())
        self.users.append(users)
        await asyncio.sleep(self.delay)                      # lock and load, on the wire
        with self.inner.transaction(session_id, history_tail=history_tail) as txn:
            started = time.monotonic()
            yield txn
            await asyncio.sleep(self.delay)                  # commit and unlock
            self.spans.append((session_id, started, time.monotonic()))


class SlowLLM:
    """An LLM layer whose async calls take ``delay``; its sync calls must never run."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.awaited: list[str] = []

    def uses(self, purpose: str) -> bool:
        return False

    async def aunderstand(self, ctx: Any) -> None:
        self.awaited.append("understand")
        await asyncio.sleep(self.delay)

    async def arephrase(self, ctx: Any, text: str) -> str:
        self.awaited.append("rephrase")
        await asyncio.sleep(self.delay)
        return text

    def understand(self, ctx: Any) -> None:
        raise AssertionError("the sync LLM call ran in an async turn")

    rephrase = understand


def bot_on(store: AwaitedStore) -> Bot:
    return Bot.from_file(SUPPORT, store=store, actions=STUB_TICKET)


async def max_loop_lag(work: Any) -> float:
    """The longest the loop went without running a 5 ms ticker while ``work`` ran."""
    lags: list[float] = []

    async def ticker() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.005)
            lags.append(time.monotonic() - before - 0.005)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    await work
    tick.cancel()
    return max(lags)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_native_turn_answers_what_handle_answers(language: str) -> None:
    store = AwaitedStore()
    with bot_on(store) as async_bot, Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as sync_bot:
        assert async_bot.turns.native_async and not sync_bot.turns.native_async
        name = async_bot.spec.bot.name

        async def run() -> list[Reply]:
            return [await async_bot.ahandle("s1", text, user_id="alice") for text in CONVERSATIONS[language]]

        awaited = asyncio.run(run())
        handled = [sync_bot.handle("s1", text, user_id="alice") for text in CONVERSATIONS[language]]
    assert_same_replies(awaited, handled)
    assert len(store.spans) == 3                             # every turn went through atransaction
    assert store.users[0] == (f"{name}/alice", "alice")   # the user's values come with the session


def test_two_native_turns_of_one_session_never_interleave() -> None:
    store = AwaitedStore(delay=0.02)
    with bot_on(store) as bot:
        async def run() -> list[Reply]:
            return await asyncio.gather(*(bot.ahandle("s1", text) for text in CONVERSATIONS["en"]))

        replies = asyncio.run(run())
        assert [r.state for r in replies] == ["PARAM_COLLECT", "CONFIRMATION", "IDLE"]   # in the order sent
        spans = sorted(store.spans, key=lambda s: s[1])
        assert all(a[2] <= b[1] for a, b in itertools.pairwise(spans))
        assert runner_of(bot).sessions_in_flight == 0


def test_native_turns_of_different_sessions_run_at_once() -> None:
    store = AwaitedStore(delay=0.1)
    with bot_on(store) as bot:
        async def run() -> float:
            started = time.monotonic()
            await asyncio.gather(*(bot.ahandle(f"s{n}", "my phone arrived broken") for n in range(8)))
            return time.monotonic() - started

        elapsed = asyncio.run(run())
    assert elapsed < 0.2 * 4                 # 8 turns of 0.2 s each, together rather than in a row
    assert threading.get_ident() in store.loop_threads     # the store was awaited on the loop, not in a thread


def test_a_slow_store_and_a_slow_llm_never_block_the_loop() -> None:
    store = AwaitedStore(delay=0.15)
    llm = SlowLLM(delay=0.15)
    with bot_on(store) as bot:
        bot.turns.llm = llm                  # type: ignore[assignment]  # the layer, awaited

        async def run() -> float:
            work = asyncio.gather(*(bot.ahandle(f"s{n}", "my phone arrived broken") for n in range(4)))
            return await max_loop_lag(work)

        lag = asyncio.run(run())
    assert llm.awaited.count("understand") == 4 and llm.awaited.count("rephrase") == 4
    assert lag < 0.1                         # each turn waited 0.6 s; the loop never stalled like that


def test_a_slow_action_runs_off_the_loop() -> None:
    """The bot's actions are synchronous code: a native turn runs them in the turn pool."""
    ran_on: list[int] = []

    def create_ticket(**_: Any) -> dict[str, str]:
        ran_on.append(threading.get_ident())
        time.sleep(0.3)
        return {"ticket_id": "T-7"}

    store = AwaitedStore()
    with Bot.from_file(SUPPORT, store=store, actions={"create_ticket": create_ticket}) as bot:
        async def run() -> float:
            for text in CONVERSATIONS["en"][:2]:
                await bot.ahandle("s1", text)
            return await max_loop_lag(bot.ahandle("s1", "yes"))

        lag = asyncio.run(run())
    assert ran_on and ran_on[0] != threading.get_ident()
    assert lag < 0.15


def test_a_native_turn_whose_caller_gave_up_is_saved_before_the_next() -> None:
    store = AwaitedStore(delay=0.05)
    with bot_on(store) as bot:
        async def run() -> Reply:
            await abandon(bot.ahandle("s1", "my phone arrived broken"), 0.02)
            return await bot.ahandle("s1", "12345")

        second = asyncio.run(run())
        assert second.state == "CONFIRMATION"               # the abandoned turn started the task
        said = [m.content for m in bot.session("s1").history if m.role == "user"]
    assert said == ["my phone arrived broken", "12345"]


def test_a_failing_native_turn_frees_its_session() -> None:
    store = AwaitedStore()
    with bot_on(store) as bot:
        async def run() -> None:
            await bot.ahandle("s1", "hello", user_id="alice")
            with pytest.raises(SessionOwnerError):
                await bot.ahandle("s1", "hello", user_id="bob")
            await bot.ahandle("s1", "hello", user_id="alice")

        asyncio.run(run())
        assert runner_of(bot).sessions_in_flight == 0
