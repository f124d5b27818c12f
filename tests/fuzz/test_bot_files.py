"""Mutated bot files load, or fail with a FlowError: never another exception, never a hang."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given

from dialogkit.actions.loading import parse_bot_text
from dialogkit.errors import FlowError
from tests.fuzz.bot_files import SHIPPED, mutated_bot_files
from tests.fuzz.harness import count, fuzz_settings, guarded

SUITE = "bot files"


def test_the_shipped_files_are_found() -> None:
    assert len(SHIPPED) >= 6


@fuzz_settings(150)
@given(mutated_bot_files())
def test_a_mutated_bot_file_loads_or_raises_flow_error(case: tuple[Path, str]) -> None:
    path, text = case
    with guarded(SUITE, text):
        try:
            parse_bot_text(text, filename=path.name, base_dir=path.parent)
        except FlowError as error:
            assert error.problems, "a FlowError names at least one problem"
            count(SUITE, "FlowError")
        else:
            count(SUITE, "loaded")
