"""What every request passes before a route sees it: the API key and its scopes, the body limit, then
for a turn the worker's limit of turns in flight (``admission``).

Plain ASGI rather than FastAPI dependencies: a request without a key, or with a key whose scopes do
not cover the route, is refused before its body is read or parsed (so it learns nothing from a
422), and a body over the limit is refused by its ``Content-Length`` before a byte of it is read,
or as soon as a chunked one passes the limit. A turn beyond the worker's limit is refused with 503
``overloaded`` and ``Retry-After``, before its body is read.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dialogkit.service.access import remember_key, scopes_for
from dialogkit.service.admission import RETRY_AFTER_S, Admission, is_turn_route
from dialogkit.service.errors import ApiError, send_error
from dialogkit.service.keys import ApiKey, KeyRing

__all__ = ["MAX_BODY_BYTES", "PUBLIC_PATHS", "Guard"]

MAX_BODY_BYTES = 64 * 1024
"""A turn is a few hundred characters; the bot reads 4,000 at most. 64 KiB leaves room for any
message a person types and refuses a paste that could only cost memory."""

PUBLIC_PATHS = frozenset({"/", "/healthz", "/readyz", "/docs", "/docs/oauth2-redirect", "/openapi.json", "/redoc"})
"""Health checks, and pages that hold no data: the inspector's shell and the API documentation."""


class Guard:
    """Refuses requests without a known key (401), with a key outside the route's scopes (403), and
    bodies over ``max_body`` (413), and turns ``admission`` has no place for (503), as JSON errors. A
    server with no keys lets every request in; without ``admission`` every turn is admitted."""

    def __init__(self, app: ASGIApp, *, keys: KeyRing, max_body: int, count: Callable[[str], None],
                 admission: Admission | None = None) -> None:
        self.app = app
        self.keys = keys
        self.max_body = max_body
        self.count = count
        self.admission = admission if admission is not None else Admission(0)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self.keys.open and not self._public(scope["path"]) and not await self._admitted(scope, send):
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body:
            await self._refuse(send, 413, "body_too_large", f"the body is over {self.max_body} bytes")
            return
        if is_turn_route(scope["method"], scope["path"]):
            await self._turn(scope, receive, send)
            return
        await self.app(scope, self._limited(receive), send)

    async def _turn(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A turn, once the worker has a place for it (it may wait for one); 503 ``overloaded`` at once
        if it cannot."""
        if not await self.admission.enter():
            await self._refuse(send, 503, "overloaded",
                               self.admission.refusal(),
                               [(b"retry-after", str(RETRY_AFTER_S).encode())],
                               hint=f"send the turn again after {RETRY_AFTER_S} s (Retry-After)")
            return
        try:
            await self.app(scope, self._limited(receive), send)
        finally:
            self.admission.leave()

    async def _admitted(self, scope: Scope, send: Send) -> bool:
        """Whether the request's key is known and may use the route; refused (and answered) if not."""
        key = self._key(scope)
        if key is None:
            await self._refuse(send, 401, "unauthorized", "a valid 'Authorization: Bearer <key>' header is needed",
                               [(b"www-authenticate", b"Bearer")])
            return False
        needed = scopes_for(scope["method"], scope["path"])
        if not key.scopes & needed:
            names = " or ".join(repr(s) for s in sorted(needed))
            await self._refuse(send, 403, "insufficient_scope",
                               f"the key {key.name!r} may not use {scope['method']} {scope['path']}: "
                               f"that needs the {names} scope",
                               hint="use a key with that scope, or add the scope to this key in the keys file")
            return False
        remember_key(scope, key)
        return True

    @staticmethod
    def _public(path: str) -> bool:
        return path in PUBLIC_PATHS or path.startswith("/static/")

    def _key(self, scope: Scope) -> ApiKey | None:
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return self.keys.find(given.strip()) if scheme.lower() == b"bearer" else None
        return None

    def _limited(self, receive: Receive) -> Receive:
        """``receive`` that counts the body's bytes and refuses the chunk that passes the limit."""
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise ApiError(413, "body_too_large", f"the body is over {self.max_body} bytes")
            return message

        return limited

    async def _refuse(self, send: Send, status: int, code: str, message: str,
                      headers: list[tuple[bytes, bytes]] | None = None, *, hint: str | None = None) -> None:
        self.count(code)
        await send_error(send, status, code, message, headers, hint=hint)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
