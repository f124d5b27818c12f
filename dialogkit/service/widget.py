"""``/v1/ws``: a conversation over a WebSocket, for the chat widget (``static/widget.js``) and for
clients that want a reply in parts (docs/serving.md, "Web chat widget").

A browser cannot set an ``Authorization`` header on a WebSocket, so the key may come in the
first message (``hello``) instead; a query parameter would leave it in access logs and proxies.
The key needs a scope of the turn route, and a ``user_id`` only a key with ``users``, exactly as
over HTTP: the connection names a session, never a user. WebSockets are not covered by CORS, so
the ``Origin`` a browser sends is checked here: the server's own, or one it was told to allow.

Nothing a client sends ends the connection with a traceback: a message that cannot be read, or a
turn that fails, is answered with an ``error`` message and the conversation goes on. Only a
refused key or origin, or a client that never says hello, closes it (1008, after the error).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from dialogkit.errors import DialogkitError, StoreError
from dialogkit.logging import get_logger
from dialogkit.service.access import check_user_naming, remember_key, scopes_for
from dialogkit.service.errors import ApiError, error_body
from dialogkit.service.ids import check_id
from dialogkit.service.inspection import HISTORY_SHOWN, history_json
from dialogkit.service.keys import ApiKey, with_token
from dialogkit.service.limits import Limiter, refused
from dialogkit.service.payloads import reply_json
from dialogkit.service.state import Service

__all__ = ["HELLO_TIMEOUT_S", "ORIGINS_ENV", "WS_PATH", "parse_origins", "router"]

WS_PATH = "/v1/ws"
ORIGINS_ENV = "DIALOGKIT_WIDGET_ORIGINS"
HELLO_TIMEOUT_S = 10.0
"""How long a connection may stay without a valid ``hello``: an idle socket that never says who it
is holds a place on the server for nothing."""

POLICY_VIOLATION = 1008
_MINTED = re.compile(r"ws-[0-9a-f]{32}")
_TURN_ROUTE = ("POST", "/v1/sessions/-/turns")     # the scopes of a turn over HTTP are those of a turn here

log = get_logger("dialogkit.service")

router = APIRouter()


class _Refused(Exception):
    """The conversation cannot start: answered with an error, then the socket is closed."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.detail)
        self.error = error


@dataclass(frozen=True, slots=True)
class _Conversation:
    session_id: str
    user_id: str | None
    stream: bool
    key: ApiKey | None = None


def parse_origins(text: str) -> tuple[str, ...]:
    """The origins of ``DIALOGKIT_WIDGET_ORIGINS`` (commas or spaces between them): each
    ``scheme://host[:port]`` as a browser sends it, or ``*`` for any. Raises ``DialogkitError``
    naming the first one that is not an origin."""
    origins: list[str] = []
    for given in re.split(r"[,\s]+", text.strip()):
        if not given:
            continue
        origin = given.rstrip("/").lower()
        parts = urlsplit(origin)
        if origin != "*" and (parts.scheme not in ("http", "https") or not parts.netloc or parts.path
                              or parts.query or parts.fragment):
            raise DialogkitError(f"{ORIGINS_ENV}: {given!r} is not an origin; write scheme://host[:port], "
                                 "as a browser sends it (no path), or * for any")
        origins.append(origin)
    return tuple(origins)


@router.websocket(WS_PATH)
async def conversation(websocket: WebSocket) -> None:
    """Say hello (``{"type": "hello", "key"?, "session_id"?, "user_id"?, "stream"?}``), then send
    turns (``{"type": "turn", "text", "id"?}``); each is answered by a ``reply`` (the JSON of the
    turn route), and with ``stream`` first by ``typing``, a ``text`` per paragraph and ``options``."""
    await websocket.accept()
    service = cast(Service, websocket.app.state.service)
    try:
        talk = await _hello(websocket, service)
    except _Refused as refused:
        await _error(websocket, service, refused.error)
        await websocket.close(POLICY_VIOLATION, refused.error.code)
        return
    except WebSocketDisconnect:
        return
    await _send(websocket, await _ready(service, talk))
    while True:
        try:
            message = await _receive(websocket, service)
        except WebSocketDisconnect:
            return
        except ApiError as exc:
            await _error(websocket, service, exc)
            continue
        try:
            await _answer(websocket, service, talk, message)
        except WebSocketDisconnect:        # gone while its turn ran: the turn is saved all the same
            return


async def _hello(websocket: WebSocket, service: Service) -> _Conversation:
    """The origin and the key checked, then the first valid ``hello``; a message that is not one is
    answered with an error and another is awaited, until ``HELLO_TIMEOUT_S``."""
    _check_origin(websocket, service)
    deadline = time.monotonic() + HELLO_TIMEOUT_S
    while True:
        try:
            message = await asyncio.wait_for(_receive(websocket, service), deadline - time.monotonic())
        except TimeoutError as exc:
            raise _Refused(ApiError(408, "hello_timeout", f"no hello within {HELLO_TIMEOUT_S:g} s",
                                    hint='send {"type": "hello"} first')) from exc
        except ApiError as exc:
            await _error(websocket, service, exc)
            continue
        if message.get("type") != "hello":
            await _error(websocket, service, ApiError(422, "hello_expected", "the first message must be a hello",
                                                      hint='send {"type": "hello", "key": "..."} first'))
            continue
        try:
            return _start(websocket, service, message)
        except ApiError as exc:
            if exc.status_code in (401, 403):
                raise _Refused(exc) from exc
            await _error(websocket, service, exc)


def _check_origin(websocket: WebSocket, service: Service) -> None:
    """A browser always sends ``Origin``: its own page's, or one allowed by the server (a client that
    is not a browser sends none, and gets no protection it could not forge anyway)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return
    allowed = service.settings.widget_origins
    own = urlsplit(origin.lower()).netloc == websocket.headers.get("host", "").lower()
    if own or "*" in allowed or origin.rstrip("/").lower() in allowed:
        return
    raise _Refused(ApiError(403, "origin_not_allowed", f"pages of {origin} may not open this conversation",
                            hint=f"add {origin} to {ORIGINS_ENV} on the server"))


def _start(websocket: WebSocket, service: Service, hello: dict[str, Any]) -> _Conversation:
    """The conversation a hello opens: its key admitted as the turn route's would be, its session
    (given, or a new one), and its user (only with the ``users`` scope)."""
    fields = _fields(hello, session_id=str, key=str, user_id=str, stream=bool)
    key = _admit(websocket, service, fields.get("key"))
    remember_key(websocket.scope, key)
    session_id = check_id(fields["session_id"]) if "session_id" in fields else "ws-" + secrets.token_hex(16)
    user_id = check_id(fields["user_id"], "user id") if "user_id" in fields else None
    if user_id is not None:
        check_user_naming(websocket)
    return _Conversation(session_id, user_id, bool(fields.get("stream", False)), key)


def _admit(websocket: WebSocket, service: Service, given: str | None) -> ApiKey | None:
    """The connection's key, from the hello or an ``Authorization: Bearer`` header; None on an open
    server. 401 without a known key, 403 with one lacking a scope of the turn route."""
    ring = with_token(service.settings.keys, service.settings.token)
    if ring.open:
        return None
    if given is None:
        scheme, _, header = websocket.headers.get("authorization", "").partition(" ")
        given = header.strip() if scheme.lower() == "bearer" else None
    key = ring.find(given) if given else None
    if key is None:
        raise ApiError(401, "unauthorized", "a valid key is needed: 'key' in the hello, or an "
                                            "'Authorization: Bearer <key>' header")
    needed = scopes_for(*_TURN_ROUTE)
    if not key.scopes & needed:
        names = " or ".join(repr(s) for s in sorted(needed))
        raise ApiError(403, "insufficient_scope", f"the key {key.name!r} may not run turns: that needs the "
                                                  f"{names} scope",
                       hint="use a key with that scope, or add the scope to this key in the keys file")
    return key


async def _ready(service: Service, talk: _Conversation) -> dict[str, Any]:
    """``ready``: the session, the bot, and for a session this route made (or that names the
    connection's user), the last messages, masked, so a reloaded page shows the conversation."""
    bot = service.bot
    data = await asyncio.to_thread(bot.store.load, talk.session_id, history_tail=HISTORY_SHOWN)
    shown = data is not None and _MINTED.fullmatch(talk.session_id) is not None and data.user_id in (None, talk.user_id)
    return {"type": "ready", "session_id": talk.session_id, "resumed": data is not None,
            "bot": {"name": bot.spec.bot.name, "language": bot.spec.bot.language},
            "language": data.language if data is not None and data.turn else None,
            "history": history_json(bot, data) if shown and data is not None else []}


async def _answer(websocket: WebSocket, service: Service, talk: _Conversation, message: dict[str, Any]) -> None:
    """One message of the conversation: a turn, or a ping."""
    kind = message.get("type")
    turn_id = message.get("id")
    tag = {"id": turn_id} if isinstance(turn_id, str | int) and not isinstance(turn_id, bool) else {}
    try:
        if kind == "ping":
            await _send(websocket, {"type": "pong", **tag})
        elif kind == "turn":
            await _turn(websocket, service, talk, _fields(message, text=str, id=str | int), tag)
        else:
            raise ApiError(422, "unknown_type", f"unknown message type {kind!r}", hint="send 'turn' or 'ping'")
    except WebSocketDisconnect:
        raise
    except ApiError as exc:
        await _error(websocket, service, exc, tag)
    except StoreError as exc:
        log.error("store_unavailable", path=WS_PATH, error=str(exc))
        await _error(websocket, service, ApiError(503, "store_unavailable",
                                                  "the session store is unavailable; nothing was applied"), tag)
    except Exception as exc:
        log.error("internal_error", path=WS_PATH, exc_info=exc)
        await _error(websocket, service, ApiError(500, "internal_error",
                                                  "the server failed to answer; the error is in its log"), tag)


async def _turn(websocket: WebSocket, service: Service, talk: _Conversation, fields: dict[str, Any],
                tag: dict[str, Any]) -> None:
    if "text" not in fields:
        raise _Invalid("text", "a turn needs 'text', the user's message")
    await _within_limits(websocket, talk)
    if talk.stream:
        await _send(websocket, {"type": "typing", **tag})
    reply, seconds = await service.turn(talk.session_id, fields["text"], talk.user_id)
    body = reply_json(reply, service.hidden, seconds)          # the parts come from it: masked alike
    if talk.stream:
        for part in _paragraphs(body["text"]):
            await _send(websocket, {"type": "text", "text": part, **tag})
        if body["options"]:
            await _send(websocket, {"type": "options", "options": body["options"], **tag})
    await _send(websocket, {"type": "reply", "reply": body, **tag})


async def _within_limits(websocket: WebSocket, talk: _Conversation) -> None:
    """The rate limits of the JSON API's turns (its key's bucket, its session's): 429
    ``rate_limited`` with ``retry_after``, and the conversation goes on."""
    limiter = getattr(websocket.app.state, "limiter", None)
    if isinstance(limiter, Limiter):
        client = websocket.client.host if websocket.client else "-"
        wait = await limiter.take_turn(talk.key, client, talk.session_id)
        if wait > 0:
            raise refused(wait)


def _paragraphs(text: str) -> list[str]:
    """The reply's parts: its paragraphs (a list stays with the line that introduces it)."""
    return [part.strip() for part in re.split(r"\n\s*\n", text) if part.strip()]


async def _receive(websocket: WebSocket, service: Service) -> dict[str, Any]:
    """The next message as a JSON object; ``ApiError`` for one that is not, ``WebSocketDisconnect``
    when the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise ApiError(422, "invalid_request", "send messages as text frames of JSON, not binary ones")
    if len(text.encode()) > service.settings.max_body:
        raise ApiError(413, "body_too_large", f"the message is over {service.settings.max_body} bytes")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ApiError(422, "invalid_request", "the message is not JSON that can be read",
                       hint='send a JSON object such as {"type": "turn", "text": "..."}') from exc
    if not isinstance(value, dict):
        raise ApiError(422, "invalid_request", "a message is a JSON object with a 'type'")
    return value


def _fields(message: dict[str, Any], **types: Any) -> dict[str, Any]:
    """The fields of ``types`` present in ``message`` (others are ignored), each of its type."""
    for name, kind in types.items():
        value = message.get(name)
        if value is not None and (not isinstance(value, kind) or (kind is not bool and isinstance(value, bool))):
            raise _Invalid(name, f"'{name}' has the wrong type")
    return {name: message[name] for name in types if message.get(name) is not None}


class _Invalid(ApiError):
    """422 ``invalid_request`` naming the field, as the HTTP routes' ``details`` do."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(422, "invalid_request", "the message is not valid")
        self.details = [{"loc": [field], "message": message}]


async def _error(websocket: WebSocket, service: Service, exc: ApiError, tag: dict[str, Any] | None = None) -> None:
    service.metrics.error(exc.code)
    message = exc.detail if isinstance(exc.detail, str) else exc.code
    body = error_body(exc.code, message, getattr(exc, "details", None), exc.hint)
    wait = (exc.headers or {}).get("Retry-After")
    await _send(websocket, {"type": "error", **body, **({"retry_after": int(wait)} if wait else {}), **(tag or {})})


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    """JSON in UTF-8 as the HTTP routes write it (Chinese readable, odd values as text)."""
    await websocket.send_text(json.dumps(message, ensure_ascii=False, allow_nan=False, default=str))
