"""Capture the structlog events of a turn, so tests can assert on what the bot logged.

``with capture_turn_logs() as events: bot.handle(...)`` — each event is a dict (``event`` is its
name, the rest are its fields), exactly as ``structlog.testing.capture_logs`` records them.
It works because dialogkit's loggers are not cached on first use; capturing swaps the processor
chain for the duration of the block and restores it afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import structlog
from structlog.testing import capture_logs


@contextmanager
def capture_turn_logs() -> Iterator[list[dict[str, Any]]]:
    """Yield the list the events logged inside the block are appended to.

    Every level is captured, debug included (per-transition events), whatever level the
    application configured: the level filter is lifted for the block and put back after it.
    """
    previous = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as events:
            # structlog types each event as a MutableMapping; the ones it records are plain dicts.
            yield cast(list[dict[str, Any]], events)
    finally:
        structlog.configure(wrapper_class=previous)


def events_named(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The captured events whose ``event`` is ``name`` (e.g. "turn", "transition")."""
    return [e for e in events if e.get("event") == name]
