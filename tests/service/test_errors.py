"""Auth and every error code: JSON with a code, never a traceback (docs/serving.md, "Errors")."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.errors import StoreError
from dialogkit.service import ServiceSettings, create_app
from tests.service.conftest import TOKEN

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def error_of(response: httpx.Response, status: int) -> str:
    """The error code of ``response``, checked to be a JSON error with ``status`` and no traceback."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["message"]
    assert "Traceback" not in response.text and response.headers["content-type"].startswith("application/json")
    return str(body["error"]["code"])


# ---- auth -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path"), [
    ("post", "/v1/sessions/s1/turns"), ("get", "/v1/sessions/s1"), ("get", "/v1/sessions/s1/context"),
    ("get", "/v1/sessions/s1/stats"), ("delete", "/v1/sessions/s1"), ("get", "/v1/users/alice/export"),
    ("delete", "/v1/users/alice"), ("get", "/v1/bot"), ("post", "/webhooks/rest/webhook"), ("get", "/metrics"),
])
def test_every_api_route_needs_the_token(secured: TestClient, method: str, path: str) -> None:
    response = secured.request(method, path, json={"text": "hi", "sender": "a", "message": "hi"})
    assert error_of(response, 401) == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["Bearer wrong", "Basic " + TOKEN, TOKEN, "Bearer", "Bearer " + TOKEN + "x"])
def test_a_wrong_token_is_refused(secured: TestClient, header: str) -> None:
    response = secured.post("/v1/sessions/s1/turns", json={"text": "hi"}, headers={"Authorization": header})
    assert error_of(response, 401) == "unauthorized"


def test_the_right_token_passes(secured: TestClient) -> None:
    response = secured.post("/v1/sessions/s1/turns", json={"text": "我上周买的手机屏幕碎了"}, headers=AUTH)
    assert response.status_code == 200 and response.json()["text"] == "请提供您的订单号。"
    assert secured.get("/metrics", headers=AUTH).status_code == 200
    lower = {"authorization": f"bearer {TOKEN}"}
    assert secured.get("/v1/sessions/s1", headers=lower).status_code == 200


def test_health_docs_and_the_page_need_no_token(secured: TestClient) -> None:
    assert secured.get("/healthz").status_code == 200
    assert secured.get("/readyz").status_code == 200
    assert secured.get("/openapi.json").status_code == 200
    assert secured.get("/docs").status_code == 200
    assert secured.get("/").status_code in (200, 404)        # 404 only while no page is installed


def test_an_unauthorized_bad_body_learns_nothing(secured: TestClient) -> None:
    response = secured.post("/v1/sessions/s1/turns", content=b"{not json", headers={"Content-Type": "application/json"})
    assert error_of(response, 401) == "unauthorized"


def test_the_token_can_come_from_the_settings_only(bot: Bot) -> None:
    with TestClient(create_app(bot, ServiceSettings(token=None))) as open_client:
        assert open_client.get("/v1/bot").status_code == 200


# ---- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("session_id", ["a" * 129, "has space", "semi;colon", "quote'", "star*", "%00"])
def test_a_bad_session_id_is_refused(client: TestClient, session_id: str) -> None:
    response = client.post(f"/v1/sessions/{session_id}/turns", json={"text": "hi"})
    assert error_of(response, 422) == "invalid_id"
    assert error_of(client.get(f"/v1/sessions/{session_id}"), 422) == "invalid_id"


@pytest.mark.parametrize("dots", ["%2e%2e", "%2E%2E", "%2e", ".%2e", "..."])
def test_an_id_of_dots_alone_is_refused_on_every_route(client: TestClient, dots: str) -> None:
    """'..' sent percent-encoded reaches the route decoded: as a path segment it means the parent."""
    for method, path in [("POST", f"/v1/sessions/{dots}/turns"), ("GET", f"/v1/sessions/{dots}"),
                         ("DELETE", f"/v1/sessions/{dots}"), ("GET", f"/v1/sessions/{dots}/context"),
                         ("GET", f"/v1/sessions/{dots}/stats"), ("GET", f"/v1/users/{dots}/export"),
                         ("DELETE", f"/v1/users/{dots}")]:
        response = client.request(method, path, json={"text": "hi"} if method == "POST" else None)
        assert error_of(response, 422) == "invalid_id", (method, path)
    rasa = client.post("/webhooks/rest/webhook", json={"sender": "..", "message": "hi"})
    assert error_of(rasa, 422) == "invalid_id"


@pytest.mark.parametrize("session_id", ["a" * 128, "web:visitor-42", "alice@example.com", "会话_1", "x.y"])
def test_ids_of_any_script_up_to_128_characters_pass(client: TestClient, session_id: str) -> None:
    assert client.post(f"/v1/sessions/{session_id}/turns", json={"text": "hi"}).status_code == 200


def test_a_bad_user_id_in_a_body_or_path_is_refused(client: TestClient) -> None:
    response = client.post("/v1/sessions/s1/turns", json={"text": "hi", "user_id": "bad user"})
    assert error_of(response, 422) == "invalid_id"
    assert error_of(client.get("/v1/users/a%20b/export"), 422) == "invalid_id"
    assert error_of(client.delete("/v1/users/" + "u" * 129), 422) == "invalid_id"


@pytest.mark.parametrize("body", [{}, {"text": 5}, {"text": None}, {"user_id": "alice"}, ["text"]])
def test_an_invalid_body_is_refused_field_by_field(client: TestClient, body: object) -> None:
    response = client.post("/v1/sessions/s1/turns", json=body)
    assert error_of(response, 422) == "invalid_request"
    assert response.json()["error"]["details"]


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    response = client.post("/v1/sessions/s1/turns", content=b"{not json", headers={"Content-Type": "application/json"})
    assert error_of(response, 422) == "invalid_request"


@pytest.mark.parametrize("body", [b'{"text": "\xff\xfe"}', b"[" * 30_000 + b"]" * 30_000,
                                  b'{"text": "hi", "user_id": ' + b"9" * 20_000 + b"}"],
                         ids=["invalid-utf8", "nested-30000", "number-20000-digits"])
@pytest.mark.parametrize("path", ["/v1/sessions/s1/turns", "/webhooks/rest/webhook"])
def test_a_body_json_cannot_read_is_an_invalid_request(client: TestClient, body: bytes, path: str) -> None:
    """Bytes that are not UTF-8, nesting deeper than the parser goes, a number too long to convert:
    the same 422 as any other body that is not JSON, never a 400 of another shape."""
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert error_of(response, 422) == "invalid_request"
    assert response.json()["error"]["details"][0]["loc"] == ["body"]


def test_a_body_over_the_limit_is_refused(client: TestClient) -> None:
    response = client.post("/v1/sessions/s1/turns", json={"text": "长" * 40_000})
    assert error_of(response, 413) == "body_too_large"
    assert client.get("/v1/sessions/s1").status_code == 404            # nothing was run


def test_a_chunked_body_over_the_limit_is_refused_while_read(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}'

    response = client.post("/v1/sessions/s1/turns", content=chunks(), headers={"Content-Type": "application/json"})
    assert error_of(response, 413) == "body_too_large"


def test_a_long_message_under_the_limit_is_read_in_part(client: TestClient) -> None:
    response = client.post("/v1/sessions/s1/turns", json={"text": "my phone arrived broken " + "x" * 20_000})
    assert response.status_code == 200 and "20024 characters" in response.json()["text"]


def test_unknown_session_user_and_route(client: TestClient) -> None:
    assert error_of(client.get("/v1/sessions/nobody"), 404) == "unknown_session"
    assert error_of(client.get("/v1/sessions/nobody/context"), 404) == "unknown_session"
    assert error_of(client.get("/v1/sessions/nobody/stats"), 404) == "unknown_session"
    assert error_of(client.delete("/v1/sessions/nobody"), 404) == "unknown_session"
    assert error_of(client.get("/v1/users/nobody/export"), 404) == "unknown_user"
    assert error_of(client.delete("/v1/users/nobody"), 404) == "unknown_user"
    assert error_of(client.get("/v2/anything"), 404) == "not_found"


def test_a_wrong_method(client: TestClient) -> None:
    assert error_of(client.put("/v1/sessions/s1/turns", json={"text": "hi"}), 405) == "method_not_allowed"


# ---- failures inside -----------------------------------------------------------------------------

def test_a_turn_that_crashes_answers_500_without_a_traceback(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("secret internals")

    monkeypatch.setattr(bot.turns, "handle", crash)
    with TestClient(create_app(bot), raise_server_exceptions=False) as client:
        response = client.post("/v1/sessions/s1/turns", json={"text": "hi"})
        assert error_of(response, 500) == "internal_error"
        assert "secret internals" not in response.text and "ZeroDivisionError" not in response.text


def test_any_other_crash_answers_500_without_a_traceback(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object, **kwargs: object) -> None:
        raise KeyError("secret internals")

    monkeypatch.setattr(bot, "stats", crash)
    with TestClient(create_app(bot), raise_server_exceptions=False) as client:
        response = client.get("/v1/sessions/s1/stats")
        assert error_of(response, 500) == "internal_error" and "secret" not in response.text


def test_a_store_that_fails_answers_503(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: object, **kwargs: object) -> None:
        raise StoreError("redis at 10.0.0.5:6379 refused the connection")

    with TestClient(create_app(bot)) as client:
        monkeypatch.setattr(bot.store, "transaction", down)
        monkeypatch.setattr(bot.store, "load", down)
        response = client.post("/v1/sessions/s1/turns", json={"text": "hi"})
        assert error_of(response, 503) == "store_unavailable" and "10.0.0.5" not in response.text
        assert error_of(client.get("/readyz"), 503) == "store_unavailable"
        assert client.get("/healthz").status_code == 200
