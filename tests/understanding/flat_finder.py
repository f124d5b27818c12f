"""The flat-hunting desk of tests/engine/bots/flat_finder.yaml, shared by the understanding tests
that follow values through whole turns (offered values, value heads, value questions)."""

from __future__ import annotations

from itertools import count
from pathlib import Path

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.store import MemoryStore

BOT_FILE = Path(__file__).resolve().parents[1] / "engine" / "bots" / "flat_finder.yaml"

_sessions = count()


def open_bot() -> Bot:
    return Bot(load_bot_file(BOT_FILE, actions={"search_flats": {}}), MemoryStore())


def slots_after(bot: Bot, *turns: str) -> dict[str, object]:
    """The values every task on the stack holds after ``turns``, said in a session of their own."""
    session = f"flat{next(_sessions)}"
    for text in turns:
        bot.handle(session, text)
    held: dict[str, object] = {}
    for task in bot.session(session).data.stack:
        held.update(task.slots)
    return held
