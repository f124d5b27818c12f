"""Warnings that would repeat every turn are logged once per process.

A server that rejects a request (a bad key, a wrong model, a mode it does not support) rejects
it again on the next turn; a warning per turn would bury every other line of the log. The first
occurrence of each kind is a warning, the repeats are debug lines.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any

from dialogkit.logging import get_logger

__all__ = ["log_once", "reset"]

log = get_logger("dialogkit.llm")

_seen: set[Hashable] = set()
_lock = threading.Lock()


def log_once(key: Hashable, event: str, **fields: Any) -> bool:
    """Log ``event`` as a warning the first time ``key`` is seen in this process, else at debug.

    Returns True when this was the first time.
    """
    with _lock:
        first = key not in _seen
        _seen.add(key)
    if first:
        log.warning(event, **fields)
    else:
        log.debug(event, repeated=True, **fields)
    return first


def reset() -> None:
    """Forget what was logged (tests)."""
    with _lock:
        _seen.clear()
