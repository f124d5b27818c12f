"""Shared fixtures: the shipped support bot, a stopped clock, and a helper for inline bot files."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dialogkit.spec.schema import BotFile
from dialogkit.understanding.rules import RuleUnderstanding

SUPPORT_BOT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # a Monday; the bots here keep the default zone, UTC


def fixed_clock() -> float:
    """The bot's clock (seconds since the epoch) stopped at ``NOW``."""
    return NOW.timestamp()


def bot_from_yaml(text: str) -> BotFile:
    """A bot file written inline in a test."""
    return BotFile.model_validate(YAML(typ="safe").load(textwrap.dedent(text)))


@pytest.fixture(scope="session")
def support_spec() -> BotFile:
    return BotFile.model_validate(YAML(typ="safe").load(SUPPORT_BOT.read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def rules(support_spec: BotFile) -> RuleUnderstanding:
    return RuleUnderstanding(support_spec, clock=fixed_clock)
