"""Fixtures for the HTTP service: the support bot on a memory store behind FastAPI's TestClient,
and a small bot file with a sensitive slot and a slow action for the subprocess tests."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.model.reply import Reply
from dialogkit.service import ServiceSettings, create_app

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
TOKEN = "s3cret-token"
REDIS_URL = os.environ.get("DIALOGKIT_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="set DIALOGKIT_TEST_REDIS_URL=redis://127.0.0.1:6399/0 to run the Redis tests")

# One support conversation per language that files a ticket; the stub gives it a fixed ticket id
# (the real action's is random per task), so two bots' replies can be compared word for word.
CONVERSATIONS = {
    "zh": ["我上周买的手机屏幕碎了", "123456", "确认"],
    "en": ["my phone arrived broken", "12345", "yes"],
}
STUB_TICKET = {"create_ticket": {"ticket_id": "T-1001"}}


def assert_same_replies(got: list[Reply], expected: list[Reply]) -> None:
    """What the user sees and what the bot remembers agree, turn by turn (``ahandle`` against ``handle``)."""
    for a, b in zip(got, expected, strict=True):
        assert (a.text, a.state, a.flow, a.slots, a.options, a.transitions) == \
               (b.text, b.state, b.flow, b.slots, b.options, b.transitions)
    assert got[-1].state == "IDLE" and got[-1].actions[0].name == "create_ticket"


async def abandon(turn: Coroutine[Any, Any, Reply], after_s: float) -> None:
    """Start ``turn`` and, ``after_s`` later, stop waiting for it (a client that went away)."""
    task = asyncio.create_task(turn)
    await asyncio.sleep(after_s)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# A bot with a sensitive slot and an action that takes SLOW_S seconds (graceful stop, masking).
SLOW_BOT = """
bot:
  name: slowbot
  language: auto
  actions: {module}
flows:
  pay:
    description: 付款 / Pay a bill
    trigger:
      examples: [我要付款, I want to pay]
      keywords: [付款, pay]
    slots:
      - name: card
        ask: {{zh: "请提供卡号。", en: "What is your card number?"}}
        sensitive: true
        validate:
          - pattern: '^\\d{{8}}$'
            error: {{zh: "卡号是8位数字。", en: "A card number has 8 digits."}}
    execute:
      action: charge
      say: {{zh: "已付款，回执 {{receipt}}。", en: "Paid, receipt {{receipt}}."}}
"""

SLOW_ACTIONS = """
import os, time
from dialogkit import ActionContext, action

@action("charge")
def charge(ctx: ActionContext) -> dict:
    time.sleep(float(os.environ.get("SLOW_S", "0")))
    return {{"receipt": "R-" + str(ctx.slots["card"])[-2:]}}
"""


@pytest.fixture
def bot() -> Iterator[Bot]:
    with Bot.from_file(SUPPORT, store="memory://") as opened:
        yield opened


@pytest.fixture
def client(bot: Bot) -> Iterator[TestClient]:
    with TestClient(create_app(bot)) as test_client:
        yield test_client


@pytest.fixture
def secured(bot: Bot) -> Iterator[TestClient]:
    with TestClient(create_app(bot, ServiceSettings(token=TOKEN))) as test_client:
        yield test_client


@pytest.fixture
def trusted(bot: Bot) -> Iterator[TestClient]:
    """A client sending the token (a key with every scope, so its turns may name a user)."""
    app = create_app(bot, ServiceSettings(token=TOKEN))
    with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as test_client:
        yield test_client


@pytest.fixture
def slow_bot_file(tmp_path: Path) -> Iterator[Path]:
    """The slow bot, its actions module under a name unique to the test (modules are cached)."""
    module = f"slow_actions_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(SLOW_ACTIONS.format(), encoding="utf-8")
    path = tmp_path / "slowbot.yaml"
    path.write_text(SLOW_BOT.format(module=module), encoding="utf-8")
    yield path
    sys.modules.pop(module, None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``dialogkit serve`` in a subprocess on a free loopback port."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "dialogkit.cli", "serve", *args, "--port", str(self.port),
                   "--log-level", "warning"]
        self.process = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})},
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.output()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the server did not become ready")

    def output(self) -> str:
        if self.process.poll() is None:
            return ""
        return self.process.stdout.read() if self.process.stdout else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


@pytest.fixture
def start_server() -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> Server:
        server = Server(args, env, cwd)
        started.append(server)
        server.wait_ready()
        return server

    yield start
    for server in started:
        server.stop()
