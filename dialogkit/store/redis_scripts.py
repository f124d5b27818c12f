"""The Redis store's turn in two round trips: two Lua scripts and the arguments they take.

``LOCK_LOAD`` takes a session's turn lock and, in the same call, reads what the turn needs (the
blob, the history's length and tail, the retention count, the user's persisted values); a turn
that finds the lock taken flags itself as waiting and learns who holds it. ``COMMIT`` writes a
turn's staged changes and releases the lock in one call, only while the lock still holds the
turn's token (a turn whose lease expired and was taken over writes nothing), then wakes one
waiter, if any is flagged, by pushing to the session's wake list, on which waiters block
(BLPOP) instead of sleeping and polling. A script runs atomically, as MULTI/EXEC did.

Nothing here does I/O: the sync store and the asyncio one send the same arguments and read the
same answers, so both run the same turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dialogkit.errors import StoreError
from dialogkit.model.session import PersistedValue, Session
from dialogkit.store.codec import decode_session, decode_slot
from dialogkit.store.staging import PendingWrite

__all__ = ["COMMIT", "LOCK_LOAD", "WAKE_POLL_S", "Loaded", "LockKeys", "check_committed", "commit_args", "lock_args",
           "read_loaded"]

WAKE_POLL_S = 0.2
"""How long a waiter blocks on the wake list before it tries the lock again. A release wakes it at
once; the timeout only bounds how soon it notices a lease that expired or a holder that died."""
_FLAG_MS = 1000       # a waiting flag outlives a few BLOCK timeouts; each failed try sets it again

LOCK_LOAD = """
if not redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('set', KEYS[2], '1', 'PX', ARGV[5])
  return {0, redis.call('get', KEYS[1])}
end
if ARGV[3] == '' then return {1} end
local tail = tonumber(ARGV[3])
local rows = {}
if tail < 0 then rows = redis.call('lrange', KEYS[4], 0, -1)
elseif tail > 0 then rows = redis.call('lrange', KEYS[4], -tail, -1) end
local users = {}
for i = 6, #KEYS do users[#users + 1] = redis.call('hgetall', KEYS[i]) end
return {1, redis.call('get', KEYS[3]), redis.call('llen', KEYS[4]), rows,
        redis.call('hget', KEYS[5], ARGV[4]), users}
"""

COMMIT = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
local i = 3
for _ = 1, tonumber(ARGV[2]) do
  local argc = tonumber(ARGV[i + 2])
  redis.call(ARGV[i], KEYS[tonumber(ARGV[i + 1])], unpack(ARGV, i + 3, i + 2 + argc))
  i = i + 3 + argc
end
redis.call('del', KEYS[1])
if redis.call('exists', KEYS[2]) == 1 then
  redis.call('rpush', KEYS[3], '1')
  redis.call('pexpire', KEYS[3], ARGV[i])
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
    messages retention trimmed off the list's head, and the persisted values of the users asked for."""

    session: Session | None
    count: int
    base: int
    users: dict[str, dict[str, PersistedValue]]


def lock_args(prefix: str, session_id: str, token: str, lease_ms: int, *, tail: int | None = 0,
              users: tuple[str, ...] = (), load: bool = True) -> tuple[list[str], list[str]]:
    """KEYS and ARGV of ``LOCK_LOAD``; ``load=False`` only takes the lock; ``tail`` None: all history."""
    keys = LockKeys.of(prefix, session_id)
    names = [keys.lock, keys.waiting, f"{prefix}session:{session_id}", f"{prefix}history:{session_id}",
             f"{prefix}trimmed", *(f"{prefix}user:{user}" for user in users)]
    wanted = "" if not load else str(-1 if tail is None else max(0, tail))
    return names, [token, str(lease_ms), wanted, session_id, str(_FLAG_MS)]


def read_loaded(session_id: str, answer: list[Any], users: tuple[str, ...]) -> Loaded:
    """``LOCK_LOAD``'s answer after the lock was taken with ``load=True``."""
    _, blob, length, rows, trimmed, hashes = answer
    values = {user: _slots(user, raw) for user, raw in zip(users, hashes, strict=True)}
    if blob is None:
        return Loaded(None, 0, 0, values)
    base = int(trimmed or 0)
    count = base + int(length)
    texts = [_text(row) for row in rows]
    return Loaded(decode_session(session_id, _text(blob), texts, count - len(texts)), count, base, values)


def commit_args(prefix: str, keys: LockKeys, token: str, pending: PendingWrite | None,
                base: int) -> tuple[list[str], list[str | bytes]]:
    """KEYS and ARGV of ``COMMIT``: ``pending``'s writes (none: only release the lock)."""
    ops = _Ops([keys.lock, keys.waiting, keys.wake])
    if pending is not None and not pending.empty:
        _write(ops, prefix, pending, base)
    return ops.keys, [token, str(ops.count), *ops.args, str(_FLAG_MS)]


class _Ops:
    """Commands for ``COMMIT``: each names its key by its index in KEYS (Lua counts from 1)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.args: list[str | bytes] = []
        self.count = 0
        self._index = {key: n for n, key in enumerate(keys, 1)}

    def add(self, command: str, key: str, *args: str | bytes) -> None:
        index = self._index.get(key)
        if index is None:
            self.keys.append(key)
            index = self._index[key] = len(self.keys)
        self.args += [command, str(index), str(len(args)), *args]
        self.count += 1


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
        ops.add("zadd", f"{prefix}updated", repr(pending.updated_at), sid)
        if pending.user_changed:
            if pending.previous_user is not None:
                ops.add("srem", f"{prefix}sessions_of:{pending.previous_user}", sid)
            ops.add("sadd", f"{prefix}sessions_of:{pending.user_id}", sid)
    for (user_id, name), raw in pending.slots.items():
        if raw is None:
            ops.add("hdel", f"{prefix}user:{user_id}", name)
        else:
            ops.add("hset", f"{prefix}user:{user_id}", name, raw)


def check_committed(done: object, pending: PendingWrite | None) -> None:
    """``COMMIT`` answers 0 when the lock no longer held the turn's token: its writes are lost."""
    if not done and pending is not None and not pending.empty:
        raise StoreError(f"session {pending.session_id!r}: the turn's lock expired and was taken over before "
                         f"it could commit; nothing was saved")


def _slots(user_id: str, raw: Any) -> dict[str, PersistedValue]:
    """An HGETALL answer from inside a script: a flat list of field, value (RESP2) or a map (RESP3)."""
    pairs = raw.items() if isinstance(raw, dict) else zip(raw[::2], raw[1::2], strict=True)
    return {_text(name): decode_slot(user_id, _text(name), _text(data)) for name, data in pairs}


def _text(value: object) -> str:
    """A reply as text: the clients decode replies, but their type hints allow bytes as well."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
