"""The SQLite store's turn locks: one byte of a lock file per session, locked by the OS.

A session's turn holds an OS advisory lock on ONE byte of a file beside the database
(``sessions.db.locks``), at an offset hashed from the session id. Taking it costs no SQLite
write transaction, and the kernel drops it the moment its process dies: a killed worker frees
its sessions at once, with no stale lease to expire and no pid to check.

- POSIX: ``fcntl.lockf`` byte-range locks. They belong to the *process*, not the thread, and
  closing *any* descriptor of the file drops *all* of the process's locks on it. Hence (a)
  threads first take an in-process lock keyed by the byte offset, not the session id: two
  sessions hashing to the same byte serialise, and no thread ever unlocks a byte another thread
  of this process still relies on; (b) the file is opened once per process and database, shared
  by every ``SqliteStore`` on it (so two stores of one process exclude each other too), and
  closed only when the last store has closed and the last turn inside it has ended.
- Windows: ``msvcrt.locking`` on the same bytes, with the same in-process locks.
- The file must live on a local filesystem (or one with working POSIX locks), as SQLite's WAL
  mode already requires. Every process sharing a database must use this same scheme.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from dialogkit.errors import StoreError
from dialogkit.store.locks import KeyedLocks, LockEntry, lock_timeout_message

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

__all__ = ["LOCK_SLOTS", "LockFile", "LockFileHandle", "lock_offset"]

MAX_POLL_S = 0.005
"""The longest pause between two tries of a lock byte another process holds: 200 tries a second
while waiting cost little, and a longer pause (50 ms, as before) is latency added to the turn."""

LOCK_SLOTS = 2**31
"""Bytes of the lock file sessions hash onto. Every process sharing a database must agree on it."""


def lock_offset(session_id: str) -> int:
    """The byte of the lock file that stands for ``session_id``: the same in every process and run
    (a stable hash, unlike ``hash()``), spread over ``LOCK_SLOTS`` so unrelated sessions rarely share one."""
    digest = hashlib.blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % LOCK_SLOTS


class LockFile:
    """This process's one open descriptor of a database's lock file, plus its in-process locks.

    Shared by every store of this process on the same database (a second descriptor could never
    be closed without dropping the first one's POSIX locks). For the same reason the descriptor
    is closed only when no store uses it (``users``) *and* no turn or purge is inside it
    (``active``): a store closed while another thread's turn still runs must not drop that
    turn's lock, nor let the descriptor number be reused under it.
    """

    def __init__(self, path: Path, url: str) -> None:
        self.path = path
        self.url = url
        self.users = 0                       # stores using it; both counts under _GUARD
        self.active = 0                      # turns and purges inside it right now
        self.threads = KeyedLocks()          # keyed by byte offset: see the module docstring
        self._seek_guard = threading.Lock()  # Windows locks at the file position: seek + lock as one
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {path} of the session store {url}: {exc}") from exc

    def acquire(self, session_id: str, timeout_s: float) -> tuple[int, LockEntry]:
        """Take ``session_id``'s turn lock against threads of this process and other processes.

        Returns what ``release`` needs. Not a context manager: the SQLite store's turn calls it
        once per turn and owns the exit, which saves the nested generator frames.
        """
        started = time.monotonic()
        offset = lock_offset(session_id)
        entry = self.threads.acquire(offset, timeout_s, self.url, name=session_id)
        try:
            if not self._try_lock(offset):
                self._wait_lock(offset, session_id, started + timeout_s, timeout_s)
        except BaseException:
            self.threads.release(offset, entry)
            raise
        return offset, entry

    def release(self, offset: int, entry: LockEntry) -> None:
        """Free a lock taken with ``acquire``: the byte first, then the in-process lock."""
        try:
            self._unlock(offset)
        finally:
            self.threads.release(offset, entry)

    def leave(self) -> None:
        """A turn or purge counted by ``LockFileHandle.enter`` is done; the last one out closes."""
        with _GUARD:
            _release(self, user=False)

    @contextmanager
    def try_hold_many(self, session_ids: Iterable[str]) -> Iterator[list[str]]:
        """Lock, without waiting, every given session whose turn is not running; yield those."""
        by_offset: dict[int, list[str]] = {}
        for sid in session_ids:
            by_offset.setdefault(lock_offset(sid), []).append(sid)
        free: list[str] = []
        with ExitStack() as stack:
            for offset, sids in by_offset.items():
                if stack.enter_context(self.threads.try_hold(offset)) and self._try_lock(offset):
                    stack.callback(self._unlock, offset)
                    free.extend(sids)
            yield free

    def _wait_lock(self, offset: int, session_id: str, deadline: float, timeout_s: float) -> None:
        """Poll the byte held by another process until it is ours or the deadline passes.

        A byte-range lock cannot be waited for with a timeout (a blocking ``lockf`` returns only
        when it is granted), so this polls, backing off to ``MAX_POLL_S``: a turn holds its lock
        for a millisecond or so, and a longer pause would only add to the waiter's latency.
        """
        pause = 0.001
        while True:
            if time.monotonic() >= deadline:
                raise StoreError(lock_timeout_message(session_id, timeout_s, self.url))
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, MAX_POLL_S)
            if self._try_lock(offset):
                return

    if sys.platform == "win32":
        def _try_lock(self, offset: int) -> bool:
            with self._seek_guard:
                os.lseek(self.fd, offset, os.SEEK_SET)
                try:
                    msvcrt.locking(self.fd, msvcrt.LK_NBLCK, 1)
                except OSError as exc:
                    if exc.errno in (errno.EACCES, errno.EDEADLOCK):
                        return False
                    raise self._failure(exc) from exc
            return True

        def _unlock(self, offset: int) -> None:
            with self._seek_guard:
                os.lseek(self.fd, offset, os.SEEK_SET)
                msvcrt.locking(self.fd, msvcrt.LK_UNLCK, 1)
    else:
        def _try_lock(self, offset: int) -> bool:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset, os.SEEK_SET)
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EAGAIN):
                    return False
                raise self._failure(exc) from exc
            return True

        def _unlock(self, offset: int) -> None:
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, offset, os.SEEK_SET)

    def _failure(self, exc: OSError) -> StoreError:
        return StoreError(f"cannot lock {self.path} for the session store {self.url}: {exc}")


class LockFileHandle:
    """One store's use of its database's ``LockFile``: opened with the store, closed with it.

    Once closed, no new turn can enter, while turns already inside keep the file open until they
    leave. The check and the count happen under one guard, so a close racing a turn's start
    never hands the turn a descriptor that is being closed.
    """

    __slots__ = ("_file", "url")

    def __init__(self, url: str) -> None:
        self.url = url
        self._file: LockFile | None = None

    def open(self, path: Path) -> None:
        """Use the process-wide ``LockFile`` of ``path``, opening it on first use."""
        key = _registry_key(path)
        with _GUARD:
            lock_file = _LOCK_FILES.get(key)
            if lock_file is None:
                lock_file = _LOCK_FILES[key] = LockFile(path, self.url)
            lock_file.users += 1
            self._file = lock_file

    def enter(self) -> LockFile:
        """Count one more turn (or purge) inside the file; it calls ``LockFile.leave`` when done."""
        with _GUARD:
            lock_file = self._file
            if lock_file is None:
                raise StoreError(f"the session store {self.url} is closed")
            lock_file.active += 1
            return lock_file

    @contextmanager
    def inside(self) -> Iterator[LockFile]:
        """``enter`` and ``leave`` around a block, for callers off the per-turn path (purges)."""
        lock_file = self.enter()
        try:
            yield lock_file
        finally:
            lock_file.leave()

    def close(self) -> None:
        """Stop using the file (again is harmless); the last user and turn out closes it."""
        with _GUARD:
            lock_file, self._file = self._file, None
            if lock_file is not None:
                _release(lock_file, user=True)


_LOCK_FILES: dict[tuple[int, str], LockFile] = {}
_GUARD = threading.Lock()


def _registry_key(path: Path) -> tuple[int, str]:
    """Keyed by pid as well, so a forked child (which inherits descriptors but none of the
    parent's locks) opens its own."""
    return os.getpid(), os.path.realpath(path)


def _release(lock_file: LockFile, *, user: bool) -> None:
    """One store (``user``) or one turn stops using the file; the last one out closes it.

    Called with ``_GUARD`` held, so nobody can pick the file up while it closes.
    """
    if user:
        lock_file.users -= 1
    else:
        lock_file.active -= 1
    if lock_file.users > 0 or lock_file.active > 0:
        return
    key = _registry_key(lock_file.path)
    if _LOCK_FILES.get(key) is lock_file:
        del _LOCK_FILES[key]
    os.close(lock_file.fd)
