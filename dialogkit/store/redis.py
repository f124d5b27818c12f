"""``redis://host:port/db``: sessions shared by many processes or machines.

Keys (``prefix`` defaults to ``dialogkit:``)::

    {prefix}session:{id}    string  the session blob, without history
    {prefix}history:{id}    list    one JSON message per entry, RPUSH-appended, never rewritten
    {prefix}user:{user_id}  hash    slot name -> persisted value (persist: user)
    {prefix}lock:{id}       string  the turn lock: "host:pid:token", SET NX PX (a lease)
    {prefix}updated         zset    session id -> updated_at, for purge_expired
    {prefix}sessions_of:{user_id}   set   the ids of a user's sessions (``sessions_of``)
    {prefix}trimmed         hash    session id -> messages retention deleted from the list's head
    {prefix}indexed         string  set once ``sessions_of`` sets cover the sessions stored before them
    {prefix}waiting:{id}    string  set (briefly) while a turn waits for the session's lock
    {prefix}wake:{id}       list    pushed by a release while someone waits; waiters BLPOP it

A turn is two scripts (``redis_scripts``): lock and load, then commit and unlock. The commit
writes only while the lock still holds the turn's token, so a turn whose lease expired and was
taken over commits nothing instead of overwriting the newer turn. A turn writes
``sessions_of`` only when its session is new or changes user. History indexes are absolute: the
``trimmed`` count plus the position in the list, so messages keep their index after a purge.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from dialogkit.errors import StoreError
from dialogkit.model.session import Message, PersistedValue, Session
from dialogkit.store.cache import SessionCache
from dialogkit.store.codec import decode_messages, decode_session, decode_slots, older_prefix, written_before
from dialogkit.store.locks import HOST
from dialogkit.store.protocol import slice_bounds
from dialogkit.store.redis_async import AsyncRedis
from dialogkit.store.redis_scripts import (
    COMMIT,
    LOCK_LOAD,
    Loaded,
    LockKeys,
    after_try,
    check_committed,
    commit_args,
    lock_args,
    read_loaded,
    remember,
)
from dialogkit.store.secrets import open_row
from dialogkit.store.staging import PendingWrite, StagedTxn, reading_first
from dialogkit.store.urls import redact_url

__all__ = ["STORE_SCHEMA", "RedisStore"]

STORE_SCHEMA = 1

class RedisStore:
    """Sessions in Redis; ``redis`` (the optional dependency) is imported only when used."""

    def __init__(self, url: str, *, prefix: str | None = None, lock_lease_s: float = 120.0,
                 connect_timeout_s: float = 5.0) -> None:
        try:
            import redis
        except ImportError as exc:   # pragma: no cover - redis is a declared extra
            raise StoreError("the redis store needs the 'redis' package: pip install 'dialogkit[redis]'") from exc
        self._redis = redis
        self.url = redact_url(url)
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        self.prefix = prefix if prefix is not None else query.pop("prefix", "dialogkit:")
        client_url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
        self.lock_lease_s = lock_lease_s
        if parts.scheme == "rediss":
            _check_tls(parts.hostname or "localhost", parts.port or 6379, connect_timeout_s, self.url)
        options: dict[str, Any] = {"decode_responses": True, "socket_connect_timeout": connect_timeout_s,
                                   "socket_timeout": max(connect_timeout_s, 30.0)}
        try:
            self._client = redis.Redis.from_url(client_url, **options)
        except (ValueError, redis.RedisError) as exc:
            raise StoreError(f"invalid redis store URL {self.url}: {exc}") from exc
        self._cache = SessionCache()          # the sessions this process committed last
        self._async = AsyncRedis(client_url, prefix=self.prefix, lease_ms=self._lease_ms, describe=self.url,
                                 client_options=options, cache=self._cache, read_user_slots=self.user_slots,
                                 mark_running=self.mark_running)
        self._lock_load = self._client.register_script(LOCK_LOAD)
        self._commit_script = self._client.register_script(COMMIT)
        with self._errors():
            self._client.ping()
            self._client.set(self._key("schema"), str(STORE_SCHEMA), nx=True)
            found = self._client.get(self._key("schema"))
        if found != str(STORE_SCHEMA):
            raise StoreError(f"session store {self.url} has schema version {_text(found)}; "
                             f"this dialogkit reads version {STORE_SCHEMA}")
        self._index_users()

    # ------------------------------------------------------------------ public API

    @contextmanager
    def transaction(
        self, session_id: str, *, history_tail: int = 200, timeout_s: float = 30.0, users: tuple[str, ...] = ()
    ) -> Iterator[StagedTxn]:
        """Lock and load in one script (with the values of ``users``), commit and unlock in another:
        two round trips a turn."""
        token = self._token()
        keys = LockKeys.of(self.prefix, session_id)
        loaded = self._lock(session_id, token, timeout_s, tail=history_tail, users=users)
        try:
            txn = StagedTxn(session_id, loaded.session, loaded.count, reading_first(loaded.users, self.user_slots),
                            self.mark_running)
            yield txn
        except BaseException:
            self._unlock(keys, token)
            raise
        self._unlock(keys, token, txn.pending, loaded.base)
        remember(self._cache, txn.pending, loaded.base, history_tail)

    def atransaction(self, session_id: str, *, history_tail: int = 200, users: tuple[str, ...] = (),
                     timeout_s: float = 30.0) -> AbstractAsyncContextManager[StagedTxn]:
        """``transaction`` on an event loop (``Bot.ahandle``): the same two scripts, awaited, with
        the persisted values of ``users`` read along with the session (a turn reads its user's)."""
        return self._async.transaction(session_id, self._token(), history_tail=history_tail, users=users,
                                       timeout_s=timeout_s)

    async def arun_script(self, source: str, keys: list[str], args: list[str]) -> Any:
        """Run a Lua script on the store's asyncio client, under its keys (``prefix``): the server
        keeps its rate limits this way, shared by every worker; a failure is a ``StoreError``."""
        return await self._async.run_script(source, keys, args)

    async def aclose(self) -> None:
        """Close the asyncio client of the running loop (the sync client stays for ``close``)."""
        await self._async.aclose()

    def load(self, session_id: str, *, history_tail: int | None = 200) -> Session | None:
        return self._read(session_id, history_tail)[0]

    def history(self, session_id: str, start: int = 0, end: int | None = None) -> list[Message]:
        key = self._key("history", session_id)
        with self._errors():
            pipe = self._client.pipeline(transaction=True)
            pipe.llen(key)
            pipe.hget(self._key("trimmed"), session_id)
            length, trimmed = pipe.execute()
            base = int(trimmed or 0)
            lo, hi = slice_bounds(base + length, start, end)
            lo, hi = max(0, lo - base), max(0, hi - base)
            rows = self._client.lrange(key, lo, hi - 1) if hi > lo else []
        return decode_messages(session_id, [_text(row) for row in rows])

    def user_slots(self, user_id: str) -> dict[str, PersistedValue]:
        with self._errors():
            raw = self._client.hgetall(self._key("user", user_id))
        return decode_slots(user_id, ((_text(name), _text(data)) for name, data in raw.items()))

    def delete_session(self, session_id: str, *, timeout_s: float = 30.0) -> int:
        """Delete under the session's turn lock: a running turn ends first, and cannot commit after."""
        token = self._token()
        self._lock(session_id, token, timeout_s, load=False)
        try:
            return self._delete(session_id)
        finally:
            self._unlock(LockKeys.of(self.prefix, session_id), token)

    def purge_expired(self, older_than: float) -> int:
        """Delete sessions idle since before ``older_than``; user slots and running turns survive.

        Each session is deleted under its turn lock, taken without waiting, and only if it is
        still idle then: a turn that is running, or committed since the scan, keeps it.
        """
        purged = 0
        updated = self._key("updated")
        with self._errors():
            for member in self._client.zrangebyscore(updated, "-inf", f"({older_than!r}"):
                sid = _text(member)
                token = self._token()
                if not self._client.set(self._key("lock", sid), token, nx=True, px=self._lease_ms):
                    continue
                try:
                    score = self._client.zscore(updated, sid)
                    if score is not None and score < older_than:
                        self._delete(sid)
                        purged += 1
                finally:
                    self._unlock(LockKeys.of(self.prefix, sid), token)
        return purged

    def mark_running(self, session_id: str, key: str, at: float) -> float | None:
        """``StoreTxn.mark_running``: one HSETNX (Redis applies each write durably as its
        persistence is configured); the hash goes with the session."""
        runs = self._key("runs", session_id)
        with self._errors():
            if self._client.hsetnx(runs, key, repr(at)):
                return None
            earlier = self._client.hget(runs, key)
        return float(_text(earlier)) if earlier is not None else None

    def sessions_of(self, user_id: str) -> list[str]:
        """The user's set, less ids whose session is gone (dropped from the set on the way)."""
        key = self._key("sessions_of", user_id)
        with self._errors():
            ids = sorted(_text(m) for m in self._client.smembers(key))
            pipe = self._client.pipeline(transaction=False)
            for sid in ids:
                pipe.exists(self._key("session", sid))
            alive = pipe.execute() if ids else []
            stale = [sid for sid, there in zip(ids, alive, strict=True) if not there]
            if stale:
                self._client.srem(key, *stale)
        return [sid for sid, there in zip(ids, alive, strict=True) if there]

    def user_keys(self) -> list[str]:
        head = f"{self.prefix}user:"
        with self._errors():
            found = {_text(k)[len(head):] for k in self._client.scan_iter(match=_glob_escape(head) + "*", count=500)}
        return sorted(found)

    def delete_user_slots(self, key: str, *, older_than: float | None = None) -> int:
        name = self._key("user", key)
        with self._errors(), self._client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(name)  # type: ignore[no-untyped-call]  # untyped in redis' hints
                    raw = cast(dict[str, str], pipe.hgetall(name))
                    doomed = [field for field, data in raw.items()
                              if older_than is None or written_before(data, older_than)]
                    if not doomed:
                        pipe.reset()
                        return 0
                    pipe.multi()
                    pipe.hdel(name, *doomed)
                    pipe.execute()
                    return len(doomed)
                except self._redis.WatchError:
                    continue              # a turn wrote a value meanwhile: look again

    def purge_history(self, older_than: float) -> int:
        """Trim each history's head through its last message older than ``older_than``."""
        with self._errors():
            ids = [_text(m) for m in self._client.zrange(self._key("updated"), 0, -1)]
            return sum(self._trim_history(sid, older_than) for sid in ids)

    def close(self) -> None:
        with self._errors():
            self._client.close()

    # ------------------------------------------------------------------ internals

    def _key(self, kind: str, name: str = "") -> str:
        return f"{self.prefix}{kind}:{name}" if name else f"{self.prefix}{kind}"

    @property
    def _lease_ms(self) -> int:
        return max(1, int(self.lock_lease_s * 1000))

    def _delete(self, session_id: str) -> int:
        """Delete a session, its history and its index entries (its lock is held); messages deleted."""
        hist = self._key("history", session_id)
        with self._errors():
            owner = _owner(self._client.get(self._key("session", session_id)))
            pipe = self._client.pipeline(transaction=True)
            pipe.llen(hist)
            pipe.delete(self._key("session", session_id), hist, self._key("runs", session_id))
            pipe.zrem(self._key("updated"), session_id)
            pipe.hdel(self._key("trimmed"), session_id)
            if owner is not None:
                pipe.srem(self._key("sessions_of", owner), session_id)
            deleted: int = pipe.execute()[0]
        return deleted

    def _trim_history(self, session_id: str, older_than: float) -> int:
        """One session's retention: skipped while its turn runs (the lock is watched, so a turn
        that starts before the trim commits makes the trim do nothing)."""
        lock, hist = self._key("lock", session_id), self._key("history", session_id)
        with self._client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(lock, hist)  # type: ignore[no-untyped-call]  # untyped in redis' hints
                if pipe.exists(lock):
                    return 0
                cut = older_prefix([_text(r) for r in cast(list[str], pipe.lrange(hist, 0, -1))], older_than)
                if not cut:
                    return 0
                pipe.multi()
                pipe.ltrim(hist, cut, -1)
                pipe.hincrby(self._key("trimmed"), session_id, cut)
                pipe.execute()
            except self._redis.WatchError:
                return 0
        return cut

    def _index_users(self) -> None:
        """Build ``sessions_of`` for sessions stored before it existed, once per store (prefix)."""
        marker = self._key("indexed")
        with self._errors():
            if self._client.exists(marker):
                return
            ids = [_text(m) for m in self._client.zrange(self._key("updated"), 0, -1)]
            for start in range(0, len(ids), 500):
                batch = ids[start:start + 500]
                blobs = self._client.mget([self._key("session", sid) for sid in batch])
                pipe = self._client.pipeline(transaction=False)
                for sid, blob in zip(batch, blobs, strict=True):
                    owner = _owner(blob)
                    if owner is not None:
                        pipe.sadd(self._key("sessions_of", owner), sid)
                pipe.execute()
            self._client.set(marker, "1")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis failures become a StoreError naming the (password-free) URL."""
        try:
            yield
        except self._redis.RedisError as exc:
            raise StoreError(f"session store {self.url} failed: {exc}") from exc

    @staticmethod
    def _token() -> str:
        return f"{HOST}:{os.getpid()}:{uuid.uuid4().hex}"

    def _lock(self, session_id: str, token: str, timeout_s: float, *, tail: int | None = 0,
              load: bool = True, users: tuple[str, ...] = ()) -> Loaded:
        """Take the session's turn lock (and read the session, with ``load``); while another turn
        holds it, block on the session's wake list, which that turn's release pushes to."""
        cached = self._cache.take(session_id) if load else None
        names, args = lock_args(self.prefix, session_id, token, self._lease_ms, tail=tail, users=users, load=load,
                                cached=cached)
        keys = LockKeys.of(self.prefix, session_id)
        deadline = time.monotonic() + timeout_s
        with self._errors():
            while True:
                answer = self._lock_load(keys=names, args=args)
                step = after_try(answer, session_id, deadline, timeout_s, self.url)
                if step.taken:
                    return read_loaded(session_id, answer, users, cached) if load else Loaded(None, 0, 0, {})
                if step.dead_holder is not None:
                    self._unlock(keys, step.dead_holder)
                elif step.wait > 0:           # BLPOP's 0 would block for ever
                    self._client.blpop([keys.wake], timeout=step.wait)

    def _unlock(self, keys: LockKeys, token: str, pending: PendingWrite | None = None, base: int = 0) -> None:
        """Commit ``pending`` (if any) and release the lock, in one script; a turn whose lock was
        taken over writes nothing and fails."""
        names, args = commit_args(self.prefix, keys, token, pending, base)
        with self._errors():
            done = self._commit_script(keys=names, args=args)
        check_committed(done, pending)

    def _read(self, session_id: str, history_tail: int | None) -> tuple[Session | None, int, int]:
        """Blob, history length and tail in one MULTI/EXEC, so they describe the same moment; the
        session, its stored message count and the messages retention trimmed off the list's head."""
        hist = self._key("history", session_id)
        with self._errors():
            pipe = self._client.pipeline(transaction=True)
            pipe.get(self._key("session", session_id))
            pipe.llen(hist)
            if history_tail is None:
                pipe.lrange(hist, 0, -1)
            elif history_tail > 0:
                pipe.lrange(hist, -history_tail, -1)
            else:
                pipe.lrange(hist, 1, 0)      # an empty range: no tail wanted
            pipe.hget(self._key("trimmed"), session_id)
            blob, length, rows, trimmed = pipe.execute()
        if blob is None:
            return None, 0, 0
        base = int(trimmed or 0)
        count = base + length
        return decode_session(session_id, blob, rows, count - len(rows)), count, base


def _check_tls(host: str, port: int, timeout_s: float, describe: str) -> None:
    """Fail fast when a ``rediss://`` server does not answer a TLS handshake within ``timeout_s``.

    The client's handshake waits for the read timeout (30 s) and a plain Redis server never
    answers one, so a ``rediss://`` URL naming a plain server would hang the start that long.
    Only a timeout is reported here: any other TLS failure (certificates) is the client's to
    report, with the URL's own TLS options.
    """
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as raw, \
                context.wrap_socket(raw, server_hostname=host):
            return
    except TimeoutError as exc:
        raise StoreError(f"session store {describe} did not complete a TLS handshake within {timeout_s:g}s: "
                         f"is it a plain Redis server? Then use redis:// instead of rediss://") from exc
    except (OSError, ssl.SSLError):
        return                         # refused, or a certificate matter: the client says which


def _owner(blob: object) -> str | None:
    """The ``user_id`` of a stored session blob, read without decoding the session."""
    if blob is None:
        return None
    try:
        owner = json.loads(_text(open_row(blob) if isinstance(blob, (str, bytes)) else blob)).get("user_id")
    except (ValueError, AttributeError, StoreError):
        return None
    return owner if isinstance(owner, str) else None


def _glob_escape(text: str) -> str:
    """``text`` matched literally by a SCAN pattern (a prefix may hold ``*``, ``?`` or ``[``)."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def _text(value: object) -> str:
    """A reply as text: the client decodes replies, but its type hints allow bytes as well."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
