"""The clock of a conversation test: a test never depends on the day or the hour it runs.

Every test starts at ``START`` in the bot's time zone (``bot.timezone``) and each step happens one
second after the one before it, so "明天" and "next Friday" mean the same dates on every run. A
step moves the clock itself with ``now:`` (a local time in the bot's zone, or an ISO time with an
offset) and ``wait:`` (a duration, as ``session_timeout`` writes it); docs/testing.md says how.
The bot reads the clock as it reads ``time.time``: seconds since the epoch.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["START", "STEP_SECONDS", "TestClock", "parse_moment", "zone_of"]

START = "2026-12-01T09:00"
"""Where every test's clock starts, in the bot's time zone (a Tuesday morning)."""
STEP_SECONDS = 1.0
"""How far the clock moves between two steps that say nothing about time."""


def parse_moment(text: str) -> datetime:
    """An ISO date and time ("2026-12-01T09:00", "2026-12-01 23:30:15+08:00", "2026-12-01"):
    naive when written without an offset (the bot's local time), aware with one.
    ``ValueError`` when it is not one."""
    return datetime.fromisoformat(text.strip())


def zone_of(bot: Any) -> tzinfo:
    """The bot's time zone as its bot file names it; UTC for a bot that does not say."""
    name = getattr(getattr(getattr(bot, "spec", None), "bot", None), "timezone", None)
    return ZoneInfo(name) if isinstance(name, str) else UTC


class TestClock:
    """A stopped clock that only the test moves: ``Bot.from_file(..., clock=TestClock())``."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, zone: tzinfo = UTC) -> None:
        self.zone = zone
        self.seconds = self._at(parse_moment(START))
        self.steps = 0

    def __call__(self) -> float:
        return self.seconds

    def start(self, zone: tzinfo) -> None:
        """Back to ``START``, in ``zone``: the bot's, known once the bot is built."""
        self.zone = zone
        self.seconds = self._at(parse_moment(START))
        self.steps = 0

    def now(self) -> datetime:
        """The clock's time, local to the bot."""
        return datetime.fromtimestamp(self.seconds, self.zone)

    def set(self, moment: str | datetime) -> None:
        """Put the clock at ``moment``: a naive one is the bot's local time."""
        self.seconds = self._at(parse_moment(moment) if isinstance(moment, str) else moment)

    def advance(self, seconds: float) -> None:
        self.seconds += seconds

    def before_step(self, now: str | datetime | None = None, wait: float | None = None) -> None:
        """Where the next step happens: at ``now`` when given, else a second after the last step
        (the first step at ``START``); then ``wait`` seconds later, when given."""
        if now is not None:
            self.set(now)
        elif self.steps and wait is None:
            self.advance(STEP_SECONDS)
        if wait is not None:
            self.advance(wait)
        self.steps += 1

    def _at(self, moment: datetime) -> float:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self.zone)
        return moment.timestamp()
