"""Turn locks shared by the stores: per-key in-process locks and dead-process detection."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from dialogkit.errors import StoreError
from dialogkit.store.locks import KeyedLocks, pid_alive


class TestKeyedLocks:
    def test_locks_are_dropped_when_nobody_uses_them(self) -> None:
        """The table does not grow with every session ever seen."""
        locks = KeyedLocks()
        with locks.hold("s1", 1.0, "test"):
            assert locks.held("s1")
        assert not locks.held("s1")

    def test_a_waiter_past_its_timeout_gets_a_store_error(self) -> None:
        """The message names the session and the wait."""
        locks = KeyedLocks()
        inside, leave = threading.Event(), threading.Event()

        def hold() -> None:
            with locks.hold("s1", 1.0, "test"):
                inside.set()
                leave.wait(5)

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert inside.wait(5)
            with pytest.raises(StoreError, match=r"session 's1' is busy.*0\.1s"), locks.hold("s1", 0.1, "test"):
                pass
        finally:
            leave.set()
            thread.join()


class TestPidAlive:
    def test_this_process_is_alive_and_a_finished_one_is_not(self) -> None:
        """Locks of finished processes can be reclaimed; ours never are."""
        done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)
        assert pid_alive(os.getpid())
        assert not pid_alive(int(done.stdout))
        assert not pid_alive(0)
