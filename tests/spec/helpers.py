"""Inline bot files for tests: a short YAML string in, the loaded bot or the problems out."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from dialogkit.actions.loading import LoadedBot, parse_bot_text
from dialogkit.errors import FlowError, Problem


def load(text: str, *, actions: Any = None, base_dir: Path | None = None) -> LoadedBot:
    """Parse a dedented inline bot file named ``bot.yaml``."""
    return parse_bot_text(textwrap.dedent(text), filename="bot.yaml", actions=actions, base_dir=base_dir)


def problems(text: str, *, actions: Any = None, base_dir: Path | None = None) -> list[Problem]:
    """The problems loading ``text`` reports (the test fails if it loads)."""
    with pytest.raises(FlowError) as caught:
        load(text, actions=actions, base_dir=base_dir)
    return caught.value.problems


def only(found: list[Problem]) -> Problem:
    """The single problem of a list, with the list shown when there are more or fewer."""
    assert len(found) == 1, "\n".join(str(p) for p in found)
    return found[0]
