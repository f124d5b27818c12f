"""uvicorn's HTTP protocol (httptools) with a response's writes sent together.

uvicorn writes a response's status line and headers as soon as the app sends its start, then
the body in a second write: two sends a response, and on loopback each send runs the receiving
side's network stack and wakes the client, twice. A turn's answer is one start and one body sent
in the same pass of the event loop, so here the connection's writes are held until the end of
that pass and leave in one send: about a tenth of a worker's CPU a turn under load, and half the
client's wake-ups. Nothing is held longer than the pass that wrote it, so streaming and WebSocket
frames go out as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["BatchedWrites", "HttpToolsBatched"]


class BatchedWrites:
    """A transport whose writes made during one pass of the loop leave in one write; everything
    else is the transport's own."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held: list[bytes] = []
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self._flush)
        self._held.append(bytes(data))

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._held.clear()
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(chunk) for chunk in self._held)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def _flush(self) -> None:
        held, self._held = self._held, []
        if held and not self._transport.is_closing():
            self._transport.write(held[0] if len(held) == 1 else b"".join(held))


class HttpToolsBatched(HttpToolsProtocol):
    """uvicorn's httptools protocol over ``BatchedWrites``."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(BatchedWrites(transport))  # type: ignore[arg-type]
