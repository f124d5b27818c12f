"""The turn route answers a plain JSON body itself, past FastAPI's routing, and hands any other body
to the FastAPI route: both answer a request the same way (service/turn_route.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.errors import StoreError
from dialogkit.service import api_sessions, create_app
from tests.service.conftest import CONVERSATIONS, STUB_TICKET, SUPPORT

PLAIN = {"Content-Type": "application/json"}
OTHER = {"Content-Type": "application/vnd.support+json"}     # JSON all the same: FastAPI's route reads it


def _without_latency(response: httpx.Response) -> tuple[int, Any]:
    body = response.json()
    if isinstance(body, dict):
        body.pop("latency_ms", None)
    return response.status_code, body


@pytest.fixture
def bots() -> Iterator[tuple[TestClient, TestClient]]:
    """Two servers of the support bot, each with a store of its own."""
    with Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as one, \
            Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as two, \
            TestClient(create_app(one)) as first, TestClient(create_app(two)) as second:
        yield first, second


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_conversation_reads_the_same_through_either_path(bots: tuple[TestClient, TestClient],
                                                           language: str) -> None:
    fast, routed = bots
    for text in CONVERSATIONS[language]:
        body = {"text": text}
        assert _without_latency(fast.post("/v1/sessions/s1/turns", json=body, headers=PLAIN)) == \
            _without_latency(routed.post("/v1/sessions/s1/turns", json=body, headers=OTHER))


@pytest.mark.parametrize("body", [
    {"text": "我的手机坏了", "user_id": "alice"},       # naming a user on a server without keys: 403
    {"text": "my phone is broken", "user_id": "bad id"},
    {"text": "订单 12345", "user_id": None, "extra": [1, 2]},
])
@pytest.mark.parametrize("session", ["s1", "..", "x" * 200])
def test_errors_of_a_turn_are_the_same_through_either_path(bots: tuple[TestClient, TestClient],
                                                           body: dict[str, Any], session: str) -> None:
    fast, routed = bots
    path = f"/v1/sessions/{session}/turns"
    assert _without_latency(fast.post(path, json=body, headers=PLAIN)) == \
        _without_latency(routed.post(path, json=body, headers=OTHER))


def test_a_plain_body_never_reaches_the_fastapi_route(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def routed(*args: object) -> None:
        raise AssertionError("the FastAPI route ran")

    monkeypatch.setattr(api_sessions, "run_turn", routed)
    response = client.post("/v1/sessions/s1/turns", json={"text": "my phone arrived broken"}, headers=PLAIN)
    assert response.status_code == 200 and response.json()["flow"] == "report_issue"


@pytest.mark.parametrize(("raw", "field"), [
    (b'{"text": 5}', "text"),
    (b'{"user_id": "alice"}', "text"),
    (b'{"text": "\xe6\x89\x8b\xe6\x9c\xba", "user_id": 7}', "user_id"),
    (b'["my phone arrived broken"]', None),
    (b"not json", None),
    (b'{"text": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", None),     # nested deeper than json reads
])
def test_any_other_body_gets_the_route_s_422(client: TestClient, raw: bytes, field: str | None) -> None:
    response = client.post("/v1/sessions/s1/turns", content=raw, headers=PLAIN)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request" and error["details"]
    if field is not None:
        assert any(field in detail["loc"] for detail in error["details"])


def test_a_store_that_fails_is_a_503_counted_once(client: TestClient, bot: Bot,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise StoreError("session store redis://10.0.0.5:6379/0 failed: Connection refused")

    monkeypatch.setattr(bot, "ahandle", broken)
    response = client.post("/v1/sessions/s1/turns", json={"text": "我上周买的手机屏幕碎了"}, headers=PLAIN)
    assert response.status_code == 503 and response.json()["error"]["code"] == "store_unavailable"
    assert "10.0.0.5" not in response.text
    assert 'dialogkit_errors_total{code="store_unavailable"} 1.0' in client.get("/metrics").text
