"""Open-loop load, as a deployment sees it: turns arrive at a fixed rate whatever the server does.

Arrival times are drawn first, Poisson-spaced at ``rate`` (exponential gaps), and never wait for
an answer: a slow server does not slow the arrivals down, so its queue shows in the latency (a
closed loop, where each user waits for its answer, hides it: the load falls as the server slows).
Each arrival is a turn of one of ``sessions`` sessions; a session speaks again only after its last
answer plus ``think_s``, like a person reading the reply. An arrival that finds every session busy
waits for the first one free, and its latency still counts from its arrival time. Latency is
measured from the arrival time, not from when the client got round to sending, so the client's own
lag counts too (no coordinated omission).

A session whose turn was refused (503, or no answer) says the same thing again next time: the turn
was not applied, and its conversation goes on from where it was.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from loopback import Pool
from serve_scripts import utterance

__all__ = ["Outcome", "arrivals", "open_loop"]


@dataclass
class Outcome:
    """What one offered rate got."""

    rate: float
    offered: int = 0
    latencies: list[float] = field(default_factory=list)       # seconds, turns answered 200
    server_ms: list[float] = field(default_factory=list)       # the server's own latency of those
    statuses: Counter[int] = field(default_factory=Counter)
    no_answer: int = 0                                          # timeout or connection error
    waited: int = 0                                             # arrivals that found every session busy
    seconds: float = 0.0                                        # first arrival to last answer
    answered: dict[int, int] = field(default_factory=dict)     # session -> turns answered 200
    connections: int = 0

    @property
    def achieved(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def arrivals(rate: float, seconds: float, rng: random.Random) -> Iterator[float]:
    """Arrival times from 0, Poisson-spaced at ``rate`` a second, for ``seconds``."""
    at = rng.expovariate(rate)
    while at < seconds:
        yield at
        at += rng.expovariate(rate)


@dataclass
class _Sessions:
    """Which sessions may speak now, and the arrivals waiting for one."""

    ready: deque[int]
    backlog: deque[float] = field(default_factory=deque)
    said: dict[int, int] = field(default_factory=dict)         # session -> its next line


async def open_loop(host: str, port: int, prefix: str, rate: float, seconds: float, *, sessions: int,
                    think_s: float, timeout_s: float, seed: int = 7) -> Outcome:
    """Offer ``rate`` turns a second for ``seconds`` from ``sessions`` sessions, then wait for the
    last answer."""
    loop = asyncio.get_running_loop()
    outcome = Outcome(rate)
    pool = Pool(host, port)
    state = _Sessions(deque(range(sessions)))
    running: set[asyncio.Task[None]] = set()
    start = loop.time()
    last = start

    def launch(session: int, due: float) -> None:
        task = loop.create_task(turn(session, due))
        running.add(task)
        task.add_done_callback(running.discard)

    def free(session: int) -> None:
        if state.backlog:
            launch(session, state.backlog.popleft())
        else:
            state.ready.append(session)

    async def turn(session: int, due: float) -> None:
        nonlocal last
        k = state.said.get(session, 0)
        body = json.dumps({"text": utterance(session, k)}, ensure_ascii=False).encode()
        connection = pool.take()
        try:
            answer = await connection.post(f"/v1/sessions/{prefix}{session}/turns", body, timeout_s)
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            connection.close()
            outcome.no_answer += 1
        else:
            pool.give_back(connection)
            last = max(last, loop.time())
            outcome.statuses[answer.status] += 1
            if answer.status == 200:
                outcome.latencies.append(loop.time() - due)
                outcome.server_ms.append(json.loads(answer.body)["latency_ms"])
                outcome.answered[session] = outcome.answered.get(session, 0) + 1
                state.said[session] = k + 1
        loop.call_later(think_s, free, session)

    for at in arrivals(rate, seconds, random.Random(seed)):
        due = start + at
        if due > loop.time():
            await asyncio.sleep(due - loop.time())
        outcome.offered += 1
        if state.ready:
            launch(state.ready.popleft(), due)
        else:
            state.backlog.append(due)
            outcome.waited += 1
    while running or state.backlog:
        await asyncio.sleep(0.01)
    pool.close()
    outcome.seconds = last - start
    outcome.connections = pool.opened
    return outcome
