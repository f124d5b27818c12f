"""The corpus ratchet: the dialogues of each public corpus that bench/corpus.py's FLOOR_SUBSET names
(today all of each development portion), replayed through its bot file, must
score at least bench/corpus_floor.json (less 0.3 points). A drop fails and names the turns that
changed; to raise the floor, run ``python bench/corpus.py --write-floor`` and commit the file with
the change that earned it. Without the corpora (../shared/corpora beside the checkout) it skips."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
from corpus_common import Measured  # noqa: E402


@pytest.mark.parametrize("name", sorted(corpus.CORPORA))
def test_the_corpus_figures_hold_their_floor(name: str) -> None:
    entry = corpus.read_floor().get(name)
    if entry is None:
        pytest.skip(f"{name}: no floor in {corpus.FLOOR_FILE}; write one with python bench/corpus.py --write-floor")
    results, skipped = corpus.run(corpus.DEFAULT_DATA, [name], entry["subset"])
    if name not in results:
        pytest.skip("; ".join(skipped))
    fallen = corpus.drops(entry, results[name])
    assert not fallen, f"{name}, first {entry['subset']} dialogues, below {corpus.FLOOR_FILE.name}:\n" + "\n".join(fallen)


def test_a_drop_beyond_the_tolerance_names_the_turns_that_changed() -> None:
    entry = {"subset": 2, "figures": {"joint goal accuracy %": 80.0, "consistency %": 90.0}, "missed": ["1/0/jga"]}
    held = Measured("c", {"joint goal accuracy %": 79.8, "consistency %": 95.0, "turn p50 ms": 9.0}, ["1/0/jga"])
    assert corpus.drops(entry, held) == []
    fallen = corpus.drops(entry, Measured("c", {"joint goal accuracy %": 79.6, "consistency %": 90.0}, ["2/3/jga"]))
    assert fallen == ["joint goal accuracy %: 79.6 < floor 80 (-0.40 points)",
                      "newly missed (1): 2/3/jga", "newly right (1): 1/0/jga"]


def test_the_floor_holds_no_timings() -> None:
    assert corpus.is_timing("turn p99 ms") and corpus.is_timing("bot load s")
    assert not corpus.is_timing("joint goal accuracy %") and not corpus.is_timing("inform F1")
