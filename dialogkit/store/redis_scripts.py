"""The Redis store's turn in two round trips: two Lua scripts and the arguments they take.

``LOCK_LOAD`` takes a session's turn lock and, in the same call, reads what the turn needs (the
blob, the history's length and tail, the retention count, the user's persisted values); a turn
that finds the lock taken flags itself as waiting and learns who holds it. When this process
committed the session last (``SessionCache``) and the stored blob's SHA-1, history length and
retention count are still what it wrote, the script says so instead of sending the blob and the
tail, and the turn reuses the object it committed: decoding is most of a store's cost a turn.

``COMMIT`` writes a turn's staged changes and releases the lock in one call, only while the lock
still holds the turn's token (a turn whose lease expired and was taken over writes nothing),
then wakes a waiter, if one is flagged, by pushing to the session's wake list, on which waiters
block (BLPOP) instead of sleeping and polling. A script runs atomically, as MULTI/EXEC did.

Nothing here does I/O: the sync store and the asyncio one send the same arguments and read the
same answers, so both run the same turn.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from dialogkit.errors import StoreError
from dialogkit.model.session import Session
from dialogkit.store.cache import SessionCache
from dialogkit.store.codec import decode_session
from dialogkit.store.locks import HOST, lock_timeout_message, pid_alive
from dialogkit.store.staging import PendingWrite, UserRows

__all__ = ["COMMIT", "LOCK_LOAD", "WAKE_POLL_S", "Loaded", "LockKeys", "LockTry", "after_try", "check_committed",
           "commit_args", "lock_args", "read_loaded", "remember", "revision"]

WAKE_POLL_S = 0.2
"""How long a waiter blocks on the wake list before it tries the lock again. A release wakes it at
once; the timeout only bounds how soon it notices a lease that expired or a holder that died."""
_BASE_MASK = (1 << 64) - 1
Cached = tuple[int, Session]
_FLAG_MS = 1000       # a waiting flag outlives a few BLPOP timeouts; each failed try sets it again

LOCK_LOAD = """
if not redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('set', KEYS[2], '1', 'PX', ARGV[5])
  return {0, redis.call('get', KEYS[1])}
end
if ARGV[3] == '' then return {1} end
local blob = redis.call('get', KEYS[3])
local length = redis.call('llen', KEYS[4])
local trimmed = redis.call('hget', KEYS[5], ARGV[4])
local users = {}
for i = 6, #KEYS do users[#users + 1] = redis.call('hgetall', KEYS[i]) end
if blob and ARGV[6] ~= '' and length == tonumber(ARGV[7]) and (trimmed or '0') == ARGV[8]
   and string.sub(redis.sha1hex(blob), 1, 15) == ARGV[6] then
  return {2, false, length, {}, trimmed, users}
end
local tail = tonumber(ARGV[3])
local rows = {}
if tail < 0 then rows = redis.call('lrange', KEYS[4], 0, -1)
elseif tail > 0 then rows = redis.call('lrange', KEYS[4], -tail, -1) end
return {1, blob, length, rows, trimmed, users}
"""

COMMIT = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
local ops = {}
for word in string.gmatch(ARGV[2], '%S+') do ops[#ops + 1] = word end
local v = 4
for j = 1, #ops, 3 do
  local argc = tonumber(ops[j + 2])
  redis.call(ops[j], KEYS[tonumber(ops[j + 1])], unpack(ARGV, v, v + argc - 1))
  v = v + argc
end
redis.call('del', KEYS[1])
if redis.call('exists', KEYS[2]) == 1 then
  redis.call('rpush', KEYS[3], '1')
  redis.call('pexpire', KEYS[3], ARGV[3])
end
return 1
"""


@dataclass(frozen=True, slots=True)
class LockKeys:
    """One session's lock, its waiting flag and its wake list."""

    lock: str
    waiting: str
    wake: str

    @classmethod
    def of(cls, prefix: str, session_id: str) -> LockKeys:
        return cls(f"{prefix}lock:{session_id}", f"{prefix}waiting:{session_id}", f"{prefix}wake:{session_id}")


@dataclass(slots=True)
class Loaded:
    """What ``LOCK_LOAD`` read: the session (None: none stored), its stored message count, the
    messages retention trimmed off the list's head, and the stored rows of the users asked for."""

    session: Session | None
    count: int
    base: int
    users: UserRows


def lock_args(prefix: str, session_id: str, token: str, lease_ms: int, *, tail: int | None = 0,
              users: tuple[str, ...] = (), load: bool = True,
              cached: Cached | None = None) -> tuple[list[str], list[str]]:
    """KEYS and ARGV of ``LOCK_LOAD``; ``load=False`` only takes the lock; ``tail`` None: all history;
    ``cached``: the revision and object this process committed last, reused if still current."""
    keys = LockKeys.of(prefix, session_id)
    names = [keys.lock, keys.waiting, f"{prefix}session:{session_id}", f"{prefix}history:{session_id}",
             f"{prefix}trimmed", *(f"{prefix}user:{user}" for user in users)]
    wanted = "" if not load else str(-1 if tail is None else max(0, tail))
    return names, [token, str(lease_ms), wanted, session_id, str(_FLAG_MS), *_expected(cached)]


def revision(blob: bytes, base: int) -> int:
    """The ``SessionCache`` revision of a committed blob: its SHA-1's first 60 bits, and the
    retention count (``base``) it was committed with."""
    return int(hashlib.sha1(blob, usedforsecurity=False).hexdigest()[:15], 16) << 64 | base


def _expected(cached: Cached | None) -> list[str]:
    if cached is None:
        return ["", "", ""]
    rev, session = cached
    base = rev & _BASE_MASK
    return [format(rev >> 64, "015x"), str(session.history_offset + len(session.history) - base), str(base)]


def read_loaded(session_id: str, answer: list[Any], users: tuple[str, ...], cached: Cached | None = None) -> Loaded:
    """``LOCK_LOAD``'s answer after the lock was taken with ``load=True``."""
    found, blob, length, rows, trimmed, hashes = answer
    values = {user: _rows(raw) for user, raw in zip(users, hashes, strict=True)}
    base = int(trimmed or 0)
    if found == 2 and cached is not None:      # still what this process committed
        session = cached[1]
        return Loaded(session, session.history_offset + len(session.history), base, values)
    if blob is None:
        return Loaded(None, 0, 0, values)
    count = base + int(length)
    texts = [_text(row) for row in rows]
    return Loaded(decode_session(session_id, _text(blob), texts, count - len(texts)), count, base, values)


def commit_args(prefix: str, keys: LockKeys, token: str, pending: PendingWrite | None,
                base: int) -> tuple[list[str], list[str | bytes]]:
    """KEYS and ARGV of ``COMMIT``: ``pending``'s writes (none: only release the lock)."""
    ops = _Ops([keys.lock, keys.waiting, keys.wake])
    if pending is not None and not pending.empty:
        _write(ops, prefix, pending, base)
    return ops.keys, [token, " ".join(ops.header), str(_FLAG_MS), *ops.args]


class _Ops:
    """Commands for ``COMMIT``: one header word triple per command (its name, its key's index in
    KEYS, counted from 1 as Lua does, and how many values it takes) and the values, in order.
    The header is one argument: the client's cost is per argument."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.header: list[str] = []
        self.args: list[str | bytes] = []
        self._index = {key: n for n, key in enumerate(keys, 1)}

    def add(self, command: str, key: str, *args: str | bytes) -> None:
        index = self._index.get(key)
        if index is None:
            self.keys.append(key)
            index = self._index[key] = len(self.keys)
        self.header += [command, str(index), str(len(args))]
        self.args += args


def _write(ops: _Ops, prefix: str, pending: PendingWrite, base: int) -> None:
    sid = pending.session_id
    if pending.blob is not None:
        hist = f"{prefix}history:{sid}"
        ops.add("set", f"{prefix}session:{sid}", pending.blob)
        # Drop entries past the count this turn loaded (none unless the store was edited by hand:
        # a script runs whole or not at all). ``base``: the list's head is message ``base`` once
        # retention trimmed it.
        if pending.first_index > base:
            ops.add("ltrim", hist, "0", str(pending.first_index - base - 1))
        else:
            ops.add("del", hist)
        for message in pending.appended:      # one per command: Lua's unpack has a stack limit
            ops.add("rpush", hist, message)
        for index, row in pending.rewritten.items():
            if index >= base:               # a message retention trimmed is gone already
                ops.add("lset", hist, str(index - base), row)
        ops.add("zadd", f"{prefix}updated", repr(pending.updated_at), sid)
        if pending.user_changed:
            if pending.previous_user:
                ops.add("srem", f"{prefix}sessions_of:{pending.previous_user}", sid)
            if pending.user_id:             # an anonymous session is in no user's index
                ops.add("sadd", f"{prefix}sessions_of:{pending.user_id}", sid)
    for (user_id, name), raw in pending.slots.items():
        if raw is None:
            ops.add("hdel", f"{prefix}user:{user_id}", name)
        else:
            ops.add("hset", f"{prefix}user:{user_id}", name, raw)


@dataclass(frozen=True, slots=True)
class LockTry:
    """What a try of ``LOCK_LOAD`` says to do next: nothing (``taken``), free the lock of a holder
    that died on this host (``dead_holder``), or block on the wake list for ``wait`` seconds
    (0: try again at once, the lock went away between the two reads)."""

    taken: bool
    dead_holder: str | None = None
    wait: float = 0.0


def after_try(answer: list[Any], session_id: str, deadline: float, timeout_s: float, describe: str) -> LockTry:
    """The next step after a try of ``LOCK_LOAD``; raises the busy-session error past ``deadline``."""
    if answer[0] != 0:
        return LockTry(taken=True)
    holder = _text(answer[1]) if answer[1] is not None else None
    if holder is not None and holder_dead(holder):
        return LockTry(taken=False, dead_holder=holder)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise StoreError(lock_timeout_message(session_id, timeout_s, describe))
    return LockTry(taken=False, wait=0.0 if holder is None else min(WAKE_POLL_S, remaining))


def holder_dead(holder: str) -> bool:
    """Whether a lock's "host:pid:token" names a process of this host that is gone."""
    host, _, rest = holder.partition(":")
    pid, _, _ = rest.partition(":")
    return host == HOST and pid.isdecimal() and not pid_alive(int(pid))


def remember(cache: SessionCache, pending: PendingWrite, base: int, history_tail: int | None) -> None:
    """After a commit: keep the session it saved, so the next turn of it can skip decoding."""
    if pending.blob is not None and pending.session is not None:
        cache.keep(pending.session_id, revision(pending.blob, base), pending.session, history_tail)


def check_committed(done: object, pending: PendingWrite | None) -> None:
    """``COMMIT`` answers 0 when the lock no longer held the turn's token: its writes are lost."""
    if not done and pending is not None and not pending.empty:
        raise StoreError(f"session {pending.session_id!r}: the turn's lock expired and was taken over before "
                         f"it could commit; nothing was saved")


def _rows(raw: Any) -> dict[str, str]:
    """An HGETALL answer from inside a script: a flat list of field, value (RESP2) or a map (RESP3);
    decoded by the turn only if it asks for that user (``staging.reading_first``)."""
    pairs = raw.items() if isinstance(raw, dict) else zip(raw[::2], raw[1::2], strict=True)
    return {_text(name): _text(data) for name, data in pairs}


def _text(value: object) -> str:
    """A reply as text: the clients decode replies, but their type hints allow bytes as well."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
