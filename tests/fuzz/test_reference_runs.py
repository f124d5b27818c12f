"""Runs of referring words ("它" x 4,000, "it it it", "the second one ...", digits, mixes) cost a turn
work in proportion to what it reads. Measured as Python function calls, never as time: a run that
went quadratic again (8 million overlap checks for "它" x 4,000) shows as millions of calls."""

from __future__ import annotations

import itertools
import sys
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dialogkit.bot import Bot
from dialogkit.strings.limits import MAX_UNDERSTOOD_CHARS
from tests.fuzz.harness import count, fuzz_settings, guarded

ROOT = Path(__file__).resolve().parents[2]
SUITE = "reference runs"
UNITS = ["它", "他们", "那个", "这个订单", "第二个", "前者", "12345", "it ", "them ", "that one ", "the second one ",
         "its ", "this ", "12345 ", "订单12345它", "order 12345, it "]
CALLS_PER_CHAR = 60
"""Function calls a turn may make per character it reads, besides a short turn's own (BASE_CALLS)."""
BASE_CALLS = 150_000
_SESSIONS = itertools.count()
START = {"zh": "我上周买的手机屏幕碎了", "en": "my phone arrived broken"}


@cache
def _bot() -> Bot:
    return Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store="memory://")


def _calls(bot: Bot, session: str, text: str) -> int:
    calls = 0

    def counting(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(counting)
    try:
        bot.handle(session, text)
    finally:
        sys.setprofile(None)
    return calls


@fuzz_settings(12)
@given(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3), st.sampled_from([1000, 4000, 12_000, 65_536]),
       st.sampled_from(["idle", "zh", "en"]))
def test_a_run_costs_work_in_proportion_to_what_the_turn_reads(units: list[str], chars: int, start: str) -> None:
    bot = _bot()
    session = f"runs-{next(_SESSIONS)}"
    unit = "".join(units)
    text = unit * max(1, chars // len(unit))
    try:
        if start != "idle":
            bot.handle(session, START[start])
        with guarded(SUITE, text[:200]):
            calls = _calls(bot, session, text)
        assert calls <= CALLS_PER_CHAR * min(len(text), MAX_UNDERSTOOD_CHARS) + BASE_CALLS, (unit, calls)
        count(SUITE, "bounded")
    finally:
        bot.store.delete_session(session)
