"""``await bot.ahandle(...)``: the same reply as ``handle``, off the event loop, one turn per
session at a time while different sessions overlap, and a turn its caller abandoned still saved."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable

import pytest

from dialogkit import Bot
from dialogkit.engine.async_turns import AsyncTurns, runner_of
from dialogkit.model.reply import Reply
from tests.service.conftest import CONVERSATIONS, STUB_TICKET, SUPPORT, abandon, assert_same_replies


@pytest.mark.parametrize("language", ["zh", "en"])
def test_ahandle_answers_what_handle_answers(language: str) -> None:
    with Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as sync_bot, \
            Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as async_bot:
        async def run() -> list[Reply]:
            return [await async_bot.ahandle("s1", text, user_id="alice") for text in CONVERSATIONS[language]]

        awaited = asyncio.run(run())
        handled = [sync_bot.handle("s1", text, user_id="alice") for text in CONVERSATIONS[language]]
    assert_same_replies(awaited, handled)


class Recorder:
    """A turn function that takes ``seconds`` and records when each turn ran, and in which thread."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spans: list[tuple[str, float, float]] = []
        self.threads: set[int] = set()
        self.lock = threading.Lock()

    def __call__(self, session_id: str, text: object, *, user_id: str | None = None) -> Reply:
        started = time.monotonic()
        time.sleep(self.seconds)
        with self.lock:
            self.spans.append((session_id, started, time.monotonic()))
            self.threads.add(threading.get_ident())
        return Reply(text=str(text), state="IDLE", flow=None, slots={}, session_id=session_id, language="en")


def overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def test_two_turns_of_one_session_never_interleave() -> None:
    recorder = Recorder(0.05)
    runner = AsyncTurns(recorder)

    async def run() -> list[Reply]:
        return await asyncio.gather(*(runner.handle("s1", f"turn {i}") for i in range(4)))

    replies = asyncio.run(run())
    assert [r.text for r in replies] == ["turn 0", "turn 1", "turn 2", "turn 3"]
    spans = sorted(recorder.spans, key=lambda s: s[1])
    assert not any(overlap(a, b) for a, b in itertools.pairwise(spans))
    assert runner.sessions_in_flight == 0            # the lock map holds only sessions in flight


def test_turns_of_different_sessions_run_at_once_and_the_loop_goes_on() -> None:
    recorder = Recorder(0.2)
    runner = AsyncTurns(recorder)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def run() -> float:
        tick = asyncio.create_task(ticker())
        started = time.monotonic()
        await asyncio.gather(runner.handle("s1", "a"), runner.handle("s2", "b"))
        tick.cancel()
        return time.monotonic() - started

    elapsed = asyncio.run(run())
    first, second = recorder.spans
    assert overlap(first, second)
    assert elapsed < 0.35                            # together, not 0.4 s one after the other
    assert ticks >= 10                               # the event loop was never blocked by a turn
    assert threading.get_ident() not in recorder.threads


def test_a_turn_whose_caller_gave_up_finishes_before_the_next_turn_of_its_session() -> None:
    recorder = Recorder(0.15)
    runner = AsyncTurns(recorder)

    async def run() -> None:
        await abandon(runner.handle("s1", "abandoned"), 0.03)
        await runner.handle("s1", "next")

    asyncio.run(run())
    (_, _, first_end), (_, second_start, _) = sorted(recorder.spans, key=lambda s: s[1])
    assert len(recorder.spans) == 2 and first_end <= second_start


def test_a_failing_turn_raises_to_its_caller_and_frees_the_session() -> None:
    def fail(session_id: str, text: object, *, user_id: str | None = None) -> Reply:
        raise RuntimeError("boom")

    runner = AsyncTurns(fail)

    async def run() -> None:
        for _ in range(2):
            with pytest.raises(RuntimeError, match="boom"):
                await runner.handle("s1", "x")

    asyncio.run(run())
    assert runner.sessions_in_flight == 0


@pytest.mark.parametrize("language", ["zh", "en"])
def test_concurrent_ahandle_on_one_bot_loses_no_turn(language: str) -> None:
    """Twenty users, five turns each, all at once on one bot: every message is stored, in order."""
    texts = [*CONVERSATIONS[language][:2], "取消" if language == "zh" else "cancel", *CONVERSATIONS[language][:2]]
    with Bot.from_file(SUPPORT, store="memory://") as bot:
        async def user(n: int) -> None:
            for text in texts:
                await bot.ahandle(f"u{n}", text, user_id=f"user{n}")

        async def run() -> None:
            await asyncio.gather(*(user(n) for n in range(20)))

        asyncio.run(run())
        for n in range(20):
            view = bot.session(f"u{n}")
            said = [m.content for m in view.history if m.role == "user"]
            assert said == texts and view.state == "CONFIRMATION"
        assert runner_of(bot).sessions_in_flight == 0


def test_the_runner_is_made_once_per_bot() -> None:
    with Bot.from_file(SUPPORT, store="memory://") as bot:
        first: Callable[[], AsyncTurns] = lambda: runner_of(bot)   # noqa: E731
        assert first() is first()


def test_wait_idle_waits_for_a_turn_whose_caller_left() -> None:
    recorder = Recorder(0.2)
    runner = AsyncTurns(recorder)

    async def run() -> tuple[bool, bool]:
        abandoned = asyncio.create_task(runner.handle("s1", "x"))
        await asyncio.sleep(0.02)
        abandoned.cancel()
        early = await runner.wait_idle(0.01)
        late = await runner.wait_idle(5)
        return early, late

    early, late = asyncio.run(run())
    assert (early, late) == (False, True) and len(recorder.spans) == 1
