"""Fixtures for LLM tests: a small bot file and clients with fast timeouts and backoffs."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from dialogkit.llm.client import LLMClient
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


@pytest.fixture()
def bot_spec() -> BotFile:
    return BotFile.model_validate(BOT)


MakeClient = Callable[..., LLMClient]


@pytest.fixture()
def make_client() -> Iterator[MakeClient]:
    """A client for a scripted server: small deadline, tiny backoff, a fake key; closed after."""
    made: list[LLMClient] = []

    def make(server: ScriptedLLMServer, *, timeout_s: float = 2.0, max_retries: int = 2, backoff_s: float = 0.01) -> LLMClient:
        spec = LLMSpec(model="scripted-model", timeout_s=timeout_s, max_retries=max_retries)
        client = LLMClient(spec, api_key="sk-test-secret", base_url=server.base_url, backoff_s=backoff_s, max_backoff_s=1.0)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
