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
    slept, done = threading.Event(), threading.Event()

    def sleep() -> None:
        for _ in range(50):
            time.sleep(0.001)
        slept.set()
        done.wait()                                      # alive while counted: a thread gone takes its count

    before = wakeups(os.getpid())
    sleeper = threading.Thread(target=sleep)
    sleeper.start()
    slept.wait()
    woken = wakeups(os.getpid()) - before
    done.set()
    sleeper.join()
    assert woken >= 50                                   # the main thread waited once, for ``slept``


def test_wake_ups_of_a_process_gone_are_none() -> None:
    assert wakeups(2**22 + 1) == 0                       # above Linux's largest pid


def test_the_ceiling_is_the_cores_over_the_cpu_a_turn_takes() -> None:
    spent = {"server": 1.2, "redis": 0.07, "client": 0.13, "others": 0.4, "wakeups": 5000.0}   # seconds, 1,000 turns
    assert ceiling(spent, 1000) == pytest.approx((os.cpu_count() or 1) * 1000 / 1.4)
    assert ceiling({"server": 0.0, "redis": 0.0, "client": 0.0}, 1000) == 0.0


def test_a_rate_with_5xx_below_the_maximum_shows_its_own_ceiling() -> None:
    from collections import Counter

    from open_loop import Outcome
    from serve import OpenRun, target_lines

    def run(rate: float, answered: int, refused: int, workers_s: float) -> OpenRun:
        outcome = Outcome(rate, statuses=Counter({200: answered, 503: refused}), latencies=[0.01] * answered)
        return OpenRun(outcome, 0, 0, {"server": workers_s, "redis": 0.7, "client": 1.3, "others": 0.0, "wakeups": 0.0})

    lines = target_lines([], [run(500, 5000, 0, 7.0), run(1500, 10000, 1316, 12.0)])
    assert "- no 5xx and no lost turn below the maximum (2 rates): 1316 5xx, 0 lost or unanswered, **missed**" in lines
    shown = [line for line in lines if "own ceiling" in line]
    assert shown == [f"  - 1,500 turns/s offered: 1,316 5xx; that rate's own ceiling (its CPU a turn) "
                     f"{(os.cpu_count() or 1) * 10000 / 14:,.0f} turns/s"]
