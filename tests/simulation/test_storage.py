"""Hypothesis writes under .dialogkit/hypothesis/ — never a .hypothesis/ folder beside a bot file
or in the checkout — during a simulation and during the test suite (docs/testing.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

from dialogkit.simulation import Options, simulate
from dialogkit.simulation import invariants as invariants_module
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.storage import HOME, current_home, hypothesis_storage
from tests.simulation._records import ROOT, TRANSFER


def _bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my_bot"
    folder.mkdir()
    shutil.copy(TRANSFER, folder / "transfer.yaml")
    return folder


def test_simulate_run_in_the_bots_folder_writes_under_dialogkit(tmp_path: Path) -> None:
    """A fresh process, as a user runs it: hypothesis writes its caches on first use."""
    folder = _bot_folder(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPOTHESIS")}
    done = subprocess.run([sys.executable, "-m", "dialogkit.cli", "simulate", "transfer.yaml", "-n", "2"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert "2 conversations" in done.stdout, done.stderr
    assert not (folder / ".hypothesis").exists()
    assert (folder / HOME).is_dir() and any((folder / HOME).iterdir())


@pytest.fixture
def own_home(tmp_path: Path) -> Iterator[Path]:
    """A program's own hypothesis setting, put back after the test."""
    before = current_home()
    mine = tmp_path / "mine"
    set_hypothesis_home_dir(mine)
    yield mine
    set_hypothesis_home_dir(before)


def test_a_simulation_in_a_program_writes_under_dialogkit_and_leaves_the_programs_setting(
        own_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _bot_folder(tmp_path)
    monkeypatch.chdir(folder)
    during: list[Path] = []

    def where(turn: TurnRecord, judge: Judge) -> Finding | None:
        """Notes where hypothesis writes (docs/behaviours.md)."""
        during.append(current_home())
        return None

    spy = Invariant("where", "z", "notes where hypothesis writes", where)
    monkeypatch.setattr(invariants_module, "INVARIANTS", (*invariants_module.INVARIANTS, spy))
    simulate(folder / "transfer.yaml", Options(conversations=1, seed=0, shrink=False))
    assert during and set(during) == {folder / HOME}
    assert current_home() == own_home
    assert not (folder / ".hypothesis").exists()


def test_the_setting_is_put_back_when_the_block_raises(own_home: Path) -> None:
    with pytest.raises(RuntimeError), hypothesis_storage(Path("elsewhere")):
        raise RuntimeError("boom")
    assert current_home() == own_home


def test_the_test_suite_writes_under_the_checkouts_dialogkit_folder() -> None:
    from hypothesis import settings

    assert current_home() == ROOT / HOME
    database = settings().database
    # Under CI=true hypothesis loads its "ci" profile, which keeps no example database at all.
    assert database is None or str(getattr(database, "path", "")).startswith(str(ROOT / HOME))
