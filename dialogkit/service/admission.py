"""Load shedding: how many turns one worker takes on before it answers 503 ``overloaded``.

A worker past its capacity that accepts every turn only grows a queue: each turn waits longer,
clients time out and retry, and the retries add to the queue. With a bound, the turns beyond it are
refused at once (no body read, no store touched, about the cost of an error page) with
``Retry-After``, so the turns admitted keep their latency and a client or a load balancer knows to
come back later or try another worker (docs/serving.md, "Load shedding").

A worker runs ``limit`` turns at once. A turn beyond them waits in a short queue for the next place
to free, as long as the queue drains within the latency budget at the pace the worker has been
finishing turns while every place was taken (wall time, so a worker that gets less than a core, from
neighbours or a CPU quota, is measured as it is). Refusing at once beyond a fixed count refused the
bursts that Poisson arrivals bring well below the maximum; a queue bounded in time absorbs them and
still refuses overload after a bounded wait.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Callable

__all__ = ["DEFAULT_MAX_TURNS", "FIRST_INTERVAL_S", "MAX_QUEUE", "MAX_TURNS_ENV", "QUEUE_BUDGET_S", "RETRY_AFTER_S",
           "Admission", "is_turn_route", "max_turns_from_env"]

MAX_TURNS_ENV = "DIALOGKIT_MAX_TURNS_IN_FLIGHT"
DEFAULT_MAX_TURNS = 64
"""Turns one worker runs at once. A rule-based turn holds a core for about a millisecond, so a few
keep a core busy while the others wait on the store (Little's law: 750 turns/s at 5 ms each is 4 at
once); 64 also lets as many turns wait on an LLM at once. A bot whose turns wait seconds each raises
it."""

QUEUE_BUDGET_S = 0.5
"""The longest a turn may be expected to wait for a place. A chat user waits half a second without
noticing much, and a burst that a busy machine piles up in a few hundred milliseconds (a worker
descheduled, a collection) fits; overload beyond the maximum is refused after at most this wait."""

FIRST_INTERVAL_S = 0.002
"""The pace assumed before a worker has measured its own: a turn finished every 2 ms with every place
taken (a queue of 250 in the budget), so the first burst is not refused for want of a figure."""

MAX_QUEUE = 2048
"""Whatever the pace: requests waiting hold memory, and a worker needs none to be refused quickly."""

PACE_WEIGHT = 1 / 16
"""How much one interval between two turns finishing moves the pace: some 16 intervals, a few tens of
milliseconds into a burst, make the figure."""

RETRY_AFTER_S = 1
"""Whole seconds (what ``Retry-After`` takes): the queue admitted drains within the budget, under one."""


def max_turns_from_env(env: dict[str, str] | None = None) -> int:
    """``DIALOGKIT_MAX_TURNS_IN_FLIGHT``, or the default; 0 means no limit. Raises ``ValueError``
    (with the variable's name) for anything but a whole number ≥ 0."""
    raw = (os.environ if env is None else env).get(MAX_TURNS_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_TURNS
    if not raw.isdigit():
        raise ValueError(f"{MAX_TURNS_ENV} must be a whole number of turns (0 for no limit), not {raw!r}")
    return int(raw)


def is_turn_route(method: str, path: str) -> bool:
    """Whether ``method path`` runs a turn: the JSON API's turn route and the Rasa channel."""
    if method != "POST":
        return False
    return path == "/webhooks/rest/webhook" or (path.startswith("/v1/sessions/") and path.endswith("/turns"))


class Admission:
    """The turns one worker runs (``limit`` at most; 0: no limit) and those waiting for a place (as
    many as drain within ``budget_s`` at the measured pace; 0: none wait).

    Only the event loop's thread enters and leaves, so plain counters are exact. ``clock`` (wall,
    monotonic) times the intervals between turns finishing while turns wait: then every place is
    taken, so the interval is what the worker takes to finish a turn at full load."""

    def __init__(self, limit: int, *, budget_s: float = QUEUE_BUDGET_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 0:
            raise ValueError(f"the limit of turns in flight must be 0 (none) or more, not {limit}")
        if budget_s < 0:
            raise ValueError(f"the queue budget must be 0 seconds (no queue) or more, not {budget_s}")
        self.limit, self.budget_s, self._clock = limit, budget_s, clock
        self.running = 0
        self.interval_s = FIRST_INTERVAL_S    # wall seconds between two turns finishing, every place taken
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._since: float | None = None      # when the interval being timed began (None: a place is free)

    @property
    def in_flight(self) -> int:
        """Turns running and turns waiting for a place."""
        return self.running + len(self._waiting)

    @property
    def queue_limit(self) -> int:
        """How many turns may wait: as many as finish within the budget at the measured pace."""
        return min(MAX_QUEUE, int(self.budget_s / self.interval_s))

    async def enter(self) -> bool:
        """Take a place for one turn, waiting for one if the queue has room; False (and nothing taken)
        when it has none."""
        if not self.limit or (self.running < self.limit and not self._waiting):
            self.running += 1
            return True
        if len(self._waiting) >= self.queue_limit:
            return False
        if self._since is None:
            self._since = self._clock()
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(place)
        try:
            await place                       # ``leave`` hands its place over: ``running`` stays
        except asyncio.CancelledError:
            if not place.cancelled():
                self.leave()                  # handed over as the wait was cancelled: pass it on
            elif place in self._waiting:      # (``leave`` may have dropped it already)
                self._waiting.remove(place)
            raise
        return True

    def leave(self) -> None:
        """A turn finished: its place goes to the first turn waiting, else it is free."""
        while self._waiting:
            place = self._waiting.popleft()
            if not place.done():
                self._timed()
                place.set_result(None)
                return
        self.running -= 1
        self._since = None

    def refusal(self) -> str:
        """Why a turn was refused, for the 503's message."""
        return (f"this worker is running {self.running} turns and {len(self._waiting)} more wait, as many as it "
                f"finishes in {self.budget_s:g} s")

    def _timed(self) -> None:
        """One interval at full load, folded into the pace."""
        now = self._clock()
        if self._since is not None:
            self.interval_s += (max(now - self._since, 1e-6) - self.interval_s) * PACE_WEIGHT
        self._since = now
