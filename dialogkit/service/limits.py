"""Rate limits: a token bucket per API key and one per session (docs/serving.md, "Rate limits").

A bucket holds up to ``burst`` tokens and gains ``per_s`` a second; a request takes one from each
of its buckets, or none when one of them is empty, and is then refused with 429 ``rate_limited``
and ``Retry-After``: the whole seconds until every bucket it needs has a token again.

Over Redis every worker takes from the same buckets, in one Lua script a request (read, refill,
take: atomic, one round trip), timed by Redis's own clock so workers on machines whose clocks
differ agree. Over any other store each process keeps its buckets in memory: with one worker
that is the same thing.

The key's bucket is checked for every request that needs a key, the session's for each of its
turns; both before the body is read (``RateLimit``, right after the guard). The Rasa channel names
its session in the body, so its session's bucket is taken by the route once the body is parsed
(``take_session``): a body is read once, and it is small (the body limit).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from dialogkit.errors import StoreError
from dialogkit.logging import get_logger
from dialogkit.service.access import key_of
from dialogkit.service.errors import ApiError, send_error
from dialogkit.service.guard import PUBLIC_PATHS
from dialogkit.service.ids import check_id
from dialogkit.service.keys import ApiKey
from dialogkit.service.rates import Limits, Rate

if TYPE_CHECKING:
    from dialogkit.store.redis import RedisStore

__all__ = ["Limiter", "MemoryBuckets", "RateLimit", "RedisBuckets", "limiter_for", "take_session"]

log = get_logger("dialogkit.service")


# ---- the buckets ---------------------------------------------------------------------------------

class Buckets(Protocol):
    async def take(self, wanted: list[tuple[str, Rate]]) -> float:
        """Take a token from each bucket, or from none; 0, or the seconds until all have one."""


class MemoryBuckets:
    """This process's buckets, the least recently used forgotten beyond ``limit`` (a forgotten
    bucket comes back full: it belonged to a client quiet for long)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, limit: int = 100_000) -> None:
        self.clock = clock
        self.limit = limit
        self._held: OrderedDict[str, tuple[float, float]] = OrderedDict()    # name -> (tokens, at)

    async def take(self, wanted: list[tuple[str, Rate]]) -> float:
        now = self.clock()
        levels = [_refilled(self._held.get(name), rate, now) for name, rate in wanted]
        wait = max((_wait(tokens, rate) for tokens, (_, rate) in zip(levels, wanted, strict=True)), default=0.0)
        if wait > 0:
            return wait
        for tokens, (name, _) in zip(levels, wanted, strict=True):
            self._held.pop(name, None)
            self._held[name] = (tokens - 1, now)
        while len(self._held) > self.limit:
            self._held.popitem(last=False)
        return 0.0


def _refilled(held: tuple[float, float] | None, rate: Rate, now: float) -> float:
    if held is None:
        return float(rate.burst)
    tokens, at = held
    return min(float(rate.burst), tokens + max(0.0, now - at) * rate.per_s)


def _wait(tokens: float, rate: Rate) -> float:
    return 0.0 if tokens >= 1 else (1 - tokens) / rate.per_s


TAKE = """
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local wait, levels = 0, {}
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local held = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens, at = tonumber(held[1]), tonumber(held[2])
  if not tokens then tokens, at = burst, now end
  if now > at then tokens = math.min(burst, tokens + (now - at) * rate) end
  levels[i] = {tokens, math.max(now, at)}
  if tokens < 1 then wait = math.max(wait, (1 - tokens) / rate) end
end
if wait > 0 then return tostring(wait) end
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i][1] - 1), 'at', tostring(levels[i][2]))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
end
return '0'
"""
"""KEYS: one hash per bucket ({tokens, at}); ARGV: now in seconds ('' for Redis's clock), then each
bucket's rate and burst. Refills, then takes a token from every bucket or from none; answers the
seconds to wait, '0' when taken. A bucket expires once it would be full again."""


class RedisBuckets:
    """The buckets every worker on the store shares, under the store's prefix (``rate:NAME``)."""

    def __init__(self, store: RedisStore, clock: Callable[[], float] | None = None) -> None:
        self.store = store
        self.clock = clock            # None: Redis's clock (what workers on several machines agree on)

    async def take(self, wanted: list[tuple[str, Rate]]) -> float:
        keys = [f"{self.store.prefix}rate:{name}" for name, _ in wanted]
        args = ["" if self.clock is None else repr(self.clock())]
        for _, rate in wanted:
            args.extend((repr(rate.per_s), str(rate.burst)))
        answer = await self.store.arun_script(TAKE, keys, args)
        return float(answer)


def limiter_for(store: object, limits: Limits, keys: tuple[ApiKey, ...],
                clock: Callable[[], float] | None = None) -> Limiter:
    """The app's limiter: its buckets in the Redis store, shared by every worker, or in memory;
    ``clock`` (tests) times them instead of Redis's clock or the process's monotonic one."""
    from dialogkit.store.redis import RedisStore

    buckets: Buckets = RedisBuckets(store, clock) if isinstance(store, RedisStore) else \
        MemoryBuckets(clock or time.monotonic)
    return Limiter(limits, buckets, keys)


# ---- what a request takes ------------------------------------------------------------------------

class Limiter:
    """Which buckets a request takes from, and taking them."""

    def __init__(self, limits: Limits, buckets: Buckets, keys: tuple[ApiKey, ...] = ()) -> None:
        self.limits = limits
        self.buckets = buckets
        self.active = limits.active or any(key.rate for key in keys)

    async def take(self, scope: Scope) -> float:
        """0 when the request may go on, else the seconds to wait: its key's bucket (its client's
        address on a server without keys) and, for a turn, its session's."""
        wanted: list[tuple[str, Rate]] = []
        key_rate = self._key_bucket(scope)
        if key_rate is not None:
            wanted.append(key_rate)
        session = _turn_session(scope["method"], scope["path"])
        session_rate = self._session_bucket(session) if session is not None else None
        if session_rate is not None:
            wanted.append(session_rate)
        return await self._take(wanted)

    async def take_session(self, session_id: str) -> float:
        if self.limits.session is None:
            return 0.0
        return await self._take([(f"session:{session_id}", self.limits.session)])

    async def take_turn(self, key: ApiKey | None, client: str, session_id: str) -> float:
        """A turn that came by another way than an HTTP request (the widget's socket, whose key
        arrives in its hello): the same buckets a turn on the JSON API takes from."""
        if not self.active:
            return 0.0
        wanted = [bucket for bucket in (self._bucket_of(key, client), self._session_bucket(session_id))
                  if bucket is not None]
        return await self._take(wanted)

    def _session_bucket(self, session_id: str) -> tuple[str, Rate] | None:
        return None if self.limits.session is None else (f"session:{session_id}", self.limits.session)

    async def _take(self, wanted: list[tuple[str, Rate]]) -> float:
        if not wanted:
            return 0.0
        try:
            return await self.buckets.take(wanted)
        except StoreError as exc:       # the turn will say the store is down; a limit is no reason to
            log.warning("rate_limit_unavailable", error=str(exc))
            return 0.0

    def _key_bucket(self, scope: Scope) -> tuple[str, Rate] | None:
        client = scope.get("client")
        return self._bucket_of(key_of(Request(scope)), client[0] if client else "-")

    def _bucket_of(self, key: ApiKey | None, client: str) -> tuple[str, Rate] | None:
        """The key's bucket; the client address's on a server without keys."""
        if key is None:
            return None if self.limits.key is None else (f"client:{client}", self.limits.key)
        rate = _rate_of(key, self.limits.key)
        return None if rate is None else (f"key:{key.name}", rate)


def _rate_of(key: ApiKey, default: Rate | None) -> Rate | None:
    """The key's own rate and burst (keys file) where it sets them, the server's elsewhere; a
    rate without a burst gets the server's burst, or two seconds' worth."""
    per_s = key.rate if key.rate is not None else (default.per_s if default is not None else None)
    if not per_s:
        return None
    return Rate(per_s, key.burst or (default.burst if default is not None else max(1, math.ceil(2 * per_s))))


def _turn_session(method: str, path: str) -> str | None:
    """The session id of a turn on the JSON API (a valid one: an invalid id is the route's 422)."""
    parts = path.split("/")
    if method != "POST" or len(parts) != 5 or parts[1:3] != ["v1", "sessions"] or parts[4] != "turns":
        return None
    try:
        return check_id(parts[3])
    except ApiError:
        return None


def retry_after(wait: float) -> str:
    """``Retry-After`` in whole seconds, at least 1 (0 would invite the same request at once)."""
    return str(max(1, math.ceil(wait)))


def refused(wait: float) -> ApiError:
    return ApiError(429, "rate_limited", f"too many requests; try again in {retry_after(wait)} s",
                    {"Retry-After": retry_after(wait)},
                    hint="wait Retry-After seconds before the next request; a busier client needs a key with a "
                         "higher rate (rate= and burst= in the keys file)")


async def take_session(request: Request, session_id: str) -> None:
    """The session's bucket, for a route that reads the session from its body (the Rasa channel);
    429 ``rate_limited`` when it is empty."""
    limiter = getattr(request.app.state, "limiter", None)
    if isinstance(limiter, Limiter):
        wait = await limiter.take_session(session_id)
        if wait > 0:
            raise refused(wait)


class RateLimit:
    """ASGI middleware behind the guard (which has found the key): 429 before the body is read."""

    def __init__(self, app: ASGIApp, *, limiter: Limiter, count: Callable[[str], None]) -> None:
        self.app = app
        self.limiter = limiter
        self.count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.limiter.active or _public(scope["path"]):
            await self.app(scope, receive, send)
            return
        wait = await self.limiter.take(scope)
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        error = refused(wait)
        self.count(error.code)
        await send_error(send, 429, error.code, str(error.detail), [(b"retry-after", retry_after(wait).encode())],
                         hint=error.hint)


def _public(path: str) -> bool:
    """Health checks and pages without data: a load balancer's probes are never limited."""
    return path in PUBLIC_PATHS or path.startswith("/static/")
