"""The surface of a bot the harness drives, written down so fakes and the real ``Bot`` agree.

The harness reads only this public surface (never a session's internals), so an expectation
whose feature a bot does not offer yet reports "not supported by this bot" instead of crashing,
and starts to pass once the feature lands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol


class BotLike(Protocol):
    """What ``dialogkit.Bot`` offers that conversation tests use."""

    def handle(self, session_id: str, text: str, *, user_id: str | None = None) -> Any: ...

    def session(self, session_id: str) -> Any: ...

    def close(self) -> None: ...


Clock = Callable[[], float]
"""Seconds since the epoch, like ``time.time``: what ``Bot.from_file(clock=)`` takes."""

BotFactory = Callable[[Path, str, Mapping[str, Any], Clock], BotLike]
"""Builds a bot from (bot file, store URL, action stubs, clock): the harness's only way to make one.
The clock is the test's (``testing.clock.TestClock``): the bot must read time from it."""

TurnObserver = Callable[[str | None, str | None, Any, Any], None]
"""Called after each turn with (flow before, state before, reply, bot): coverage listens here."""
