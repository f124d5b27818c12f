"""WAL checkpoints of the SQLite store, run by a thread of their own instead of inside a turn.

SQLite copies its write-ahead log back into the database file once the log reaches
``wal_autocheckpoint`` pages, and it does so inside whichever commit crossed the line: with the
default of 1,000 pages that was one turn in about 180 taking 4 ms instead of 0.25 (the copy and the
file's sync), the largest part of a turn's p99. Here every connection that commits turns keeps the
automatic checkpoint only as a safety net far above the usual size, and a daemon thread runs a
``PASSIVE`` checkpoint every ``every`` commits. A passive checkpoint takes no lock that a turn waits
for, and Python's sqlite3 lets go of the GIL while SQLite works, so the copy runs beside the turns
rather than inside one of them. A process killed meanwhile loses nothing: the log still holds
every committed page until a checkpoint has copied it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from dialogkit.logging import get_logger

__all__ = ["COMMITS_PER_CHECKPOINT", "SAFETY_NET_PAGES", "Checkpointer"]

log = get_logger("dialogkit.store")

COMMITS_PER_CHECKPOINT = 100
"""About 500 pages of log at the support bot's 4 to 8 pages a turn: a 2 MB log, copied in ~2 ms."""

SAFETY_NET_PAGES = 10_000
"""Where a committing connection still checkpoints by itself (40 MB of log): only when the thread
cannot keep up, or a process without it writes to the same file."""


class Checkpointer:
    """Counts a store's commits and wakes its checkpoint thread every ``every`` of them.

    The thread starts on the first wake-up in each process (a forked worker starts its own, as its
    parent's thread does not exist there) and stops with ``close``.
    """

    def __init__(self, path: Path, every: int = COMMITS_PER_CHECKPOINT) -> None:
        self._path = path
        self._every = every
        self._count = 0
        self._wake = threading.Event()
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._closed = False
        self.done = 0
        """Checkpoints run so far by this process's thread (read by tests and benchmarks)."""

    def committed(self) -> None:
        """Called after each commit: cheap, and never waits for a checkpoint."""
        self._count += 1
        if self._count >= self._every:
            self._count = 0
            self._start()
            self._wake.set()

    def close(self) -> None:
        with self._guard:
            self._closed = True
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None and thread.is_alive() and self._pid == os.getpid():
            thread.join(timeout=5)

    def _start(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        with self._guard:
            if self._closed or (self._thread is not None and self._pid == os.getpid()):
                return
            self._pid = os.getpid()
            self._wake = threading.Event()
            self._thread = threading.Thread(target=self._run, name="dialogkit-sqlite-checkpoint", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        wake = self._wake
        try:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            log.warning("wal_checkpoint_thread_failed", path=str(self._path), error=str(exc))
            return
        try:
            while True:
                wake.wait()
                wake.clear()
                if self._closed:
                    return
                self._checkpoint(conn)
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:   # a busy or locked file: the next wake-up tries again
            log.debug("wal_checkpoint_skipped", path=str(self._path), error=str(exc))
            return
        self.done += 1
