"""bench/serve.py's figures of where a turn's time goes: the workers' wake-ups, counted over every
thread of a process, and the ceiling a run's CPU per turn allows."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from serve import ceiling, wakeups  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")


def test_wake_ups_count_the_sleeps_of_every_thread_of_the_process() -> None:
    """A worker's turns sleep and wake in its turn pool's threads as well as on its loop."""
    before = wakeups(os.getpid())
    sleeper = threading.Thread(target=lambda: [time.sleep(0.001) for _ in range(50)])
    sleeper.start()
    sleeper.join()
    assert wakeups(os.getpid()) - before >= 50           # the main thread only waited once, in join


def test_wake_ups_of_a_process_gone_are_none() -> None:
    assert wakeups(2**22 + 1) == 0                       # above Linux's largest pid


def test_the_ceiling_is_the_cores_over_the_cpu_a_turn_takes() -> None:
    spent = {"server": 1.2, "redis": 0.07, "client": 0.13, "others": 0.4, "wakeups": 5000.0}   # seconds, 1,000 turns
    assert ceiling(spent, 1000) == pytest.approx((os.cpu_count() or 1) * 1000 / 1.4)
    assert ceiling({"server": 0.0, "redis": 0.0, "client": 0.0}, 1000) == 0.0
