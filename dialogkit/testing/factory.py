"""The default ``BotFactory``: a real ``dialogkit.bot.Bot`` on the test's store and clock, with its action stubs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dialogkit.bot import Bot
from dialogkit.testing.protocols import BotLike, Clock

__all__ = ["open_bot"]


def open_bot(path: Path, store: str, actions: Mapping[str, Any], clock: Clock) -> BotLike:
    """``Bot.from_file`` with the test's store, stubs and clock; tests swap in another factory to fake the bot."""
    return Bot.from_file(path, store=store, actions=dict(actions), clock=clock)
