"""A web service on 127.0.0.1 for HTTP action tests: each request gets the next scripted step.

A step is ``(status, body)`` (a dict or list is sent as JSON, bytes as they are), or a callable
run before the next step answers (to sleep past the client's timeout, or to kill the bot's
process while its request is in flight). The last step repeats. Every request is recorded with
its headers and JSON body, so a test can count attempts and compare idempotency keys.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple[int, Any] | Callable[[], None]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class Backend:
    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps) or [(200, {})]
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                backend._serve(self)

            do_PUT = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/tickets"

    @property
    def keys(self) -> list[str | None]:
        return [r.headers.get("idempotency-key") for r in self.requests]

    def __enter__(self) -> Backend:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _next_steps(self, request: Request) -> list[Step]:
        """The steps up to and including the next answer, taken off the script under the lock."""
        with self._lock:
            self.requests.append(request)
            taken: list[Step] = []
            while True:
                step = self.steps[0] if len(self.steps) == 1 else self.steps.pop(0)
                taken.append(step)
                if not callable(step):
                    return taken

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        request = Request(handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()},
                          json.loads(raw) if raw else None)
        *before, answer = self._next_steps(request)
        for step in before:
            assert callable(step)
            step()
        assert not callable(answer)
        status, body = answer
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):   # the client gave up (a timeout): fine
            pass
