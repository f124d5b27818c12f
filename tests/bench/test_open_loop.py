"""bench/open_loop.py offers turns on its own clock, and a session refused with 503 says the same
thing again; against a small HTTP server in this process that records what it gets."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from open_loop import Outcome, arrivals, open_loop  # noqa: E402
from serve_scripts import utterance  # noqa: E402


def test_arrivals_are_poisson_spaced_at_the_rate() -> None:
    times = list(arrivals(1000.0, 20.0, random.Random(3)))
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert 19_000 < len(times) < 21_000 and all(0 < t < 20 for t in times)
    mean = sum(gaps) / len(gaps)
    assert 0.00095 < mean < 0.00105
    assert abs(sum((g - mean) ** 2 for g in gaps) / len(gaps) - mean ** 2) < 0.1 * mean ** 2   # exponential: var = mean²


class Recorder:
    """Answers every second request of a session with 503, the others with a turn reply."""

    def __init__(self) -> None:
        self.seen: dict[str, list[str]] = {}

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while not reader.at_eof():
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.CancelledError):     # the client left; the test ended
                break
            lines = head.decode().split("\r\n")
            length = next(int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length"))
            text = json.loads(await reader.readexactly(length))["text"]
            said = self.seen.setdefault(lines[0].split()[1], [])
            said.append(text)
            status, body = (b"503 Service Unavailable", b"{}") if len(said) % 2 == 0 else (b"200 OK", b'{"latency_ms": 1.0}')
            writer.write(b"HTTP/1.1 %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                         % (status, len(body), body))
        writer.close()


def test_turns_follow_the_clock_and_a_refused_turn_is_said_again() -> None:
    recorder = Recorder()

    async def run() -> Outcome:
        server = await asyncio.start_server(recorder.serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            return await open_loop("127.0.0.1", port, "s", 400.0, 0.5, sessions=10, think_s=0.05, timeout_s=5.0)

    outcome = asyncio.run(run())
    assert outcome.offered == len(list(arrivals(400.0, 0.5, random.Random(7))))         # the same clock, seed 7
    assert outcome.statuses[200] + outcome.statuses[503] == outcome.offered and outcome.no_answer == 0
    assert len(outcome.latencies) == outcome.statuses[200] == sum(outcome.answered.values())
    assert outcome.waited > 0                      # 10 sessions thinking 50 ms cannot say 400 turns/s
    for path, said in recorder.seen.items():
        session = int(path.split("/")[3][1:])
        expected = [utterance(session, (k + 1) // 2) for k in range(len(said))]   # refused (503) lines twice
        assert said == expected, path
