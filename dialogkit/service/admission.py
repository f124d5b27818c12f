"""Load shedding: how many turns one worker runs at once before it answers 503 ``overloaded``.

A worker past its capacity that accepts every turn only grows a queue: each turn waits longer,
clients time out and retry, and the retries add to the queue. With a bound, the turns beyond it are
refused at once (no body read, no store touched, about the cost of an error page) with
``Retry-After``, so the turns admitted keep their latency and a client or a load balancer knows to
come back later or try another worker (docs/serving.md, "Load shedding").
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_MAX_TURNS", "MAX_TURNS_ENV", "RETRY_AFTER_S", "Admission", "is_turn_route",
           "max_turns_from_env"]

MAX_TURNS_ENV = "DIALOGKIT_MAX_TURNS_IN_FLIGHT"
DEFAULT_MAX_TURNS = 64
"""Per worker. A rule-based turn holds a core for about a millisecond, so 64 waiting turns are about
64 ms of queue: past the latency a chat user notices, well above what a steady load keeps in flight
(Little's law: 750 turns/s at 5 ms each is 4 at once), and far below what a turn calling an LLM
(seconds each) needs to be refused by; such a bot raises it."""

RETRY_AFTER_S = 1
"""Whole seconds (what ``Retry-After`` takes): a queue of 64 turns drains in well under one."""


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
    """The turns one worker is running, against its limit (``limit`` 0: no limit).

    Only the event loop's thread enters and leaves, so a plain counter is exact."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"the limit of turns in flight must be 0 (none) or more, not {limit}")
        self.limit = limit
        self.in_flight = 0

    def enter(self) -> bool:
        """Take a place for one turn; False (and nothing taken) when every place is taken."""
        if self.limit and self.in_flight >= self.limit:
            return False
        self.in_flight += 1
        return True

    def leave(self) -> None:
        self.in_flight -= 1
