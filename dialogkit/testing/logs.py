"""Capture the structlog events of a turn, so tests can assert on what the bot logged.

``with capture_turn_logs() as events: bot.handle(...)`` — each event is a dict (``event`` is its
name, the rest are its fields), exactly as ``structlog.testing.capture_logs`` records them.
It works because dialogkit's loggers are not cached on first use; capturing swaps the processor
chain for the duration of the block and restores it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from structlog.testing import capture_logs


@contextmanager
def capture_turn_logs() -> Iterator[list[dict[str, Any]]]:
    """Yield the list the events logged inside the block are appended to."""
    with capture_logs() as events:
        yield events


def events_named(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The captured events whose ``event`` is ``name`` (e.g. "turn", "transition")."""
    return [e for e in events if e.get("event") == name]
