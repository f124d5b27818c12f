"""``POST /v1/sessions/{session_id}/turns``: the turn, and its fast path past FastAPI.

A turn is what a server mostly does, and a rule-based one costs about a millisecond of CPU, so
FastAPI's per-request machinery (routing through every route, the dependency solver, the request
model's validation, the exception middleware's wrappers) was a large share of it. ``TurnRoute``
answers the turn route itself when its body is plain: JSON whose ``text`` is a string and whose
``user_id``, if any, a string or null. Any other body is handed on, untouched, to the FastAPI route,
which answers it exactly as before (its 422 names the field), so the API's contract and error
bodies do not depend on which of the two answered. Both run the turn through ``run_turn``.

It sits behind the guard and the rate limits (keys, scopes, the body limit, load shedding and 429
happen first) and in front of FastAPI's exception handlers, whose answers it gives itself
(``errors.error_response``) for the errors a turn raises.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dialogkit.errors import StoreError
from dialogkit.service.access import check_user_naming
from dialogkit.service.errors import ApiError, error_response
from dialogkit.service.ids import check_id
from dialogkit.service.payloads import reply_json
from dialogkit.service.responses import Json
from dialogkit.service.state import Service

__all__ = ["TurnRoute", "run_turn"]

_PREFIX = "/v1/sessions/"
_SUFFIX = "/turns"
_JSON_TYPES = (b"application/json", b"application/json; charset=utf-8")


async def run_turn(service: Service, scope: Scope, session_id: str, text: str, user_id: str | None) -> Json:
    """One turn of ``session_id`` as the API answers it (the route and the fast path alike)."""
    check_id(session_id)
    if user_id is not None:
        check_id(user_id, "user id")
        check_user_naming(HTTPConnection(scope))
    reply, seconds = await service.turn(session_id, text, user_id)
    return Json(reply_json(reply, service.hidden, seconds))


class TurnRoute:
    """Answers the turn route for a plain body; hands every other request to ``app``."""

    def __init__(self, app: ASGIApp, *, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = _turn_session(scope)
        if session_id is None:
            await self.app(scope, receive, send)
            return
        try:
            body = await _read_body(receive)
        except ApiError as exc:                       # the guard's body limit, past Content-Length
            await error_response(exc, scope["path"], self.service.metrics.error)(scope, receive, send)
            return
        if body is None:                              # the client left before its body arrived
            return
        fields = _plain_turn(body)
        if fields is None:
            await self.app(scope, _replaying(body, receive), send)
            return
        response: Response
        try:
            response = await run_turn(self.service, scope, session_id, *fields)
        except (ApiError, StoreError) as exc:         # anything else: the server's 500, as for any route
            response = error_response(exc, scope["path"], self.service.metrics.error)
        await response(scope, receive, send)


def _turn_session(scope: Scope) -> str | None:
    """The session id of a turn request with a JSON body (as the route's ``{session_id}`` reads
    it: one path segment), else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    path: str = scope["path"]
    if not path.startswith(_PREFIX) or not path.endswith(_SUFFIX):
        return None
    session_id = path[len(_PREFIX):-len(_SUFFIX)]
    if not session_id or "/" in session_id:
        return None
    for name, value in scope["headers"]:
        if name == b"content-type":
            return session_id if value.lower() in _JSON_TYPES else None
    return None


async def _read_body(receive: Receive) -> bytes | None:
    """The whole body; None when the client disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks) if len(chunks) != 1 else chunks[0]


def _plain_turn(body: bytes) -> tuple[str, str | None] | None:
    """``(text, user_id)`` of a body the request model would accept as it is; None for any other
    (the FastAPI route then answers it, a 422 naming what is wrong included)."""
    try:
        data: Any = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if type(data) is not dict:
        return None
    text, user_id = data.get("text"), data.get("user_id")
    if type(text) is not str or not (user_id is None or type(user_id) is str):
        return None
    return text, user_id


def _replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the app the body is handed to: the body read already, then the client's own."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
