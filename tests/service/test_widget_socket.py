"""The WebSocket route ``/v1/ws`` (docs/serving.md, "Web chat widget"): a hello, then turns answered
by the turn route's reply JSON, streamed in parts when asked; keys and scopes as over HTTP, the
``Origin`` of browsers checked, and bad input answered with an error message, never a dropped
connection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from dialogkit import Bot
from dialogkit.errors import DialogkitError
from dialogkit.service import ServiceSettings, create_app, widget
from dialogkit.service.keys import digest, parse_keys
from dialogkit.service.payloads import TurnReply
from dialogkit.service.server import ServeOptions, check_options
from dialogkit.service.widget import WS_PATH, parse_origins
from tests.service.conftest import CONVERSATIONS, STUB_TICKET, SUPPORT

CHAT, BACKEND, OPS = "chat-key-0001", "backend-key-0002", "ops-key-0003"
KEYS = parse_keys(f"widget sha256:{digest(CHAT)} chat\n"
                  f"backend sha256:{digest(BACKEND)} chat,users\n"
                  f"ops sha256:{digest(OPS)} admin\n", "test keys")
MINTED = re.compile(r"ws-[0-9a-f]{32}")
POLICY_VIOLATION = 1008


@pytest.fixture
def stub_bot() -> Iterator[Bot]:
    with Bot.from_file(SUPPORT, store="memory://", actions=STUB_TICKET) as opened:
        yield opened


def serve(bot: Bot, **settings: Any) -> TestClient:
    return TestClient(create_app(bot, ServiceSettings(**settings)))


def hello(ws: WebSocketTestSession, **fields: Any) -> dict[str, Any]:
    ws.send_json({"type": "hello", **fields})
    ready: dict[str, Any] = ws.receive_json()
    assert ready["type"] == "ready", ready
    return ready


def turn(ws: WebSocketTestSession, text: str, **fields: Any) -> list[dict[str, Any]]:
    """The messages one turn is answered with, up to its reply (or error)."""
    ws.send_json({"type": "turn", "text": text, **fields})
    answered = [ws.receive_json()]
    while answered[-1]["type"] not in ("reply", "error"):
        answered.append(ws.receive_json())
    return answered


def refused(ws: WebSocketTestSession) -> str:
    """The code of the error the server sends before it closes the socket with 1008."""
    error = ws.receive_json()
    assert error["type"] == "error", error
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == POLICY_VIOLATION
    return str(error["error"]["code"])


# ---- a conversation ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_streamed_conversation_to_a_ticket_sends_typing_the_parts_then_the_reply(stub_bot: Bot, lang: str) -> None:
    first, order, yes = CONVERSATIONS[lang]
    with serve(stub_bot) as client, client.websocket_connect(WS_PATH) as ws:
        ready = hello(ws, stream=True)
        assert MINTED.fullmatch(ready["session_id"]) and ready["resumed"] is False and ready["history"] == []
        assert ready["bot"] == {"name": "support", "language": "auto"}

        asked = turn(ws, first, id="t1")
        assert [m["type"] for m in asked] == ["typing", "text", "reply"]
        assert all(m["id"] == "t1" for m in asked)
        assert asked[1]["text"] == asked[2]["reply"]["text"]

        confirm = turn(ws, order, id=2)
        assert [m["type"] for m in confirm] == ["typing", "text", "options", "reply"]
        assert confirm[2]["options"] == (["确认", "取消"] if lang == "zh" else ["yes", "no"])
        reply = confirm[-1]["reply"]
        assert reply["state"] == "CONFIRMATION" and reply["language"] == lang and reply["options"] == confirm[2]["options"]

        done = turn(ws, yes)[-1]["reply"]
        assert done["state"] == "IDLE" and "T-1001" in done["text"]
        assert [a["name"] for a in done["actions"]] == ["create_ticket"]
        assert set(done) == set(TurnReply.model_fields)          # the turn route's JSON, field for field


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reply_is_the_one_the_turn_route_answers(stub_bot: Bot, lang: str) -> None:
    with serve(stub_bot) as client, client.websocket_connect(WS_PATH) as ws:
        hello(ws, session_id=f"socket-{lang}")
        for text in CONVERSATIONS[lang]:
            over_socket = turn(ws, text)
            assert [m["type"] for m in over_socket] == ["reply"]         # no parts unless asked for
            over_http = client.post(f"/v1/sessions/http-{lang}/turns", json={"text": text}).json()
            for got in (over_socket[0]["reply"], over_http):
                del got["latency_ms"], got["session_id"]
            assert over_socket[0]["reply"] == over_http


def test_a_paragraph_is_a_part_and_a_list_stays_with_its_line(stub_bot: Bot) -> None:
    with serve(stub_bot) as client, client.websocket_connect(WS_PATH) as ws:
        hello(ws, stream=True)
        parts = [m["text"] for m in turn(ws, "你好") if m["type"] == "text"]
        assert len(parts) == 1 and parts[0].startswith("您好！") and "\n- 退货" in parts[0]
        assert widget._paragraphs("One.\n\nTwo:\n- a\n- b\n \n") == ["One.", "Two:\n- a\n- b"]


# ---- the session: resumed, never a user ---------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_session_the_route_made_comes_back_with_its_history_after_a_reconnect(stub_bot: Bot, lang: str) -> None:
    first, order, yes = CONVERSATIONS[lang]
    with serve(stub_bot) as client:
        with client.websocket_connect(WS_PATH) as ws:
            session = hello(ws)["session_id"]
            turn(ws, first)
            turn(ws, order)
        with client.websocket_connect(WS_PATH) as ws:           # the socket closed: a new one goes on
            ready = hello(ws, session_id=session)
            assert ready["resumed"] is True and ready["language"] == lang
            assert [(m["role"], m["turn"]) for m in ready["history"]] == [
                ("user", 1), ("assistant", 1), ("user", 2), ("assistant", 2)]
            assert ready["history"][0]["content"] == first
            assert turn(ws, yes)[-1]["reply"]["state"] == "IDLE"     # the confirmation it was waiting for


def test_a_session_named_by_the_client_is_resumed_without_its_history(stub_bot: Bot) -> None:
    """Any id may be chosen, as over HTTP; only one the route made (a secret) gives its history back."""
    with serve(stub_bot) as client:
        client.post("/v1/sessions/s1/turns", json={"text": "我上周买的手机屏幕碎了"})
        with client.websocket_connect(WS_PATH) as ws:
            ready = hello(ws, session_id="s1")
            assert ready["resumed"] is True and ready["history"] == []
            assert turn(ws, "123456")[-1]["reply"]["state"] == "CONFIRMATION"


@pytest.mark.parametrize(("start", "card", "paid"), [("我要付款", "12345678", "已付款"),
                                                     ("I want to pay", "87654321", "Paid")])
def test_a_sensitive_value_is_masked_in_the_history_sent_back(slow_bot_file: Path, start: str, card: str,
                                                              paid: str) -> None:
    with Bot.from_file(slow_bot_file, store="memory://") as bot, serve(bot) as client:
        with client.websocket_connect(WS_PATH) as ws:
            session = hello(ws)["session_id"]
            turn(ws, start)
            reply = turn(ws, card)[-1]["reply"]
            assert paid in reply["text"]
        with client.websocket_connect(WS_PATH) as ws:
            history = hello(ws, session_id=session)["history"]
        assert len(history) == 4 and card not in str(history)
        assert history[2]["content"] == "***"


def test_a_user_is_named_only_with_a_key_that_has_the_users_scope(bot: Bot) -> None:
    with serve(bot, keys=KEYS) as client:
        with client.websocket_connect(WS_PATH) as ws:
            ws.send_json({"type": "hello", "key": CHAT, "user_id": "alice"})
            assert refused(ws) == "user_id_not_allowed"
        with client.websocket_connect(WS_PATH) as ws:
            hello(ws, key=BACKEND, session_id="alice-1", user_id="alice")
            assert turn(ws, "我上周买的手机屏幕碎了")[-1]["type"] == "reply"
        assert bot.session("alice-1").user_id == "alice"
        with client.websocket_connect(WS_PATH) as ws:       # her session, from a widget: refused, and it goes on
            hello(ws, key=CHAT, session_id="alice-1")
            error = turn(ws, "123456")[-1]
            assert error["type"] == "error" and error["error"]["code"] == "session_owner"
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}


def test_an_open_server_lets_no_connection_name_a_user(bot: Bot) -> None:
    with serve(bot) as client, client.websocket_connect(WS_PATH) as ws:
        ws.send_json({"type": "hello", "user_id": "alice"})
        assert refused(ws) == "user_id_not_allowed"


# ---- keys and origins ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "code"), [({}, "unauthorized"), ({"key": "not-a-key"}, "unauthorized"),
                                              ({"key": OPS}, "insufficient_scope")])
def test_a_hello_without_a_key_of_the_turn_routes_scopes_is_refused_and_closed(bot: Bot, fields: dict[str, Any],
                                                                               code: str) -> None:
    with serve(bot, keys=KEYS) as client, client.websocket_connect(WS_PATH) as ws:
        ws.send_json({"type": "hello", **fields})
        assert refused(ws) == code
    assert f'code="{code}"' in client.get("/metrics", headers={"Authorization": f"Bearer {OPS}"}).text


def test_a_key_comes_in_the_hello_or_as_a_bearer_header(bot: Bot) -> None:
    with serve(bot, keys=KEYS) as client:
        with client.websocket_connect(WS_PATH) as ws:
            hello(ws, key=CHAT)
            assert turn(ws, "my phone arrived broken")[-1]["reply"]["text"] == "What is your order number?"
        with client.websocket_connect(WS_PATH, headers={"Authorization": f"Bearer {CHAT}"}) as ws:
            hello(ws)
            assert turn(ws, "我上周买的手机屏幕碎了")[-1]["reply"]["text"] == "请提供您的订单号。"


def test_a_token_has_every_scope(bot: Bot) -> None:
    with serve(bot, token="s3cret") as client, client.websocket_connect(WS_PATH) as ws:
        hello(ws, key="s3cret", user_id="bob")


@pytest.mark.parametrize(("origin", "allowed", "opens"), [
    ("http://testserver", (), True),                          # the server's own pages (the inspector's host)
    ("https://shop.example", (), False),                      # another site, not allowed
    ("https://shop.example", ("https://shop.example",), True),
    ("https://evil.example", ("https://shop.example",), False),
    ("https://evil.example", ("*",), True),
])
def test_a_browser_page_opens_the_socket_only_from_an_allowed_origin(bot: Bot, origin: str,
                                                                     allowed: tuple[str, ...], opens: bool) -> None:
    with serve(bot, widget_origins=allowed) as client, \
            client.websocket_connect(WS_PATH, headers={"Origin": origin}) as ws:
        if opens:
            hello(ws)
        else:
            assert refused(ws) == "origin_not_allowed"


def test_origins_are_read_as_a_browser_sends_them() -> None:
    assert parse_origins(" https://Shop.example/, http://localhost:3000\n* ") == (
        "https://shop.example", "http://localhost:3000", "*")
    assert parse_origins("") == ()
    for bad in ("shop.example", "https://shop.example/chat", "ftp://shop.example"):
        with pytest.raises(DialogkitError, match="DIALOGKIT_WIDGET_ORIGINS"):
            parse_origins(bad)


# ---- bad input ----------------------------------------------------------------------------------------

def test_bad_messages_are_answered_with_an_error_and_the_conversation_goes_on(bot: Bot) -> None:
    with serve(bot) as client, client.websocket_connect(WS_PATH) as ws:
        for bad, code in [("{not json", "invalid_request"), ("[1, 2]", "invalid_request"),
                          ('{"type": "turn", "text": "hi"}', "hello_expected"),
                          ('{"type": "hello", "session_id": "../x"}', "invalid_id"),
                          ('{"type": "hello", "stream": "yes"}', "invalid_request")]:
            ws.send_text(bad)
            error = ws.receive_json()
            assert (error["type"], error["error"]["code"]) == ("error", code), bad
        hello(ws)
        ws.send_bytes(b'{"type": "turn", "text": "hi"}')
        assert ws.receive_json()["error"]["code"] == "invalid_request"
        for bad, code in [("{not json", "invalid_request"), ('{"type": "turn"}', "invalid_request"),
                          ('{"type": "turn", "text": 5}', "invalid_request"), ('{"type": "dance"}', "unknown_type"),
                          ('{"type": "turn", "text": "' + "长" * 40_000 + '"}', "body_too_large")]:
            ws.send_text(bad)
            error = ws.receive_json()
            assert (error["type"], error["error"]["code"]) == ("error", code), bad[:40]
            assert "Traceback" not in str(error)
        assert turn(ws, "我上周买的手机屏幕碎了")[-1]["reply"]["text"] == "请提供您的订单号。"


def test_a_missing_field_is_named_in_the_details(bot: Bot) -> None:
    with serve(bot) as client, client.websocket_connect(WS_PATH) as ws:
        hello(ws)
        ws.send_json({"type": "turn", "text": None, "id": 7})
        error = ws.receive_json()
        assert error == {"type": "error", "id": 7, "error": {
            "code": "invalid_request", "message": "the message is not valid",
            "details": [{"loc": ["text"], "message": "a turn needs 'text', the user's message"}]}}


def test_a_connection_that_never_says_hello_is_closed(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widget, "HELLO_TIMEOUT_S", 0.2)
    with serve(bot) as client, client.websocket_connect(WS_PATH) as ws:
        assert refused(ws) == "hello_timeout"


def test_a_bad_origin_in_the_environment_stops_serve_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIALOGKIT_WIDGET_ORIGINS", "https://shop.example, shop.example/chat")
    with pytest.raises(DialogkitError, match=re.escape("'shop.example/chat' is not an origin")):
        check_options(ServeOptions(bot_file=str(SUPPORT), store="memory://"))
