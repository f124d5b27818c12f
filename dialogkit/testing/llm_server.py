"""A scripted OpenAI-compatible server for testing LLM code paths without a network.

It speaks just enough of ``POST /v1/chat/completions`` for the real ``openai`` SDK to talk to
it, and answers from a script, so tests exercise the true client stack (HTTP, retries,
timeouts, parsing) instead of a monkeypatched SDK::

    from openai import OpenAI
    from dialogkit.testing.llm_server import Reply, ScriptedLLMServer, Status

    with ScriptedLLMServer([Status(429, retry_after=0), Reply("hello")]) as server:
        client = OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        ...                       # first call gets a 429, the next one "hello"
        assert server.requests[-1]["messages"][0]["role"] == "system"

A script is a list consumed in order (a plain ``str`` means ``Reply(str)``, a ``dict`` means a
``Reply`` whose content is that dict as JSON), or a callable ``script(request_body) -> item``.
When a list runs out the server answers 500 with ``script exhausted`` so a test that makes an
unexpected call fails loudly.

Real servers do not all take every way of asking for JSON. ``refuse`` makes this one refuse
structured-output modes the way they do, without consuming the script: a mapping from mode
(``json_schema``, ``json_object``, ``tools``; see ``request_mode``) to the ``Status`` it answers.
``LLAMA_CPP_PYTHON`` is llama.cpp's Python server (a 500 naming ``response_format`` for a JSON
Schema), ``PYDANTIC_422`` a server validating the request with pydantic (FastAPI's 422),
``TEXT_ONLY`` a server that takes plain requests only (400 for any structured mode)::

    with ScriptedLLMServer(script, refuse=LLAMA_CPP_PYTHON) as server: ...

A model is not right every time. ``Unreliable`` wraps a script so that a share of the answers is
wrong, drawn from a seeded generator: the same seed gives the same answers in the same order, so
a k-of-n test of an LLM path has one outcome, run after run::

    with ScriptedLLMServer(Unreliable(answer, wrong=Garbage(), rate=0.4, seed=3)) as server: ...
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias

__all__ = [
    "LLAMA_CPP_PYTHON",
    "PYDANTIC_422",
    "TEXT_ONLY",
    "Delay",
    "Drop",
    "Garbage",
    "Reply",
    "ScriptedLLMServer",
    "Status",
    "Unreliable",
    "request_mode",
]


@dataclass
class Reply:
    """A successful completion: text ``content``, or a ``tool_call`` ({"name", "arguments"}), or
    several ``tool_calls``."""

    content: str | None = None
    usage: dict[str, int] | None = None
    tool_call: dict[str, Any] | None = None
    finish_reason: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Delay:
    """Wait ``seconds`` before answering with ``then`` (the server side of a timeout)."""

    seconds: float
    then: ScriptItem = field(default_factory=lambda: Reply(""))


@dataclass
class Status:
    """An HTTP error status (429, 500, 400 ...), optionally with a ``Retry-After`` header."""

    code: int
    retry_after: float | None = None
    message: str = ""


@dataclass
class Garbage:
    """A 200 answer whose body is ``text`` verbatim (not the JSON the SDK expects)."""

    text: str = "not json"


@dataclass
class Drop:
    """Close the connection without answering."""


ScriptItem: TypeAlias = Reply | Delay | Status | Garbage | Drop | str | dict[str, Any]
Script: TypeAlias = Sequence[ScriptItem] | Callable[[dict[str, Any]], ScriptItem]


class Unreliable:
    """A script whose answers are replaced by ``wrong`` at ``rate``, at random but reproducibly.

    Each request draws once from ``random.Random(seed)``, in arrival order: below ``rate`` it gets
    ``wrong``, otherwise the next answer of ``script`` (a list is consumed as usual, a callable is
    asked). ``wrong`` may be a callable of the request too; ``draws`` records each draw's outcome
    (True: the right answer) so a test can show why a run failed.
    """

    def __init__(self, script: Script, *, wrong: ScriptItem | Callable[[dict[str, Any]], ScriptItem],
                 rate: float, seed: int) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate is a share from 0 to 1, not {rate}")
        self.script, self.wrong, self.rate = script, wrong, rate
        self._items = list(script) if not callable(script) else []
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.draws: list[bool] = []

    def __call__(self, body: dict[str, Any]) -> ScriptItem:
        with self._lock:
            right = self._random.random() >= self.rate
            self.draws.append(right)
            if not right:
                return self.wrong(body) if callable(self.wrong) else self.wrong
            if callable(self.script):
                return self.script(body)
            return self._items.pop(0) if self._items else Status(500, message="script exhausted")


def request_mode(body: dict[str, Any]) -> str:
    """How a request asks for JSON: ``json_schema``, ``json_object`` (``response_format`` types),
    ``tools``, or ``text`` (neither)."""
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") not in (None, "text"):
        return str(response_format["type"])
    return "tools" if body.get("tools") else "text"


LLAMA_CPP_PYTHON: dict[str, Status] = {"json_schema": Status(500, message=(
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"))}
"""llama-cpp-python's server: a JSON Schema ``response_format`` is a 500 whose body names it."""

PYDANTIC_422: dict[str, Status] = {"json_schema": Status(422, message=(
    "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\"}]"))}
"""A server validating requests with pydantic (FastAPI): an unknown mode is a 422."""

TEXT_ONLY: dict[str, Status] = {
    mode: Status(400, message=f"unsupported parameter for this model: {key}")
    for mode, key in (("json_schema", "response_format"), ("json_object", "response_format"), ("tools", "tools"))
}
"""A server that takes no structured output at all: 400 for every structured mode."""


def _tool_call(number: int, call: dict[str, Any]) -> dict[str, Any]:
    arguments = call.get("arguments", {})
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{number}", "type": "function", "function": {"name": call["name"], "arguments": text}}


def _approx_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class ScriptedLLMServer:
    """A ``ThreadingHTTPServer`` on 127.0.0.1 (random port) answering from a script.

    ``requests`` holds every request body (parsed JSON) in arrival order and ``headers`` the
    matching request headers; ``base_url`` ends in ``/v1`` like the SDK expects.
    """

    def __init__(self, script: Script, *, model: str = "scripted-model",
                 refuse: Mapping[str, Status] | None = None) -> None:
        self._script = script
        self.refuse = dict(refuse or {})
        self._items = list(script) if not callable(script) else []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedLLMServer:
        # A short poll interval keeps ``close`` (and so every test using the server) quick.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes any Delay still sleeping
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --------------------------------------------------------------------------- internals

    def _next(self, body: dict[str, Any]) -> ScriptItem | None:
        refused = self.refuse.get(request_mode(body))
        if refused is not None:
            return refused
        if callable(self._script):
            return self._script(body)
        with self._lock:
            return self._items.pop(0) if self._items else None

    def _completion(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        finish = reply.finish_reason or "stop"
        calls = ([reply.tool_call] if reply.tool_call is not None else []) + list(reply.tool_calls)
        if calls:
            message["tool_calls"] = [_tool_call(number, call) for number, call in enumerate(calls, 1)]
            finish = reply.finish_reason or "tool_calls"
        prompt_text = "".join(str(m.get("content") or "") for m in body.get("messages", []))
        usage = reply.usage or {
            "prompt_tokens": _approx_tokens(prompt_text),
            "completion_tokens": _approx_tokens(reply.content or ""),
        }
        usage = {**usage, "total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class of this server: the stdlib builds one handler per request."""
        return type("Handler", (_Handler,), {"scripted": self})


class _Handler(BaseHTTPRequestHandler):
    """Answers ``POST .../chat/completions`` with the next item of its server's script."""

    protocol_version = "HTTP/1.1"
    scripted: ScriptedLLMServer      # set on the per-server subclass made by ``_handler_class``

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the stdlib's stderr access log."""

    def do_POST(self) -> None:
        server = self.scripted
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        with server._lock:
            server.requests.append(body)
            server.headers.append({k.lower(): v for k, v in self.headers.items()})
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        item = server._next(body)
        if item is None:
            self._send(500, {"error": {"message": "script exhausted", "type": "server_error"}})
            return
        self._answer(item, body)

    def _answer(self, item: ScriptItem, body: dict[str, Any]) -> None:
        if isinstance(item, str):
            item = Reply(item)
        elif isinstance(item, dict):
            item = Reply(json.dumps(item, ensure_ascii=False))
        if isinstance(item, Delay):
            if self.scripted._closing.wait(item.seconds):
                return
            self._answer(item.then, body)
        elif isinstance(item, Reply):
            self._send(200, self.scripted._completion(item, body))
        elif isinstance(item, Status):
            self._send_status(item)
        elif isinstance(item, Garbage):
            self._send_raw(200, item.text.encode("utf-8"), "application/json")
        elif isinstance(item, Drop):
            self.close_connection = True
            self.connection.close()
        else:
            raise TypeError(f"unknown script item {item!r}")

    def _send_status(self, status: Status) -> None:
        headers = {} if status.retry_after is None else {"Retry-After": f"{status.retry_after:g}"}
        message = status.message or f"scripted status {status.code}"
        self._send(status.code, {"error": {"message": message, "type": "scripted", "code": status.code}}, headers)

    def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_raw(code, json.dumps(payload).encode("utf-8"), "application/json", headers)

    def _send_raw(self, code: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing left to tell it
