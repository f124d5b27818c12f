"""What every session store promises, and the parts all of them share.

A turn runs inside ``store.transaction(session_id)``: the session's lock is held, the session is
loaded with the tail of its history, and everything the turn changes (the session blob, new
history messages, user-scoped slots) is *staged* and written atomically when the ``with`` block
exits normally. If the block raises, nothing is written: a crash mid-turn never leaves half a
turn behind.

Why history lives apart from the session blob: a turn at 2,000 stored messages must cost about
what a turn at 20 costs. The blob is saved without ``history``; messages are appended one row
(or list entry) each and never rewritten, and a load reads only the last ``history_tail`` of
them. ``Session.history_offset`` is the absolute index of ``history[0]``, so on save every
message whose absolute index is at or past the stored count is new.
"""

from __future__ import annotations

import os
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from dialogkit.errors import StoreError
from dialogkit.model.session import SCHEMA_VERSION, Message, PersistedValue, Session

__all__ = [
    "HOST",
    "KeyedLocks",
    "PendingWrite",
    "SessionStore",
    "StagedTxn",
    "StoreTxn",
    "decode_messages",
    "decode_session",
    "decode_slot",
    "encode_message",
    "encode_session",
    "encode_slot",
    "lock_timeout_message",
    "pid_alive",
    "redact_url",
    "slice_bounds",
]

HOST = socket.gethostname()
"""Recorded with cross-process locks so a lock left by a dead process on this host is reclaimed."""


@runtime_checkable
class StoreTxn(Protocol):
    """One turn of one session, run under that session's lock."""

    session: Session | None

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]: ...

    def set_user_slot(self, user_id: str, name: str, value: PersistedValue) -> None: ...

    def delete_user_slot(self, user_id: str, name: str) -> None: ...

    def save(self, session: Session) -> None: ...


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions, their full history and user-scoped slots live between turns."""

    url: str

    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0
    ) -> AbstractContextManager[StoreTxn]: ...

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None: ...

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]: ...

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]: ...

    def delete_session(self, session_id: str) -> None: ...

    def purge_expired(self, older_than: float) -> int: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- serialisation

_MESSAGES = TypeAdapter(list[Message])
_SESSION = TypeAdapter(Session)
_NOT_IN_BLOB = frozenset({"history"})


def encode_session(session: Session) -> bytes:
    """The session blob: everything but ``history``, which is stored message by message.

    UTF-8 bytes, as the serializer produces them: ``model_dump_json`` would decode them into a
    ``str`` that the store then encodes back to UTF-8 to write it (about 12 µs a turn for a 7 KB
    session with Chinese text). Every store and ``decode_session`` take the bytes as they are.
    """
    try:
        return _SESSION.dump_json(session, exclude=_NOT_IN_BLOB)
    except PydanticSerializationError as exc:
        raise StoreError(f"session {session.id!r} holds a value that cannot be saved: {exc}") from exc


def encode_message(session_id: str, message: Message) -> str:
    try:
        return message.model_dump_json()
    except PydanticSerializationError as exc:
        raise StoreError(f"session {session_id!r}: a history message cannot be saved: {exc}") from exc


def encode_slot(user_id: str, name: str, value: PersistedValue) -> str:
    try:
        return value.model_dump_json()
    except PydanticSerializationError as exc:
        raise StoreError(f"user {user_id!r}: slot {name!r} holds a value that cannot be saved: {exc}") from exc


def decode_session(session_id: str, blob: str | bytes, messages: list[str], offset: int) -> Session:
    """Rebuild a session from its blob and a tail of message rows starting at ``offset``.

    A corrupt row or a blob written by another schema version is a ``StoreError`` that names the
    session, so an operator can find and delete it; never a raw pydantic traceback.
    """
    try:
        session = Session.model_validate_json(blob)
    except ValidationError as exc:
        raise StoreError(f"session {session_id!r} is corrupt in the store and cannot be loaded: "
                         f"{_first_error(exc)}") from exc
    if session.version != SCHEMA_VERSION:
        raise StoreError(f"session {session_id!r} was saved with schema version {session.version}; "
                         f"this dialogkit reads version {SCHEMA_VERSION}")
    session.history = decode_messages(session_id, messages)
    session.history_offset = offset
    return session


def decode_messages(session_id: str, rows: list[str]) -> list[Message]:
    """Parse message rows in one pydantic call: one call for 200 rows is far cheaper than 200."""
    if not rows:
        return []
    try:
        return _MESSAGES.validate_json("[" + ",".join(rows) + "]")
    except ValidationError as exc:
        raise StoreError(f"session {session_id!r} has a corrupt history message: "
                         f"{_first_error(exc)}") from exc


def decode_slot(user_id: str, name: str, raw: str | bytes) -> PersistedValue:
    try:
        return PersistedValue.model_validate_json(raw)
    except ValidationError as exc:
        raise StoreError(f"user {user_id!r}: stored slot {name!r} is corrupt: {_first_error(exc)}") from exc


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid data"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "document"
    return f"{where}: {first.get('msg', 'invalid')}"


# --------------------------------------------------------------------------- staging

@dataclass
class PendingWrite:
    """Everything one turn commits, already serialised, so a commit is pure I/O."""

    session_id: str
    blob: bytes | None = None                # None: the session itself was not saved this turn
    user_id: str = ""
    updated_at: float = 0.0
    first_index: int = 0                     # absolute index of appended[0] (= stored count at load)
    appended: list[str] = field(default_factory=list)
    slots: dict[tuple[str, str], str | None] = field(default_factory=dict)   # None = delete
    session: Session | None = field(default=None, repr=False)   # the saved object (for a store's cache)

    @property
    def history_count(self) -> int:
        return self.first_index + len(self.appended)

    @property
    def empty(self) -> bool:
        return self.blob is None and not self.slots


class StagedTxn:
    """The ``StoreTxn`` every store hands out: reads go to the store, writes are staged.

    ``save`` serialises a snapshot immediately, so a caller that keeps mutating the session after
    saving does not change what is committed, and an unserialisable value fails at ``save`` (inside
    the turn) rather than at commit.
    """

    def __init__(
        self,
        session_id: str,
        session: Session | None,
        stored_count: int,
        read_user_slots: Callable[[str], dict[str, PersistedValue]],
    ) -> None:
        self.session = session
        self.pending = PendingWrite(session_id=session_id, first_index=stored_count)
        self._read_user_slots = read_user_slots
        self._user_reads: dict[str, dict[str, PersistedValue]] = {}

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        """The user's slots as this turn sees them: stored values plus this turn's staged writes.

        Read from the store once per turn and user (a turn asks when a task starts and again when
        it persists); this turn's own writes are laid over that snapshot on every call.
        """
        if user_id not in self._user_reads:
            self._user_reads[user_id] = self._read_user_slots(user_id)
        slots = dict(self._user_reads[user_id])
        for (owner, name), raw in self.pending.slots.items():
            if owner != user_id:
                continue
            if raw is None:
                slots.pop(name, None)
            else:
                slots[name] = decode_slot(user_id, name, raw)
        return slots

    def set_user_slot(self, user_id: str, name: str, value: PersistedValue) -> None:
        self.pending.slots[(user_id, name)] = encode_slot(user_id, name, value)

    def delete_user_slot(self, user_id: str, name: str) -> None:
        self.pending.slots[(user_id, name)] = None

    def save(self, session: Session) -> None:
        pending = self.pending
        if session.id != pending.session_id:
            raise StoreError(f"transaction for session {pending.session_id!r} cannot save "
                             f"session {session.id!r}")
        stored = pending.first_index
        if session.history_offset > stored:
            raise StoreError(f"session {session.id!r}: history starts at message "
                             f"{session.history_offset} but only {stored} are stored")
        skip = stored - session.history_offset
        appended = [encode_message(session.id, m) for m in session.history[skip:]]
        pending.blob = encode_session(session)
        pending.session = session
        pending.user_id = session.user_id
        pending.updated_at = session.updated_at
        pending.appended = appended


class SessionCache:
    """The sessions this process committed last, keyed by id, with the revision they were saved as.

    A turn takes its session out (so a turn that fails leaves nothing stale behind) and, if the
    stored revision is still the one it committed, reuses the object instead of decoding it again:
    decoding the session is the largest part of a turn's store cost. The revision is whatever
    token the store wrote with the session and can read back cheaply (the SQLite store: a random
    ``rev`` per commit). The object handed to ``save`` is taken over by the store; the runtime
    never touches it after the turn.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[str, tuple[int, Session]] = OrderedDict()
        self._guard = threading.Lock()

    def take(self, session_id: str) -> tuple[int, Session] | None:
        with self._guard:
            return self._items.pop(session_id, None)

    def keep(self, session_id: str, rev: int, session: Session, history_tail: int | None) -> None:
        """Remember ``session`` as committed with ``rev``, its history cut to what a load would return."""
        if history_tail is not None and len(session.history) > history_tail:
            drop = len(session.history) - history_tail
            del session.history[:drop]
            session.history_offset += drop
        with self._guard:
            self._items[session_id] = (rev, session)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._guard:
            self._items.clear()


# --------------------------------------------------------------------------- locks

@dataclass
class _LockEntry:
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
        self._locks: dict[Hashable, _LockEntry] = {}

    @contextmanager
    def hold(self, key: Hashable, timeout_s: float, describe: str, *, name: str | None = None) -> Iterator[None]:
        """Wait up to ``timeout_s`` for ``key``'s lock; the timeout error names ``name`` (default: the key)."""
        entry = self.acquire(key, timeout_s, describe, name=name)
        try:
            yield
        finally:
            self.release(key, entry)

    def acquire(self, key: Hashable, timeout_s: float, describe: str, *, name: str | None = None) -> _LockEntry:
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

    def release(self, key: Hashable, entry: _LockEntry) -> None:
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

    def _enter(self, key: Hashable) -> _LockEntry:
        with self._guard:
            entry = self._locks.setdefault(key, _LockEntry())
            entry.users += 1
            return entry

    def _leave(self, key: Hashable, entry: _LockEntry) -> None:
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


def slice_bounds(count: int, start: int, end: int | None) -> tuple[int, int]:
    """Python slice semantics for absolute history indexes (negative counts from the end)."""
    lo, hi, _ = slice(start, end).indices(count)
    return lo, max(lo, hi)


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to show in errors and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
