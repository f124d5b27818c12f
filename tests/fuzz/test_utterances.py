"""Hostile utterances are answered by every shipped bot: never an exception, never a hang; and the
context window an LLM would then receive builds (earlier rounds trimmed of filler where the bot asks)."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dialogkit.bot import Bot
from tests.fuzz.harness import count, fuzz_settings, guarded
from tests.fuzz.utterances import conversations

ROOT = Path(__file__).resolve().parents[2]
BOTS = sorted(p for p in [*ROOT.glob("flows/*.yaml"), *ROOT.glob("examples/*/*.yaml")]
              if not p.name.startswith("test_"))
SUITE = "utterances"
_SESSIONS = itertools.count()


@cache
def _bot(path: Path) -> Bot:
    return Bot.from_file(path, store="memory://")


@fuzz_settings(60)
@given(st.sampled_from(BOTS), conversations())
def test_every_turn_is_answered(path: Path, turns: list[Any]) -> None:
    bot = _bot(path)
    session = f"fuzz-{next(_SESSIONS)}"
    try:
        for text in turns:
            with guarded(SUITE, text):
                reply = bot.handle(session, text, user_id="fuzz")
            assert isinstance(reply.text, str)
            count(SUITE, "answered")
        with guarded(SUITE, repr(turns)):
            assert bot.context(session)[-1].part == "current"
        count(SUITE, "context built")
    finally:
        bot.store.delete_session(session)
