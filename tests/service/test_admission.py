"""Load shedding: a worker runs at most ``max_turns_in_flight`` turns at once; the next wait for a
place while the queue drains within the latency budget at the pace measured, and the turn past that
gets 503 ``overloaded`` and ``Retry-After``, before its body is read (docs/serving.md, "Load shedding").

Turns are held in flight by an action that waits for the test to let it go, and the clock that times
the pace is the test's: no timing decides anything here."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from dialogkit import Bot
from dialogkit.cli import app as cli_app
from dialogkit.errors import DialogkitError
from dialogkit.service import ServiceSettings, create_app
from dialogkit.service.admission import (
    DEFAULT_MAX_TURNS,
    FIRST_INTERVAL_S,
    MAX_QUEUE,
    MAX_TURNS_ENV,
    Admission,
    is_turn_route,
)
from dialogkit.service.server import ServeOptions, turns_in_flight
from tests.service.conftest import CONVERSATIONS, SUPPORT

LIMIT = 2
WAIT_S = 30.0          # a safety net against a hung test; nothing waits this long when the code is right


class HeldTicket:
    """``create_ticket`` that reports each call and returns only once the test releases it."""

    def __init__(self) -> None:
        self.entered = threading.Semaphore(0)
        self.release = threading.Event()

    def __call__(self, ctx: Any) -> dict[str, str]:
        self.entered.release()
        assert self.release.wait(WAIT_S), "the test never released the action"
        return {"ticket_id": "T-7"}


@pytest.fixture
def held() -> Iterator[tuple[Bot, HeldTicket]]:
    action = HeldTicket()
    with Bot.from_file(SUPPORT, store="memory://", actions={"create_ticket": action}) as bot:
        yield bot, action
    action.release.set()


def client_for(bot: Bot, limit: int, **settings: Any) -> tuple[httpx.AsyncClient, Admission]:
    app = create_app(bot, ServiceSettings(max_turns_in_flight=limit, **settings))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dialogkit"), app.state.admission


def no_queue(bot: Bot, limit: int) -> httpx.AsyncClient:
    return client_for(bot, limit, queue_budget_s=0)[0]


def still() -> float:
    """A clock that never moves (the pace is never what a test is about when it uses this one)."""
    return 0.0


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.001)


async def hold(client: httpx.AsyncClient, action: HeldTicket, sessions: list[str],
               words: list[str]) -> list[asyncio.Task[httpx.Response]]:
    """Bring each session to its confirmation, then confirm them all: each stays in the action."""
    for session in sessions:
        for text in words[:-1]:
            assert (await client.post(f"/v1/sessions/{session}/turns", json={"text": text})).status_code == 200
    held = [asyncio.create_task(client.post(f"/v1/sessions/{s}/turns", json={"text": words[-1]})) for s in sessions]
    for _ in sessions:
        assert await asyncio.to_thread(action.entered.acquire, timeout=WAIT_S)
    return held


@pytest.mark.parametrize("language", ["zh", "en"])
def test_with_no_queue_the_turn_past_the_limit_gets_503_with_retry_after(held: tuple[Bot, HeldTicket],
                                                                          language: str) -> None:
    bot, action = held
    words = CONVERSATIONS[language]

    async def run() -> None:
        async with no_queue(bot, LIMIT) as client:
            in_flight = await hold(client, action, [f"{language}-{n}" for n in range(LIMIT)], words)
            refused = await client.post(f"/v1/sessions/{language}-new/turns", json={"text": words[0]})
            rasa = await client.post("/webhooks/rest/webhook", json={"sender": f"{language}-rasa", "message": words[0]})
            looked_at = await client.get(f"/v1/sessions/{language}-0")          # not a turn: served
            action.release.set()
            answered = [await task for task in in_flight]
            after = await client.post(f"/v1/sessions/{language}-new/turns", json={"text": words[0]})
            metrics = (await client.get("/metrics")).text
        for response in (refused, rasa):
            assert response.status_code == 503, response.text
            assert response.headers["retry-after"] == "1"
            assert response.json()["error"]["code"] == "overloaded"
        assert looked_at.status_code == 200
        assert [r.status_code for r in answered] == [200] * LIMIT
        assert all(r.json()["state"] == "IDLE" and "T-7" in r.json()["text"] for r in answered)
        assert after.status_code == 200 and after.json()["flow"] == "report_issue"
        assert 'dialogkit_errors_total{code="overloaded"} 2.0' in metrics

    asyncio.run(run())


def test_a_refused_turn_is_answered_before_its_body_is_read(held: tuple[Bot, HeldTicket]) -> None:
    bot, action = held
    read: list[bytes] = []

    async def body() -> AsyncIterator[bytes]:
        read.append(b"x")
        yield b'{"text": "my phone arrived broken"}'

    async def run() -> httpx.Response:
        async with no_queue(bot, 1) as client:
            in_flight = await hold(client, action, ["en-0"], CONVERSATIONS["en"])
            refused = await client.post("/v1/sessions/en-1/turns", content=body(),
                                        headers={"content-type": "application/json"})
            action.release.set()
            await in_flight[0]
            return refused

    assert asyncio.run(run()).status_code == 503
    assert read == []


def test_no_limit_admits_every_turn(held: tuple[Bot, HeldTicket]) -> None:
    bot, action = held

    async def run() -> int:
        async with client_for(bot, 0)[0] as client:
            in_flight = await hold(client, action, ["zh-0", "zh-1", "zh-2"], CONVERSATIONS["zh"])
            status = (await client.post("/v1/sessions/zh-3/turns", json={"text": "我上周买的手机屏幕碎了"})).status_code
            action.release.set()
            await asyncio.gather(*in_flight)
            return status

    assert asyncio.run(run()) == 200


def test_admission_counts_places() -> None:
    async def run() -> None:
        admission = Admission(2, budget_s=0)
        assert await admission.enter() and await admission.enter() and not await admission.enter()
        admission.leave()
        assert await admission.enter() and admission.in_flight == 2
    asyncio.run(run())
    with pytest.raises(ValueError, match="0 \\(none\\) or more"):
        Admission(-1)
    with pytest.raises(ValueError, match="0 seconds \\(no queue\\) or more"):
        Admission(2, budget_s=-1)


@pytest.mark.parametrize(("method", "path", "turn"), [
    ("POST", "/v1/sessions/s1/turns", True), ("POST", "/webhooks/rest/webhook", True),
    ("GET", "/v1/sessions/s1/turns", False), ("GET", "/v1/sessions/s1", False), ("DELETE", "/v1/sessions/s1", False),
    ("POST", "/v1/users/turns", False), ("GET", "/metrics", False),
])
def test_which_routes_are_turns(method: str, path: str, turn: bool) -> None:
    assert is_turn_route(method, path) is turn


def test_the_limit_comes_from_the_option_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServeOptions(bot_file=str(SUPPORT))
    monkeypatch.delenv(MAX_TURNS_ENV, raising=False)
    assert turns_in_flight(options) == DEFAULT_MAX_TURNS
    monkeypatch.setenv(MAX_TURNS_ENV, "8")
    assert turns_in_flight(options) == 8
    assert turns_in_flight(ServeOptions(bot_file=str(SUPPORT), max_turns_in_flight=0)) == 0
    monkeypatch.setenv(MAX_TURNS_ENV, "lots")
    with pytest.raises(DialogkitError, match=f"{MAX_TURNS_ENV} must be a whole number"):
        turns_in_flight(options)


def test_a_bad_limit_is_a_clear_error_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app, ["serve", str(SUPPORT), "--store", "memory://", "--max-turns-in-flight", "-1"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    monkeypatch.setenv(MAX_TURNS_ENV, "-3")
    result = runner.invoke(cli_app, ["serve", str(SUPPORT), "--store", "memory://"])
    assert result.exit_code == 1
    assert f"{MAX_TURNS_ENV} must be a whole number" in result.output and "Traceback" not in result.output


class Clock:
    """Wall time as the test says it passes."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def queue(admission: Admission, turns: int) -> list[asyncio.Task[bool]]:
    """``turns`` turns asking for a place at once; returns once each holds one, waits or was refused."""
    tasks = [asyncio.create_task(admission.enter()) for _ in range(turns)]
    await asyncio.sleep(0)
    return tasks


def test_a_burst_past_the_places_waits_for_them() -> None:
    async def run() -> None:
        admission = Admission(2, clock=Clock())
        tasks = await queue(admission, 7)
        assert (admission.running, admission.in_flight) == (2, 7)
        for _ in range(7):
            admission.leave()
            await asyncio.sleep(0)
        assert all(task.result() for task in tasks) and admission.in_flight == 0
    asyncio.run(run())


async def paced(interval_s: float) -> tuple[int, list[bool]]:
    """The queue's limit once turns finished every ``interval_s`` with every place taken, and what
    a burst one past it got."""
    clock = Clock()
    admission = Admission(2, budget_s=0.5, clock=clock)
    assert admission.queue_limit == int(0.5 / FIRST_INTERVAL_S)       # before any measurement
    await queue(admission, 3)
    for _ in range(200):
        clock.now += interval_s
        admission.leave()
        await queue(admission, 1)
    limit = admission.queue_limit
    tasks = await queue(admission, limit - (admission.in_flight - admission.running) + 1)
    return limit, [task.result() for task in tasks if task.done()]


def test_the_queue_holds_what_drains_in_the_budget_at_the_pace_measured() -> None:
    assert asyncio.run(paced(0.010)) == (50, [False])   # 10 ms a turn at full load: 50 wait, the 51st is refused
    assert asyncio.run(paced(0.050))[0] == 10           # a worker given a fifth of the core: 10


def test_the_queue_is_bounded_however_fast_the_pace() -> None:
    async def run() -> int:
        clock = Clock()
        admission = Admission(1, clock=clock)
        await queue(admission, 2)
        for _ in range(400):
            clock.now += 1e-6
            admission.leave()
            await queue(admission, 1)
        return admission.queue_limit
    assert asyncio.run(run()) == MAX_QUEUE


def test_a_turn_that_stops_waiting_leaves_the_queue() -> None:
    async def run() -> tuple[int, bool]:
        admission = Admission(1, clock=Clock())
        _, gone, kept = await queue(admission, 3)
        gone.cancel()
        await asyncio.sleep(0)
        waiting = admission.in_flight
        admission.leave()
        await asyncio.sleep(0)
        return waiting, kept.result()
    assert asyncio.run(run()) == (2, True)


def test_a_turn_cancelled_as_its_place_frees_passes_the_place_on() -> None:
    async def run() -> tuple[bool, int]:
        admission = Admission(1, clock=Clock())
        _, handed, kept = await queue(admission, 3)
        admission.leave()                        # the place goes to ``handed``...
        handed.cancel()                          # ...which is cancelled before it resumes
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return handed.cancelled() and kept.result(), admission.in_flight
    assert asyncio.run(run()) == (True, 1)


def test_a_turn_cancelled_and_skipped_by_a_place_freeing_leaves_no_trace() -> None:
    async def run() -> tuple[bool, int]:
        admission = Admission(1, clock=Clock())
        _, gone, kept = await queue(admission, 3)
        gone.cancel()                            # not resumed yet when the place frees:
        admission.leave()                        # ``leave`` skips it and hands the place to ``kept``
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return gone.cancelled() and kept.result(), admission.in_flight
    assert asyncio.run(run()) == (True, 1)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_burst_past_the_old_fixed_limit_is_served(held: tuple[Bot, HeldTicket], language: str) -> None:
    bot, action = held
    words = CONVERSATIONS[language]
    sessions = [f"{language}-{n}" for n in range(DEFAULT_MAX_TURNS + 6)]     # 6 more than run at once

    async def run() -> list[httpx.Response]:
        client, admission = client_for(bot, DEFAULT_MAX_TURNS, admission_clock=still)
        async with client:
            for session in sessions:
                for text in words[:-1]:
                    assert (await client.post(f"/v1/sessions/{session}/turns", json={"text": text})).status_code == 200
            in_flight = [asyncio.create_task(client.post(f"/v1/sessions/{s}/turns", json={"text": words[-1]}))
                         for s in sessions]
            await until(lambda: admission.in_flight == len(sessions))
            assert admission.running == DEFAULT_MAX_TURNS
            action.release.set()
            return [await task for task in in_flight]

    answered = asyncio.run(run())
    assert [r.status_code for r in answered] == [200] * len(sessions)
    assert all(r.json()["state"] == "IDLE" and "T-7" in r.json()["text"] for r in answered)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_past_the_queue_a_turn_gets_503_with_retry_after(held: tuple[Bot, HeldTicket], language: str) -> None:
    bot, action = held
    words = CONVERSATIONS[language]
    waiting = 3
    budget_s = waiting * FIRST_INTERVAL_S          # 3 turns wait at the pace assumed

    async def run() -> tuple[list[httpx.Response], list[httpx.Response], httpx.Response]:
        client, admission = client_for(bot, LIMIT, queue_budget_s=budget_s, admission_clock=still)
        async with client:
            running = await hold(client, action, [f"{language}-{n}" for n in range(LIMIT)], words)
            queued = [asyncio.create_task(client.post(f"/v1/sessions/{language}-q{n}/turns", json={"text": words[0]}))
                      for n in range(waiting)]
            await until(lambda: admission.in_flight == LIMIT + waiting)
            refused = await client.post(f"/v1/sessions/{language}-new/turns", json={"text": words[0]})
            action.release.set()
            return [await t for t in running], [await t for t in queued], refused

    running, queued, refused = asyncio.run(run())
    assert [r.status_code for r in running + queued] == [200] * (LIMIT + waiting)
    assert all(r.json()["flow"] == "report_issue" for r in queued)
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    error = refused.json()["error"]
    assert error["code"] == "overloaded" and "2 turns and 3 more wait" in error["message"]
