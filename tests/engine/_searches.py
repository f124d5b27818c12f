"""What a search bot's last turn ran: shared by the tests of searches around a thing
(tests/engine/rules/test_surroundings.py, tests/engine/test_near_slots.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.store import MemoryStore

BOTS = Path(__file__).resolve().parent / "bots"

_sessions = itertools.count()


def search_bot(name: str, actions: Mapping[str, object]) -> Iterator[Bot]:
    """The bot tests/engine/bots/<name>.yaml, its actions answering at once (a fixture's body)."""
    made = Bot(load_bot_file(BOTS / f"{name}.yaml", actions=dict(actions)), MemoryStore())
    yield made
    made.close()


def searched(bot: Bot, *turns: str) -> tuple[str, dict[str, object]]:
    """The search the last turn ran, and its values (each call a new session)."""
    session = f"search{next(_sessions)}"
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None and reply.actions, reply.text
    return reply.actions[-1].name, dict(reply.actions[-1].inputs)
