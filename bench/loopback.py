"""The load generator's HTTP client: HTTP/1.1 POSTs with keep-alive over asyncio streams, nothing else.

The client shares the machine's two cores with the server it measures, so every millisecond it
spends is one the server does not get. httpx's transport cost about 0.34 ms of CPU a turn
(bench/RESULTS.md, before this client); writing the request line by hand and reading the answer
by its Content-Length costs a fraction of that. It speaks only to ``dialogkit serve`` (uvicorn
answers every JSON response with a Content-Length), so it needs no chunked decoding, redirects,
cookies or TLS.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

__all__ = ["Answer", "Connection", "Pool"]


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Connection:
    """One keep-alive connection; one request at a time."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def usable(self) -> bool:
        """Open and not closed by the server while idle (uvicorn closes one idle for 5 s)."""
        return self._writer is not None and self._reader is not None and not self._reader.at_eof() \
            and not self._writer.is_closing()

    async def post(self, path: str, body: bytes, timeout_s: float) -> Answer:
        """POST ``body`` as JSON; once more on a fresh connection if a reused one turns out closed
        before any answer came (the server closed it while idle: it never read the request). Any
        exception leaves the connection in no known state: close it."""
        async with asyncio.timeout(timeout_s):
            fresh = not self.usable
            if fresh:
                await self._open()
            try:
                return await self._exchange(path, body)
            except (ConnectionError, asyncio.IncompleteReadError) as error:
                self.close()
                if fresh or (isinstance(error, asyncio.IncompleteReadError) and error.partial):
                    raise
            await self._open()
            return await self._exchange(path, body)

    async def _open(self) -> None:
        self.close()
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def _exchange(self, path: str, body: bytes) -> Answer:
        assert self._reader is not None and self._writer is not None
        self._writer.write(b"POST %s HTTP/1.1\r\nhost: %s:%d\r\ncontent-type: application/json\r\n"
                           b"content-length: %d\r\n\r\n%s" % (path.encode(), self.host.encode(), self.port,
                                                             len(body), body))
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            if name:
                headers[name.strip().lower()] = value.strip()
        data = await self._reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Answer(int(status_line.split(" ", 2)[1]), headers, data)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


class Pool:
    """Connections reused last-in first-out, as many as there are requests in flight at once.

    Like a crowd of browsers, the pool never makes a request wait for a connection: the server, not
    the client, decides how many turns it takes at once. LIFO keeps the busy few warm, and the
    ones left idle are the ones the server closes."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._idle: list[Connection] = []
        self.opened = 0

    def take(self) -> Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.usable:
                return connection
            connection.close()
        self.opened += 1
        return Connection(self.host, self.port)

    def give_back(self, connection: Connection) -> None:
        if connection.usable:
            self._idle.append(connection)

    def close(self) -> None:
        for connection in self._idle:
            connection.close()
        self._idle.clear()
