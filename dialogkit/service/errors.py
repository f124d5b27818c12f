"""Every error the HTTP API answers: JSON with a stable code, never a traceback (docs/serving.md, "Errors").

Clients branch on ``code``; ``message`` is for people and may change. Anything unexpected is
logged here with its traceback and answered as ``internal_error`` with nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import Send

from dialogkit.errors import StoreError
from dialogkit.logging import get_logger

__all__ = ["ApiError", "error_body", "error_response", "install_error_handlers", "send_error"]

log = get_logger("dialogkit.service")

_CODES = {401: "unauthorized", 403: "forbidden", 404: "not_found",
          405: "method_not_allowed", 413: "body_too_large", 422: "invalid_request", 429: "rate_limited",
          500: "internal_error", 503: "store_unavailable"}


class ApiError(HTTPException):
    """An error answered as ``{"error": {"code", "message"}}`` with ``status``.

    An ``HTTPException``, so FastAPI passes it through untouched even when it is raised while
    the request body is being read (the body limit does that).
    """

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None, *,
                 hint: str | None = None) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code
        self.hint = hint


def error_body(code: str, message: str, details: list[dict[str, Any]] | None = None,
               hint: str | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message"}}``, with ``details`` (what was invalid) and ``hint`` (what
    to do about it) when there are."""
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    if hint is not None:
        error["hint"] = hint
    return {"error": error}


async def send_error(send: Send, status: int, code: str, message: str,
                     headers: list[tuple[bytes, bytes]] | None = None, *, hint: str | None = None) -> None:
    """Answer an error from plain ASGI code (the guard, the rate limit), before any route runs."""
    body = json.dumps(error_body(code, message, hint=hint)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


def install_error_handlers(app: FastAPI, count: Callable[[str], None]) -> None:
    """Answer every failure as JSON; ``count(code)`` is told the code of each error answered."""

    async def handle(request: Request, exc: Exception) -> Response:
        if isinstance(exc, RequestValidationError):
            details = [{"loc": [str(p) for p in e.get("loc", ())], "message": str(e.get("msg", ""))}
                       for e in exc.errors()]
            return _answer(count, 422, "invalid_request", "the request is not valid", details)
        return error_response(exc, request.url.path, count)

    for kind in (HTTPException, RequestValidationError, StoreError, Exception):
        app.add_exception_handler(kind, handle)


def error_response(exc: Exception, path: str, count: Callable[[str], None]) -> Response:
    """The JSON answer to ``exc`` raised while serving ``path``: what the app's handlers answer, and
    what the turn route's fast path (``turn_route``) answers without going through them."""
    if isinstance(exc, HTTPException):
        if exc.status_code == 400:      # FastAPI's "error parsing the body": bytes json cannot read
            return _answer(count, 422, "invalid_request", "the request is not valid",
                           [{"loc": ["body"], "message": "the body is not JSON that can be read (UTF-8, "
                                                         "nested less deeply, numbers of fewer digits)"}])
        code = getattr(exc, "code", None) or _CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return _answer(count, exc.status_code, code, message, headers=exc.headers, hint=getattr(exc, "hint", None))
    if isinstance(exc, StoreError):
        log.error("store_unavailable", path=path, error=str(exc))
        return _answer(count, 503, "store_unavailable", "the session store is unavailable; nothing was applied")
    log.error("internal_error", path=path, exc_info=exc)
    return _answer(count, 500, "internal_error", "the server failed to answer; the error is in its log")


def _answer(count: Callable[[str], None], status: int, code: str, message: str,
            details: list[dict[str, Any]] | None = None, headers: Mapping[str, str] | None = None,
            hint: str | None = None) -> Response:
    count(code)
    return JSONResponse(error_body(code, message, details, hint), status_code=status, headers=headers)
