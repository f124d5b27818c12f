"""``dialogkit serve`` as a real uvicorn process on a free loopback port: graceful SIGTERM, several
workers on one Redis store, --reload, and the checks made before any worker starts."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from dialogkit.cli import app
from dialogkit.errors import DialogkitError
from dialogkit.service.server import ServeOptions, check_options
from dialogkit.store import open_store
from tests.service.conftest import REDIS_URL, SUPPORT, TOKEN, Server, needs_redis
from tests.service.test_metrics import sample

StartServer = Callable[..., Server]


def test_sigterm_lets_the_turn_in_flight_finish(start_server: StartServer, slow_bot_file: Path,
                                                tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    server = start_server([str(slow_bot_file), "--store", store], env={"SLOW_S": "1.5"}, cwd=tmp_path)
    first = httpx.post(server.url + "/v1/sessions/p1/turns", json={"text": "我要付款"}, timeout=10)
    assert first.json()["text"] == "请提供卡号。"
    answers: list[httpx.Response] = []
    slow = threading.Thread(target=lambda: answers.append(
        httpx.post(server.url + "/v1/sessions/p1/turns", json={"text": "12345678"}, timeout=30)))
    slow.start()
    time.sleep(0.5)                                   # the action is running now
    server.process.send_signal(signal.SIGTERM)
    slow.join(timeout=30)
    assert server.process.wait(timeout=30) in (0, -signal.SIGTERM)     # uvicorn re-raises the signal it handled
    (answer,) = answers
    assert answer.status_code == 200 and answer.json()["text"] == "已付款，回执 R-78。"
    saved = open_store(store)
    try:
        session = saved.load("p1", history_tail=None)
        assert session is not None and session.turn == 2 and len(session.history) == 4
    finally:
        saved.close()


@pytest.fixture
def redis_store() -> Iterator[str]:
    assert REDIS_URL is not None
    prefix = f"test-serve-{uuid.uuid4().hex[:8]}:"
    yield f"{REDIS_URL}?prefix={prefix}"
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


async def _drive(url: str, sessions: int, turns: int, same: int, headers: dict[str, str]) -> list[int]:
    """``sessions`` users of ``turns`` turns each, plus ``same`` turns at once on one session."""
    texts = ["my phone arrived broken", "12345", "never mind"]
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=0)   # new connections: both workers
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30, headers=headers) as client:
        async def user(n: int) -> list[int]:
            return [(await client.post(f"/v1/sessions/u{n}/turns", json={"text": texts[i % 3]})).status_code
                    for i in range(turns)]

        async def one(i: int) -> int:
            return (await client.post("/v1/sessions/shared/turns", json={"text": f"hello {i}"})).status_code

        per_user, shared = await asyncio.gather(asyncio.gather(*(user(n) for n in range(sessions))),
                                                asyncio.gather(*(one(i) for i in range(same))))
    return [code for codes in per_user for code in codes] + list(shared)


@needs_redis
def test_two_workers_on_redis_serve_the_same_sessions(start_server: StartServer, redis_store: str,
                                                      tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    # 12 turns of one session at once are a script, not a person: above the session rate limit's burst
    server = start_server([str(SUPPORT), "--store", redis_store, "--workers", "2", "--token", TOKEN,
                           "--session-rate", "off"], env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)})
    auth = {"Authorization": f"Bearer {TOKEN}"}
    codes = asyncio.run(_drive(server.url, sessions=16, turns=6, same=12, headers=auth))
    assert codes == [200] * (16 * 6 + 12)
    assert httpx.get(f"{server.url}/v1/sessions/u0").status_code == 401
    for n in range(16):
        session = httpx.get(f"{server.url}/v1/sessions/u{n}", headers=auth).json()
        assert session["turn"] == 6 and len(session["history"]) == 12
    shared = httpx.get(f"{server.url}/v1/sessions/shared", headers=auth).json()
    said = [m["content"] for m in shared["history"] if m["role"] == "user"]
    assert shared["turn"] == 12 and sorted(said) == sorted(f"hello {i}" for i in range(12))
    pids = {path.stem.rsplit("_", 1)[-1] for path in metrics_dir.glob("counter_*.db")}
    assert len(pids) >= 2                             # both workers ran turns...
    text = httpx.get(f"{server.url}/metrics", headers=auth).text
    assert sample(text, "dialogkit_turn_latency_seconds_count") == 16 * 6 + 12    # ...and one scrape adds them up


def test_reload_picks_up_a_changed_bot_file(start_server: StartServer, slow_bot_file: Path, tmp_path: Path) -> None:
    server = start_server([str(slow_bot_file), "--store", "memory://", "--reload"], cwd=tmp_path)
    before = httpx.get(server.url + "/v1/bot").json()["version"]
    assert httpx.post(server.url + "/v1/sessions/p1/turns", json={"text": "I want to pay"}).json()["text"] == \
        "What is your card number?"
    text = slow_bot_file.read_text(encoding="utf-8")
    slow_bot_file.write_text(text.replace("What is your card number?", "Your card number, please?"),
                             encoding="utf-8")
    deadline = time.monotonic() + 15
    while httpx.get(server.url + "/v1/bot").json()["version"] == before:
        assert time.monotonic() < deadline, "the bot file was not reloaded"
        time.sleep(0.2)
    answer = httpx.post(server.url + "/v1/sessions/p1/turns", json={"text": "1"}).json()
    assert answer["text"].endswith("Your card number, please?")        # the session went on


def test_a_bot_file_with_problems_is_reported_before_serving(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("bot:\n  name: x\nflows:\n  f:\n    slots:\n      - nmae: a\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["serve", str(bad), "--store", "memory://"])
    assert result.exit_code == 1 and "bad.yaml:" in result.output


def test_memory_store_with_several_workers_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", str(SUPPORT), "--store", "memory://", "--workers", "2"])
    assert result.exit_code == 1 and "shared store" in result.output


def test_sqlite_with_several_workers_is_warned_about(tmp_path: Path) -> None:
    options = ServeOptions(bot_file=str(SUPPORT), store=f"sqlite:///{tmp_path / 's.db'}", workers=2)
    (warning,) = check_options(options)
    assert "SQLite" in warning and "redis" in warning


def test_listening_beyond_loopback_without_a_token_is_warned_about() -> None:
    options = ServeOptions(bot_file=str(SUPPORT), store="memory://", host="0.0.0.0")
    assert any("without a token" in w for w in check_options(options))
    assert check_options(ServeOptions(bot_file=str(SUPPORT), store="memory://", host="0.0.0.0", token="t")) == []


def test_the_options_reach_the_workers_whole() -> None:
    options = ServeOptions(bot_file="/x/bot.yaml", store="redis://h:1/0", port=9, workers=3, token="t", reload=True)
    os.environ["DIALOGKIT_SERVE_OPTIONS"] = options.to_env()
    try:
        assert ServeOptions.from_env() == options
    finally:
        del os.environ["DIALOGKIT_SERVE_OPTIONS"]
    with pytest.raises(DialogkitError, match="dialogkit serve"):
        ServeOptions.from_env()


def test_a_server_process_freezes_what_it_loaded_and_collects_the_young_less_often() -> None:
    """``dialogkit serve`` settles the collector once the bot is loaded; an embedding app does not."""
    from fastapi.testclient import TestClient

    from dialogkit import Bot
    from dialogkit.service import ServiceSettings, create_app
    from dialogkit.service.app import GC_YOUNG_THRESHOLD

    threshold = gc.get_threshold()
    try:
        with Bot.from_file(SUPPORT, store="memory://") as bot:
            with TestClient(create_app(bot)):
                assert gc.get_threshold() == threshold
            with TestClient(create_app(bot, ServiceSettings(freeze_gc=True))) as client:
                assert client.post("/v1/sessions/s1/turns", json={"text": "我的手机坏了"}).status_code == 200
                assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == GC_YOUNG_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
