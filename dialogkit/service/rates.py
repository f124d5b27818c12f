"""How fast a client may call: a rate and a burst, as the command line, the environment and the
keys file write them, and the server's limits with their defaults (docs/serving.md, "Rate limits").
The buckets themselves are ``limits``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from dialogkit.errors import DialogkitError

__all__ = [
    "DEFAULT_KEY_RATE",
    "DEFAULT_SESSION_RATE",
    "LIMIT_ENVS",
    "NO_LIMITS",
    "Limits",
    "LimitsError",
    "Rate",
    "limits_from",
    "parse_burst",
    "parse_rate",
]


class LimitsError(DialogkitError):
    """A rate or a burst that cannot be used; the message names where it was given."""


@dataclass(frozen=True, slots=True)
class Rate:
    """A bucket: ``burst`` tokens at most, ``per_s`` more every second."""

    per_s: float
    burst: int

    def __str__(self) -> str:
        return f"{self.per_s:g}/s, burst {self.burst}"


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's buckets: one per key (``key``; a key may set its own in the keys file) and one
    per session (``session``). None: no such limit."""

    key: Rate | None = None
    session: Rate | None = None

    @property
    def active(self) -> bool:
        return self.key is not None or self.session is not None


NO_LIMITS = Limits()

DEFAULT_KEY_RATE = Rate(100.0, 200)
"""Per key: a key is a client (a widget shared by every visitor, a backend): generous, so it
bounds a runaway client rather than traffic. A busy backend sets its own in the keys file."""
DEFAULT_SESSION_RATE = Rate(2.0, 10)
"""Per session: a person types a message every few seconds at most; ten quick replies clicked in
a row still pass, a script hammering one conversation does not."""

LIMIT_ENVS = {"key_rate": "DIALOGKIT_KEY_RATE", "key_burst": "DIALOGKIT_KEY_BURST",
              "session_rate": "DIALOGKIT_SESSION_RATE", "session_burst": "DIALOGKIT_SESSION_BURST"}
_UNITS = {"s": 1.0, "sec": 1.0, "min": 60.0, "m": 60.0, "h": 3600.0}


def parse_rate(text: str, where: str) -> float | None:
    """Requests a second from ``10``, ``10/s``, ``600/min`` or ``3600/h``; None for ``off`` or 0."""
    raw = text.strip().lower()
    if raw in ("off", "none", "0"):
        return None
    number, _, unit = raw.partition("/")
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0 or (unit and unit not in _UNITS):
        raise LimitsError(f"{where}: a rate is a number of requests per second, minute or hour (10/s, 600/min, "
                          f"3600/h) or 'off', not {text!r}")
    return value / _UNITS[unit or "s"] if value > 0 else None


def parse_burst(text: str | int, where: str) -> int:
    raw = str(text).strip()
    if not raw.isdigit() or int(raw) < 1:
        raise LimitsError(f"{where}: a burst is a whole number of requests, 1 or more, not {text!r}")
    return int(raw)


def limits_from(given: Mapping[str, str | int | None], env: Mapping[str, str], *, keys: bool) -> Limits:
    """The server's limits from the command line's values (``key_rate``, ``key_burst``,
    ``session_rate``, ``session_burst``), else the environment's, else the defaults: on for a
    server with keys; an open server (development, bound to this machine) limits only what it is
    told to."""

    def value(name: str) -> tuple[str | int | None, str]:
        if given.get(name) is not None:
            return given[name], "--" + name.replace("_", "-")
        found = env.get(LIMIT_ENVS[name], "").strip()
        return (found or None), LIMIT_ENVS[name]

    def rate(kind: str, default: Rate) -> Rate | None:
        per_s, per_s_from = value(f"{kind}_rate")
        burst, burst_from = value(f"{kind}_burst")
        if per_s is None and burst is None and not keys:
            return None
        chosen = default.per_s if per_s is None else parse_rate(str(per_s), per_s_from)
        if chosen is None:
            return None
        return Rate(chosen, default.burst if burst is None else parse_burst(burst, burst_from))

    return Limits(key=rate("key", DEFAULT_KEY_RATE), session=rate("session", DEFAULT_SESSION_RATE))
