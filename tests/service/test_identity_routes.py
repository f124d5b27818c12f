"""Who a turn is, over HTTP (docs/serving.md, "Keys and scopes"): a user is named only by a key
allowed to name users; the Rasa channel's sender and a session id are never a user; each route
needs a key with its scope."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.service import ServiceSettings, create_app
from dialogkit.service.keys import parse_keys
from tests.service.conftest import TOKEN

WIDGET, BACKEND, OPS, LOOK, ADMIN = "widget-0001", "backend-0002", "ops-0003", "look-0004", "admin-0005"
TICKET = {"zh": ["我上周买的手机屏幕碎了", "123456", "确认"], "en": ["my phone arrived broken", "123456", "yes"]}
REPORT = {"zh": "我的手机坏了", "en": "my phone arrived broken"}
ASK_ORDER = {"zh": "订单号", "en": "order number"}


def keys_text() -> str:
    from dialogkit.service.keys import digest

    return "\n".join([f"widget sha256:{digest(WIDGET)} chat", f"backend sha256:{digest(BACKEND)} chat,users",
                      f"ops sha256:{digest(OPS)} admin,inspector", f"look sha256:{digest(LOOK)} inspector",
                      f"admin sha256:{digest(ADMIN)} admin"])


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def keyed(bot: Bot) -> Iterator[TestClient]:
    settings = ServiceSettings(keys=parse_keys(keys_text(), "test keys"), token=TOKEN)
    with TestClient(create_app(bot, settings)) as client:
        yield client


def turn(client: TestClient, key: str, session: str, text: str, **extra: str) -> httpx.Response:
    return client.post(f"/v1/sessions/{session}/turns", json={"text": text, **extra}, headers=auth(key))


def rasa(client: TestClient, key: str, sender: str, message: str) -> httpx.Response:
    return client.post("/webhooks/rest/webhook", json={"sender": sender, "message": message}, headers=auth(key))


def error(response: httpx.Response, status: int) -> dict[str, str]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and "Traceback" not in response.text
    return dict(body["error"])


def file_ticket_for_alice(client: TestClient, session: str, language: str) -> None:
    for text in TICKET[language]:
        assert turn(client, BACKEND, session, text, user_id="alice").status_code == 200


@pytest.mark.parametrize("language", ["zh", "en"])
class TestASessionIdIsNeverAUser:
    def test_the_turn_route(self, keyed: TestClient, language: str) -> None:
        file_ticket_for_alice(keyed, "web-7f3a", language)
        reply = turn(keyed, WIDGET, "alice", REPORT[language]).json()
        assert "123456" not in reply["text"] and ASK_ORDER[language] in reply["text"]
        assert reply["slots"].get("order_id") is None
        again = turn(keyed, BACKEND, "web-9c21", REPORT[language], user_id="alice").json()
        assert again["slots"].get("order_id") == "123456"          # alice, named by a key that may

    def test_the_rasa_channel(self, keyed: TestClient, language: str) -> None:
        file_ticket_for_alice(keyed, "web-7f3a", language)
        (answer,) = rasa(keyed, WIDGET, "alice", REPORT[language]).json()
        assert "123456" not in answer["text"] and ASK_ORDER[language] in answer["text"]
        session = keyed.get("/v1/sessions/alice", headers=auth(OPS)).json()
        assert session["user_id"] is None

    def test_a_widget_cannot_confirm_in_a_users_session(self, keyed: TestClient, language: str) -> None:
        opening, order, yes = TICKET[language]
        turn(keyed, BACKEND, "a-1", opening, user_id="alice")
        turn(keyed, BACKEND, "a-1", order, user_id="alice")
        refused = error(rasa(keyed, WIDGET, "a-1", yes), 409)
        assert refused["code"] == "session_owner"
        assert error(turn(keyed, WIDGET, "a-1", yes), 409)["code"] == "session_owner"
        session = keyed.get("/v1/sessions/a-1", headers=auth(OPS)).json()
        assert session["state"] == "CONFIRMATION" and session["user_id"] == "alice"


class TestNamingAUser:
    def test_a_key_without_the_users_scope_may_not(self, keyed: TestClient) -> None:
        refused = error(turn(keyed, WIDGET, "s1", "hello", user_id="alice"), 403)
        assert refused["code"] == "user_id_not_allowed"
        assert "'users' scope" in refused["message"] and "widget" in refused["message"]
        assert refused["hint"]
        assert error(turn(keyed, LOOK, "s1", "hello", user_id="alice"), 403)["code"] == "user_id_not_allowed"
        assert keyed.get("/v1/sessions/s1", headers=auth(OPS)).status_code == 404     # nothing ran

    def test_a_key_with_it_may(self, keyed: TestClient) -> None:
        assert turn(keyed, BACKEND, "s1", "hello", user_id="alice").status_code == 200
        assert turn(keyed, TOKEN, "s2", "hello", user_id="bob").status_code == 200       # the token: every scope

    def test_a_server_without_keys_refuses_it_and_says_how_to_allow_it(self, client: TestClient) -> None:
        refused = error(client.post("/v1/sessions/s1/turns", json={"text": "hi", "user_id": "alice"}), 403)
        assert refused["code"] == "user_id_not_allowed"
        assert "--keys" in refused["hint"] and "users" in refused["hint"]
        assert client.post("/v1/sessions/s1/turns", json={"text": "hi"}).status_code == 200


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("post", "/v1/sessions/s1/turns", {WIDGET, BACKEND, OPS, LOOK, TOKEN}),
    ("post", "/webhooks/rest/webhook", {WIDGET, BACKEND, TOKEN}),
    ("get", "/v1/sessions/s1", {OPS, LOOK, ADMIN, TOKEN}),
    ("get", "/v1/sessions/s1/context", {OPS, LOOK, ADMIN, TOKEN}),
    ("get", "/v1/sessions/s1/stats", {OPS, LOOK, ADMIN, TOKEN}),
    ("delete", "/v1/sessions/s1", {OPS, ADMIN, TOKEN}),
    ("get", "/v1/users/alice/export", {OPS, ADMIN, TOKEN}),
    ("delete", "/v1/users/alice", {OPS, ADMIN, TOKEN}),
    ("get", "/metrics", {OPS, ADMIN, TOKEN}),
    ("get", "/v1/bot", {WIDGET, BACKEND, OPS, LOOK, ADMIN, TOKEN}),
])
def test_each_route_needs_a_key_with_its_scope(keyed: TestClient, method: str, path: str, allowed: set[str]) -> None:
    body = {"sender": "s1", "message": "hi"} if "webhook" in path else {"text": "hi"}
    for key in (WIDGET, BACKEND, OPS, LOOK, ADMIN, TOKEN):
        kwargs = {"json": body} if method == "post" else {}
        response = keyed.request(method.upper(), path, headers=auth(key), **kwargs)
        if key in allowed:
            assert response.status_code in (200, 404), (key, response.text)
        else:
            refused = error(response, 403)
            assert refused["code"] == "insufficient_scope", (key, refused)
            assert "scope" in refused["message"]


@pytest.mark.parametrize("header", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Bearer " + WIDGET + "x"},
                                    {"Authorization": "Basic " + WIDGET}])
def test_no_key_or_an_unknown_one_is_401(keyed: TestClient, header: dict[str, str]) -> None:
    response = keyed.post("/v1/sessions/s1/turns", json={"text": "hi"}, headers=header)
    assert error(response, 401)["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


def test_public_paths_need_no_key(keyed: TestClient) -> None:
    assert keyed.get("/healthz").status_code == 200 and keyed.get("/openapi.json").status_code == 200
