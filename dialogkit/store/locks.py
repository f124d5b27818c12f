"""Turn locks: one in-process lock per key, the busy-session error, and whether a lock's owner lives.

A session's turns must run one at a time. Within a process that is a ``threading.Lock`` per
session (``KeyedLocks``); across processes each store adds its own lock (the SQLite store a byte
of a lock file, the Redis store a lease key) and uses ``HOST`` and ``pid_alive`` to reclaim a
lock whose process was killed.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from dialogkit.errors import StoreError

__all__ = ["HOST", "KeyedLocks", "LockEntry", "lock_timeout_message", "pid_alive"]

HOST = socket.gethostname()
"""Recorded with cross-process locks so a lock left by a dead process on this host is reclaimed."""


@dataclass
class LockEntry:
    """One key's lock and how many threads hold or wait for it (the entry goes when none do)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


class KeyedLocks:
    """One ``threading.Lock`` per key, created on demand and dropped when nobody uses it.

    Reference counting keeps the table from growing with every session ever seen, without the
    race of deleting a lock another thread is waiting on. Keys are any hashable value: the SQLite
    store keys them by the byte of its lock file a session maps to, not by the session id.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Hashable, LockEntry] = {}

    @contextmanager
    def hold(self, key: Hashable, timeout_s: float, describe: str, *, name: str | None = None) -> Iterator[None]:
        """Wait up to ``timeout_s`` for ``key``'s lock; the timeout error names ``name`` (default: the key)."""
        entry = self.acquire(key, timeout_s, describe, name=name)
        try:
            yield
        finally:
            self.release(key, entry)

    def acquire(self, key: Hashable, timeout_s: float, describe: str, *, name: str | None = None) -> LockEntry:
        """``hold`` without the context manager, for a caller that runs on every turn and manages
        its own exit (the SQLite store's turn); pass the entry back to ``release``."""
        entry = self._enter(key)
        try:
            if not entry.lock.acquire(timeout=max(timeout_s, 0.0)):
                raise StoreError(lock_timeout_message(str(key) if name is None else name, timeout_s, describe))
        except BaseException:
            self._leave(key, entry)
            raise
        return entry

    def release(self, key: Hashable, entry: LockEntry) -> None:
        """Give back a lock taken with ``acquire``."""
        try:
            entry.lock.release()
        finally:
            self._leave(key, entry)

    @contextmanager
    def try_hold(self, key: Hashable) -> Iterator[bool]:
        """Take ``key``'s lock only if it is free right now; yields whether it was taken.

        For housekeeping (expiry) that must skip a session whose turn is running, never wait on it.
        """
        entry = self._enter(key)
        try:
            taken = entry.lock.acquire(blocking=False)
            try:
                yield taken
            finally:
                if taken:
                    entry.lock.release()
        finally:
            self._leave(key, entry)

    def held(self, key: Hashable) -> bool:
        """True while some thread holds (or waits for) ``key``'s lock."""
        with self._guard:
            return key in self._locks

    def _enter(self, key: Hashable) -> LockEntry:
        with self._guard:
            entry = self._locks.setdefault(key, LockEntry())
            entry.users += 1
            return entry

    def _leave(self, key: Hashable, entry: LockEntry) -> None:
        with self._guard:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[key]


def lock_timeout_message(session_id: str, timeout_s: float, describe: str) -> str:
    return (f"session {session_id!r} is busy: another turn of it held the lock for more than "
            f"{timeout_s:g}s ({describe})")


def pid_alive(pid: int) -> bool:
    """Whether a process of this host still runs; used to reclaim locks of killed processes."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
