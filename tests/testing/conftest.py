"""Fixtures for the harness's own tests: a bot file, the fake bot, and test files written inline."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from dialogkit.testing import runner
from tests.testing.fake_bot import FakeBot

BOT_FILE = Path(__file__).parent / "bots" / "support.yaml"

WriteTests = Callable[..., Path]


@pytest.fixture
def use_fake_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the runner build the fake bot wherever it would build ``dialogkit.Bot``."""
    monkeypatch.setattr(runner, "open_bot", FakeBot.from_file)


@pytest.fixture
def write_tests(tmp_path: Path) -> WriteTests:
    """Write a test file next to a copy of the bot file; ``bot: bot.yaml`` refers to it."""
    shutil.copy(BOT_FILE, tmp_path / "bot.yaml")

    def write(text: str, name: str = "test_conversation.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    return write
