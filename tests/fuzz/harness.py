"""What the fuzz tests share: how many examples to run, the hang guard, and the tallies.

``make test`` runs a bounded, repeatable number of examples; ``make fuzz`` sets
``DIALOGKIT_FUZZ_EXAMPLES`` and runs many more with fresh randomness. A hang is caught by
``faulthandler``: an example that runs past ``HANG_SECONDS`` dumps every thread's stack and ends
the process, so a hang can never pass as a slow success.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, settings

FUZZ_ENV = "DIALOGKIT_FUZZ_EXAMPLES"
HANG_SECONDS = 60.0

TALLY: Counter[str] = Counter()
"""``"<suite>: <outcome>"`` -> examples; printed at the end of the run (see conftest)."""

SLOWEST: dict[str, float] = {}
SLOWEST_EXAMPLE: dict[str, str] = {}
"""The input of each suite's slowest example: where to look when load time creeps up."""


def fuzz_settings(default_examples: int) -> Callable[[Any], Any]:
    """``default_examples`` repeatable examples, or ``$DIALOGKIT_FUZZ_EXAMPLES`` random ones."""
    wanted = os.environ.get(FUZZ_ENV, "").strip()
    return settings(
        max_examples=int(wanted) if wanted else default_examples,
        derandomize=not wanted,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


@contextmanager
def guarded(suite: str, example: object = "") -> Iterator[None]:
    """Run one example under the hang guard, and time it (keeping the slowest ``example``, as text:
    a hostile turn may be no string at all, and the summary writes it to a file)."""
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True, file=sys.stderr)
    started = time.perf_counter()
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        took = time.perf_counter() - started
        if took > SLOWEST.get(suite, 0.0):
            SLOWEST[suite], SLOWEST_EXAMPLE[suite] = took, example if isinstance(example, str) else repr(example)


def count(suite: str, outcome: str) -> None:
    TALLY[f"{suite}: {outcome}"] += 1
