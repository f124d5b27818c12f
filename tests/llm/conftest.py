"""Fixtures for LLM tests: a small bot file, clients with fast timeouts and backoffs, and a driver
that makes each call either with the sync SDK or with the async one (every test runs both)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from dialogkit.llm import calls, once
from dialogkit.llm.client import LLMClient, LLMResult
from dialogkit.llm.commands import Command
from dialogkit.llm.structured import forget_modes
from dialogkit.spec.schema import BotFile, LLMSpec
from dialogkit.testing.llm_server import ScriptedLLMServer

BOT = {
    "bot": {"name": "support"},
    "entities": {
        "order_id": {"pattern": r"\d{5,12}"},
        "product": {"values": {"phone": ["手机", "phone"], "laptop": ["笔记本", "laptop"]}},
    },
    "flows": {
        "report_issue": {
            "description": "报告订单问题 / Report a problem with an order",
            "trigger": {"intent": "report_issue", "examples": ["我的手机坏了", "my phone is broken"]},
            "slots": [
                {"name": "order_id", "entity": "order_id"},
                {"name": "product", "entity": "product"},
                {"name": "note", "required": False, "sensitive": True},
            ],
        },
        "check_status": {
            "description": "查询订单状态 / Check an order's status",
            "trigger": {"intent": "order_status"},
            "slots": [{"name": "order_id", "entity": "order_id"}],
        },
    },
}


@pytest.fixture(autouse=True)
def _fresh_process_memory() -> Iterator[None]:
    """Negotiated modes and once-only warnings live for the process: each test starts without them
    (a new scripted server may get a port an earlier test's server had)."""
    forget_modes()
    once.reset()
    yield
    forget_modes()
    once.reset()


@pytest.fixture()
def bot_spec() -> BotFile:
    return BotFile.model_validate(BOT)


MakeClient = Callable[..., LLMClient]


@pytest.fixture()
def make_client() -> Iterator[MakeClient]:
    """A client for a scripted server: small deadline, tiny backoff, a fake key; closed after."""
    made: list[LLMClient] = []

    def make(server: ScriptedLLMServer, *, timeout_s: float = 2.0, max_retries: int = 2, backoff_s: float = 0.01,
             **spec: Any) -> LLMClient:
        llm = LLMSpec(model="scripted-model", timeout_s=timeout_s, max_retries=max_retries, **spec)
        client = LLMClient(llm, api_key="sk-test-secret", base_url=server.base_url, backoff_s=backoff_s, max_backoff_s=1.0)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


class Driver:
    """Makes a call with the sync SDK (``understand``) or the async one (``await aunderstand``),
    so one test body covers both paths. An async call runs in its own event loop, and the client's
    async connections are closed before that loop ends."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _go(self, client: LLMClient, sync: Callable[..., Any], coro: Callable[..., Coroutine[Any, Any, Any]],
            *args: Any, **kwargs: Any) -> Any:
        if self.name == "sync":
            return sync(client, *args, **kwargs)

        async def run() -> Any:
            try:
                return await coro(client, *args, **kwargs)
            finally:
                await client.aclose()

        return asyncio.run(run())

    def chat(self, client: LLMClient, *args: Any, **kwargs: Any) -> LLMResult:
        result: LLMResult = self._go(client, LLMClient.chat, LLMClient.achat, *args, **kwargs)
        return result

    def understand(self, client: LLMClient, *args: Any, **kwargs: Any) -> list[Command]:
        result: list[Command] = self._go(client, calls.understand, calls.aunderstand, *args, **kwargs)
        return result

    def summarize(self, client: LLMClient, *args: Any, **kwargs: Any) -> str:
        return str(self._go(client, calls.summarize, calls.asummarize, *args, **kwargs))

    def rephrase(self, client: LLMClient, *args: Any, **kwargs: Any) -> str:
        return str(self._go(client, calls.rephrase, calls.arephrase, *args, **kwargs))


@pytest.fixture(params=["sync", "async"])
def driver(request: pytest.FixtureRequest) -> Driver:
    return Driver(str(request.param))
