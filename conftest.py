"""Hypothesis writes under .dialogkit/hypothesis/ during test runs (as ``dialogkit simulate``
does), so no run leaves a .hypothesis/ folder in the checkout or beside a bot file; and every test
leaves the logging configuration as it found it."""

from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from hypothesis.configuration import set_hypothesis_home_dir

from dialogkit import logging as dialogkit_logging
from dialogkit.simulation.storage import hypothesis_home

set_hypothesis_home_dir(hypothesis_home(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """Each test leaves structlog as it found it. A command run in-process configures logging for
    errors only; under pytest-xdist the tests after it in the same worker then captured no warning."""
    configured, saved, flag = structlog.is_configured(), structlog.get_config(), dialogkit_logging._configured
    yield
    if configured:
        structlog.configure(**saved)
    else:
        structlog.reset_defaults()
    dialogkit_logging._configured = flag
