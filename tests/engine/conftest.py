"""Bots several engine tests talk to, loaded once per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.store import MemoryStore

BOTS = Path(__file__).resolve().parent / "bots"


@pytest.fixture(scope="module")
def flat_finder() -> Iterator[Bot]:
    """The flat-hunting desk (bots/flat_finder.yaml), its search stubbed to return nothing."""
    made = Bot(load_bot_file(BOTS / "flat_finder.yaml", actions={"search_flats": {}}), MemoryStore())
    yield made
    made.close()
