"""Load shedding: a worker runs at most ``max_turns_in_flight`` turns at once and refuses the next with
503 ``overloaded`` and ``Retry-After``, before reading its body (docs/serving.md, "Load shedding").

Turns are held in flight by an action that waits for the test to let it go: no timing decides
anything here."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from dialogkit import Bot
from dialogkit.cli import app as cli_app
from dialogkit.errors import DialogkitError
from dialogkit.service import ServiceSettings, create_app
from dialogkit.service.admission import DEFAULT_MAX_TURNS, MAX_TURNS_ENV, Admission, is_turn_route
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


def client_for(bot: Bot, limit: int) -> httpx.AsyncClient:
    app = create_app(bot, ServiceSettings(max_turns_in_flight=limit))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dialogkit")


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
def test_the_turn_past_the_limit_gets_503_with_retry_after(held: tuple[Bot, HeldTicket], language: str) -> None:
    bot, action = held
    words = CONVERSATIONS[language]

    async def run() -> None:
        async with client_for(bot, LIMIT) as client:
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
        async with client_for(bot, 1) as client:
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
        async with client_for(bot, 0) as client:
            in_flight = await hold(client, action, ["zh-0", "zh-1", "zh-2"], CONVERSATIONS["zh"])
            status = (await client.post("/v1/sessions/zh-3/turns", json={"text": "我上周买的手机屏幕碎了"})).status_code
            action.release.set()
            await asyncio.gather(*in_flight)
            return status

    assert asyncio.run(run()) == 200


def test_admission_counts_places() -> None:
    admission = Admission(2)
    assert admission.enter() and admission.enter() and not admission.enter()
    admission.leave()
    assert admission.enter() and admission.in_flight == 2
    with pytest.raises(ValueError, match="0 \\(none\\) or more"):
        Admission(-1)


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
