"""Whole simulations on the shipped bots: conversations run, counts add up, a seed repeats a run,
a violation shrinks to a minimal conversation and saves as a test that loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.simulation import Options, simulate, write_conversation_test
from dialogkit.simulation import invariants as invariants_module
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.testing import load_test_file
from tests.simulation._records import MEETING, SUPPORT


def _signature(path: Path, seed: int) -> list[tuple[str, int, list[str]]]:
    result = simulate(path, Options(conversations=15, seed=seed, shrink=False))
    assert result.tally.done == 15 and result.turns >= 15 * 3
    return [(c.key, c.conversations, [t.utterance.text for t in c.first.turns]) for c in result.tally.classes.values()]


@pytest.mark.parametrize("path", [SUPPORT, MEETING], ids=["support", "meeting"])
def test_a_seed_repeats_the_same_conversations(path: Path) -> None:
    assert _signature(path, 3) == _signature(path, 3)


def _forget_is_forbidden(turn: TurnRecord, judge: Judge) -> Finding | None:
    """A made-up behaviour for the test: nobody says "forget" (docs/behaviours.md)."""
    return Finding("said", "the user said forget", {"state": "IDLE"}) if turn.utterance.move == "forget" else None


def test_a_violation_shrinks_to_a_minimal_conversation_and_saves(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    made_up = Invariant("no_forgetting", "z", "nobody forgets", _forget_is_forbidden)
    monkeypatch.setattr(invariants_module, "INVARIANTS", (*invariants_module.INVARIANTS, made_up))
    result = simulate(SUPPORT, Options(conversations=30, seed=5, languages=("en",)))
    record = result.tally.classes["no_forgetting/said"]
    assert record.shrunk and record.conversations >= 1
    turns = record.example.turns
    assert len(turns) == 2 and turns[-1].utterance.move == "forget"   # forgetting needs one turn before it
    assert all(t.language == "en" for t in turns)
    path = write_conversation_test([record.example], result.bot_path, tmp_path, result.stubs, "support", "h")
    assert [s.user for s in load_test_file(path).tests[0].steps] == [t.utterance.text for t in turns]


def test_only_zh_users_speak_chinese() -> None:
    result = simulate(MEETING, Options(conversations=10, seed=2, languages=("zh",), shrink=False))
    assert result.tally.done == 10
    assert all(t.utterance.language == "zh" for c in result.tally.classes.values() for t in c.first.turns)
