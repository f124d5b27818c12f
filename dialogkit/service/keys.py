"""API keys with scopes: who may call which routes, and who may name a user (docs/serving.md,
"Keys and scopes").

A key is known only by its sha256 digest: the keys file and ``DIALOGKIT_API_KEYS`` hold digests,
never keys, so neither leaks a key that works. One line a key::

    # name   digest of the key    scopes       its own rate limit (optional)
    widget   sha256:9f86d08...    chat         rate=20/s burst=40
    backend  sha256:60303ae...    chat,users   rate=off

``--token`` / ``DIALOGKIT_TOKEN`` is one more key, named ``token``, with every scope. No key at
all is an open server (development): every route answers, but no turn may name a user, since
nothing tells who is asking.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dialogkit.errors import DialogkitError
from dialogkit.service.rates import LimitsError, parse_burst, parse_rate
from dialogkit.strings.suggest import did_you_mean

__all__ = ["KEYS_ENV", "SCOPES", "ApiKey", "KeyRing", "KeysError", "digest", "load_keys", "parse_keys", "with_token"]

KEYS_ENV = "DIALOGKIT_API_KEYS"
SCOPES = ("chat", "users", "admin", "inspector")
"""``chat``: the turn routes and the Rasa channel. ``users``: a turn may name a ``user_id``.
``admin``: reading and deleting sessions, users' export and forget, metrics. ``inspector``: the
inspector page (reading sessions and running turns)."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_PREFIX = "sha256:"


class KeysError(DialogkitError):
    """A keys file or ``DIALOGKIT_API_KEYS`` that cannot be used; the message says where."""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One key: its name (for logs and errors), the sha256 digest of the key, what it may do."""

    name: str
    digest: bytes
    scopes: frozenset[str]
    rate: float | None = None       # requests a second; None: the server's; 0: no limit (``limits``)
    burst: int | None = None        # None: the server's

    def may(self, scope: str) -> bool:
        return scope in self.scopes

    def __repr__(self) -> str:
        return f"ApiKey(name={self.name!r}, scopes={sorted(self.scopes)})"


@dataclass(frozen=True, slots=True)
class KeyRing:
    """The keys a server accepts; empty: an open server."""

    keys: tuple[ApiKey, ...] = ()

    @property
    def open(self) -> bool:
        return not self.keys

    def find(self, given: str | bytes) -> ApiKey | None:
        """The key ``given`` is, compared by digest in constant time against every key (how long
        it takes says nothing of which key came close)."""
        raw = given.encode() if isinstance(given, str) else given
        if not raw:
            return None
        seen = hashlib.sha256(raw).digest()
        found: ApiKey | None = None
        for key in self.keys:
            if hmac.compare_digest(seen, key.digest):
                found = key
        return found


def digest(key: str) -> str:
    """The hexadecimal sha256 of a key, as a keys file holds it (``printf %s KEY | sha256sum``)."""
    return hashlib.sha256(key.encode()).hexdigest()


def load_keys(path: str | Path | None, *, env: Mapping[str, str], token: str | None) -> KeyRing:
    """The keys of a server: the file's, then ``DIALOGKIT_API_KEYS``'s, then the token's."""
    keys: list[ApiKey] = []
    if path is not None:
        keys.extend(_read_file(Path(path)))
    if env.get(KEYS_ENV, "").strip():
        keys.extend(parse_keys(env[KEYS_ENV].replace(";", "\n"), KEYS_ENV))
    return with_token(tuple(keys), token)


def with_token(keys: tuple[ApiKey, ...], token: str | None) -> KeyRing:
    """``keys`` and the single token of ``--token`` / ``DIALOGKIT_TOKEN``: a key named ``token``
    with every scope."""
    every = list(keys)
    if token:
        every.append(ApiKey("token", hashlib.sha256(token.encode()).digest(), frozenset(SCOPES)))
    _check_unique(every)
    return KeyRing(tuple(every))


def parse_keys(text: str, source: str) -> tuple[ApiKey, ...]:
    """The keys of a file's text; ``KeysError`` at the first bad line, naming ``source``, the line
    and the column."""
    keys: list[ApiKey] = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        if body.strip():
            keys.append(_parse_line(body, _Where(source, number), keys))
    return tuple(keys)


@dataclass(frozen=True, slots=True)
class _Where:
    source: str
    line: int
    column: int = 0

    def at(self, column: int) -> _Where:
        return _Where(self.source, self.line, column)

    def error(self, message: str) -> KeysError:
        column = f", column {self.column}" if self.column else ""
        return KeysError(f"{self.source}, line {self.line}{column}: {message}")


def _parse_line(body: str, where: _Where, earlier: list[ApiKey]) -> ApiKey:
    fields = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", body)]
    if len(fields) < 3:
        raise where.error("expected 'NAME sha256:DIGEST SCOPES' (scopes among " + ", ".join(SCOPES) + ")")
    (name_at, name), (digest_at, hashed) = fields[0], fields[1]
    if not _NAME.fullmatch(name):
        raise where.at(name_at).error(f"the name {name!r} must be 1 to 64 letters, digits, '_', '.' or '-'")
    settings = [(at, field) for at, field in fields[2:] if "=" in field]
    scopes = [(at, field) for at, field in fields[2:] if "=" not in field]
    if not scopes:
        raise where.error("expected 'NAME sha256:DIGEST SCOPES' (scopes among " + ", ".join(SCOPES) + ")")
    rate, burst = _limit(settings, where)
    key = ApiKey(name, _digest(hashed, where.at(digest_at)), _scopes(scopes, where), rate, burst)
    for other in earlier:
        if other.name == key.name:
            raise where.at(name_at).error(f"the key {name!r} is named twice")
        if other.digest == key.digest:
            raise where.at(digest_at).error(f"{name!r} is the same key as {other.name!r}")
    return key


def _digest(field: str, where: _Where) -> bytes:
    if not field.startswith(_PREFIX):
        raise where.error(f"the key must be given as 'sha256:' and its digest (never the key itself), "
                          f"not {field[:12]!r}…")
    hexdigits = field[len(_PREFIX):].lower()
    if not _DIGEST.fullmatch(hexdigits):
        raise where.error("a sha256 digest is 64 hexadecimal digits (printf %s KEY | sha256sum)")
    return bytes.fromhex(hexdigits)


def _scopes(fields: list[tuple[int, str]], where: _Where) -> frozenset[str]:
    """The scopes, separated by commas, spaces or both; each one known."""
    scopes: set[str] = set()
    for start, field in fields:
        for part in re.finditer(r"[^,]+", field):
            scope = part.group()
            if scope not in SCOPES:
                guess = did_you_mean(scope, SCOPES)
                hint = f" (did you mean {guess!r}?)" if guess else f"; scopes are {', '.join(SCOPES)}"
                raise where.at(start + part.start()).error(f"unknown scope {scope!r}{hint}")
            scopes.add(scope)
    return frozenset(scopes)


def _limit(settings: list[tuple[int, str]], where: _Where) -> tuple[float | None, int | None]:
    """``rate=`` (``20/s``, ``600/min``, ``off``) and ``burst=`` of a key's line (docs/serving.md,
    "Rate limits"); the server's where it says none."""
    rate: float | None = None
    burst: int | None = None
    for column, field in settings:
        name, _, value = field.partition("=")
        here = f"{where.source}, line {where.line}, column {column}"
        try:
            if name == "rate":
                rate = parse_rate(value, here) or 0.0
            elif name == "burst":
                burst = parse_burst(value, here)
            else:
                raise where.at(column).error(f"unknown setting {name!r}: a key takes rate= and burst=")
        except LimitsError as exc:
            raise KeysError(str(exc)) from exc
    return rate, burst


def _read_file(path: Path) -> tuple[ApiKey, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KeysError(f"the keys file {path} cannot be read: {exc}") from exc
    keys = parse_keys(text, str(path))
    if not keys:
        raise KeysError(f"the keys file {path} holds no key: add lines 'NAME sha256:DIGEST SCOPES'")
    return keys


def _check_unique(keys: list[ApiKey]) -> None:
    """Keys from the file, the environment and the token may share neither a name (errors and logs
    would be ambiguous) nor a digest (one key would have two sets of scopes)."""
    for index, key in enumerate(keys):
        for other in keys[:index]:
            if other.name == key.name:
                raise KeysError(f"the key name {key.name!r} is used twice (keys file, {KEYS_ENV}, --token)")
            if other.digest == key.digest:
                raise KeysError(f"{key.name!r} is the same key as {other.name!r} (keys file, {KEYS_ENV}, --token)")
