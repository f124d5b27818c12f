"""Hypothesis writes under .dialogkit/hypothesis/ during test runs (as ``dialogkit simulate``
does), so no run leaves a .hypothesis/ folder in the checkout or beside a bot file."""

from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir

from dialogkit.simulation.storage import hypothesis_home

set_hypothesis_home_dir(hypothesis_home(Path(__file__).resolve().parent))
