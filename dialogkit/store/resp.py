"""One pipelined connection to Redis for a turn's two scripts, on an event loop.

A turn costs Redis two round trips (``redis_scripts``); through ``redis.asyncio`` each one also took
a connection from the pool and gave it back, went through the client's retry and timeout wrappers
and its stream reader, and was written with a send of its own: about a sixth of a server's CPU
a turn. Here every turn of a worker shares one connection: a command is encoded and queued, the
commands queued during one pass of the loop leave in one write, and the replies, which Redis sends
in the order it got the commands, resolve the callers' futures in that order. Under load that also
means fewer sends and fewer wake-ups on both sides.

Only the two scripts go this way (``EVALSHA``, ``EVAL`` when Redis does not know the script yet);
blocking commands (a waiter's ``BLPOP``) and everything else keep the ``redis`` client, and so
do URLs this connection does not speak (TLS, a Unix socket, options in the query): ``lean_target``
says which. It speaks RESP2. A reply that does not come within ``timeout_s`` closes the connection,
failing every command on it (a pipelined connection cannot skip one reply); the next command
connects again.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote, urlsplit

__all__ = ["LeanError", "LeanScript", "Pipe", "Target", "lean_target"]

_WATCH_S = 1.0          # how often a connection with commands in flight checks the oldest one's age


class LeanError(Exception):
    """Redis answered with an error, or the connection failed: the store reports it as a ``StoreError``."""


class _Incomplete(Exception):
    """The input holds part of a reply only: wait for more."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the connection goes and how it introduces itself."""

    host: str
    port: int
    db: int
    username: str | None
    password: str | None


def lean_target(url: str) -> Target | None:
    """The ``Target`` of a plain ``redis://host:port/db`` URL (with a user and password or not);
    None for any other (TLS, a Unix socket, query options), which the ``redis`` client serves."""
    parts = urlsplit(url)
    if parts.scheme != "redis" or parts.query or parts.fragment:
        return None
    path = parts.path.strip("/")
    try:
        port = parts.port or 6379
    except ValueError:
        return None
    if path and not path.isdecimal():
        return None
    return Target(parts.hostname or "localhost", port, int(path or 0),
                  unquote(parts.username) if parts.username else None,
                  unquote(parts.password) if parts.password is not None else None)


def encode_command(args: Sequence[str | bytes]) -> bytes:
    """A command as RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else arg.encode()
        out += (b"$%d\r\n" % len(data), data, b"\r\n")
    return b"".join(out)


def parse_reply(data: bytes, at: int) -> tuple[Any, int]:
    """One reply from ``data[at:]`` and where the next begins; bulk strings as text (as the ``redis``
    client's ``decode_responses``), an error reply as a ``LeanError`` value. ``_Incomplete`` if
    ``data`` ends first."""
    end = data.find(b"\r\n", at)
    if end < 0:
        raise _Incomplete
    kind, line = data[at:at + 1], data[at + 1:end]
    at = end + 2
    if kind == b"$":
        size = int(line)
        if size < 0:
            return None, at
        if len(data) < at + size + 2:
            raise _Incomplete
        return _text(data[at:at + size]), at + size + 2
    if kind == b"*":
        count = int(line)
        if count < 0:
            return None, at
        items = []
        for _ in range(count):
            item, at = parse_reply(data, at)
            items.append(item)
        return items, at
    if kind == b":":
        return int(line), at
    if kind == b"+":
        return _text(line), at
    if kind == b"-":
        return LeanError(_text(line)), at
    raise LeanError(f"unexpected reply from Redis: {data[at - 2 - len(line) - 1:at]!r}")


def _text(data: bytes) -> str | LeanError:
    try:
        return data.decode()
    except UnicodeDecodeError:
        return LeanError("a reply is not UTF-8 text")


class Pipe(asyncio.Protocol):
    """One connection: commands queued and written once per pass of the loop, replies in order."""

    def __init__(self, timeout_s: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._timeout_s = timeout_s
        self._waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._out: list[bytes] = []
        self._input = b""
        self._transport: asyncio.Transport | None = None
        self._watch: asyncio.TimerHandle | None = None
        self.closed = False

    @classmethod
    async def open(cls, target: Target, timeout_s: float) -> Pipe:
        loop = asyncio.get_running_loop()
        try:
            _, pipe = await asyncio.wait_for(
                loop.create_connection(lambda: cls(timeout_s), target.host, target.port), timeout_s)
        except (OSError, TimeoutError) as exc:
            raise LeanError(f"cannot connect to {target.host}:{target.port}: {exc}") from exc
        hello = []
        if target.password is not None:
            hello.append(pipe.call(["AUTH", *([target.username] if target.username else []), target.password]))
        if target.db:
            hello.append(pipe.call(["SELECT", str(target.db)]))
        for answer in hello:
            if isinstance(reply := await answer, LeanError):
                pipe.close()
                raise reply
        return pipe

    def call(self, args: Sequence[str | bytes]) -> asyncio.Future[Any]:
        """Queue a command; its reply (a ``LeanError`` value for an error reply) resolves the future."""
        future: asyncio.Future[Any] = self._loop.create_future()
        if self.closed:
            future.set_exception(LeanError("the connection to Redis is closed"))
            return future
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(encode_command(args))
        self._waiting.append((future, time.monotonic() + self._timeout_s))
        if self._watch is None:
            self._watch = self._loop.call_later(_WATCH_S, self._check)
        return future

    def close(self, reason: str = "the connection to Redis was closed") -> None:
        if self._transport is not None and not self.closed:
            self._transport.abort()
        self._fail(reason)

    # ---- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)   # uvloop's is one without the base class

    def data_received(self, data: bytes) -> None:
        buffer = self._input + data if self._input else data
        at = 0
        try:
            while at < len(buffer):
                reply, at = parse_reply(buffer, at)
                if not self._waiting:
                    raise LeanError("Redis sent a reply nobody asked for")
                future, _ = self._waiting.popleft()
                if not future.done():          # a caller that gave up: its reply is skipped, in order
                    future.set_result(reply)
        except _Incomplete:
            pass
        except (LeanError, ValueError) as exc:
            self.close(f"the connection to Redis failed: {exc}")
            return
        self._input = buffer[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(f"the connection to Redis was lost{f': {exc}' if exc else ''}")

    # ---- internals

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self._transport is not None and not self.closed and out:
            self._transport.write(b"".join(out) if len(out) > 1 else out[0])

    def _check(self) -> None:
        """Close the connection when its oldest command has waited past the timeout."""
        self._watch = None
        if not self._waiting:
            return
        if self._waiting[0][1] < time.monotonic():
            self.close(f"Redis did not answer within {self._timeout_s:g} s")
            return
        self._watch = self._loop.call_later(_WATCH_S, self._check)

    def _fail(self, reason: str) -> None:
        self.closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(LeanError(reason))


class LeanScript:
    """A Lua script run over a ``Pipe``: by its SHA-1, loaded with ``EVAL`` the first time Redis lacks it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()

    async def __call__(self, pipe: Pipe, keys: Sequence[str], args: Sequence[str | bytes]) -> Any:
        tail = [str(len(keys)), *keys, *args]
        reply = await pipe.call(["EVALSHA", self.sha, *tail])
        if isinstance(reply, LeanError) and str(reply).startswith("NOSCRIPT"):
            reply = await pipe.call(["EVAL", self.source, *tail])
        if isinstance(reply, LeanError):
            raise reply
        return reply
