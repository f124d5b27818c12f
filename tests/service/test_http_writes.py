"""A response's writes leave in one send (service/http_writes.py): what one pass of the event loop
wrote goes out together at its end, a close sends what is held first, and the server runs on it."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest

from dialogkit.service import server
from dialogkit.service.http_writes import BatchedWrites, HttpToolsBatched
from tests.service.conftest import SUPPORT


class Recorded:
    """A transport that records each write it is asked for."""

    def __init__(self) -> None:
        self.sends: list[bytes] = []
        self.closed = False
        self.eof = False

    def write(self, data: bytes) -> None:
        self.sends.append(data)

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 8000) if name == "sockname" else default


def test_the_writes_of_one_pass_leave_in_one_send() -> None:
    async def main() -> Recorded:
        raw = Recorded()
        batched = BatchedWrites(raw)  # type: ignore[arg-type]
        batched.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        batched.write(b"{}")
        assert raw.sends == [] and batched.get_write_buffer_size() == 40
        await asyncio.sleep(0)
        batched.write(b"next")
        await asyncio.sleep(0)
        return raw

    assert asyncio.run(main()).sends == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", b"next"]


def test_close_and_eof_send_what_is_held_first() -> None:
    async def main() -> tuple[Recorded, Recorded]:
        closing, ending = Recorded(), Recorded()
        for raw in (closing, ending):
            BatchedWrites(raw).write(b"bye")  # type: ignore[arg-type]
        BatchedWrites(closing).close()  # type: ignore[arg-type]
        batched = BatchedWrites(ending)  # type: ignore[arg-type]
        batched.write(b"last")
        batched.write_eof()
        await asyncio.sleep(0)
        return closing, ending

    closing, ending = asyncio.run(main())
    assert closing.closed and ending.eof and ending.sends[0] == b"last"


def test_nothing_is_written_to_a_transport_already_closing() -> None:
    async def main() -> Recorded:
        raw = Recorded()
        batched = BatchedWrites(raw)  # type: ignore[arg-type]
        batched.write(b"late")
        raw.closed = True
        await asyncio.sleep(0)
        return raw

    assert asyncio.run(main()).sends == []


def test_anything_else_is_the_transport_s_own() -> None:
    async def main() -> Any:
        return BatchedWrites(Recorded()).get_extra_info("sockname")  # type: ignore[arg-type]

    assert asyncio.run(main()) == ("127.0.0.1", 8000)


def test_dialogkit_serve_runs_on_the_batched_protocol() -> None:
    assert server._http_protocol() is HttpToolsBatched


@pytest.mark.parametrize("text", ["我上周买的手机屏幕碎了", "my phone arrived broken"])
def test_a_turn_over_a_real_socket_reads_back_whole(start_server: Any, text: str) -> None:
    """``dialogkit serve`` answers over the batched protocol: one keep-alive connection, two turns."""
    running = start_server([str(SUPPORT), "--store", "memory://"])
    host, port = running.url.removeprefix("http://").split(":")
    body = json.dumps({"text": text}).encode()
    request = (b"POST /v1/sessions/w1/turns HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
               b"content-length: %d\r\n\r\n%s" % (len(body), body))
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        for _ in range(2):
            sock.sendall(request)
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += sock.recv(65536)
            head, _, rest = answer.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            while len(rest) < length:
                rest += sock.recv(65536)
            assert head.startswith(b"HTTP/1.1 200") and json.loads(rest)["session_id"] == "w1"
