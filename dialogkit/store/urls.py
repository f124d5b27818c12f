"""Store URLs -> stores: the one place that knows ``memory://``, ``sqlite:///`` and ``redis://``.

SQLite paths follow SQLAlchemy's convention, so URLs people already know mean the same here:
``sqlite:///sessions.db`` is relative to the working directory, ``sqlite:////var/db/s.db``
(four slashes) is absolute.
"""

from __future__ import annotations

from pathlib import Path

from dialogkit.errors import StoreError
from dialogkit.store.base import SessionStore, redact_url

__all__ = ["DEFAULT_STORE_URL", "open_store", "sqlite_path"]

DEFAULT_STORE_URL = "sqlite:///./.dialogkit/sessions.db"

_KINDS = "memory://, sqlite:///path/to/sessions.db or redis://host:port/db"


def open_store(url: str | None) -> SessionStore:
    """Open the store a URL names; ``None`` opens the default SQLite file in the working directory.

    Every mistake in the URL is a ``StoreError`` that says what is accepted, with any password
    in the URL masked.
    """
    url = DEFAULT_STORE_URL if url is None else url.strip()
    if not url:
        raise StoreError(f"the store URL is empty; use {_KINDS}")
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep:
        hint = f" (did you mean sqlite:///{url}?)" if url.endswith((".db", ".sqlite", ".sqlite3")) else ""
        raise StoreError(f"{redact_url(url)!r} is not a store URL{hint}; use {_KINDS}")
    if scheme == "memory":
        if rest.strip("/"):
            raise StoreError(f"{url!r}: a memory store takes no path; write memory://")
        from dialogkit.store.memory import MemoryStore

        return MemoryStore()
    if scheme == "sqlite":
        from dialogkit.store.sqlite import SqliteStore

        return SqliteStore(sqlite_path(url), url=url)
    if scheme in ("redis", "rediss", "unix"):
        from dialogkit.store.redis import RedisStore

        return RedisStore(url)
    raise StoreError(f"unsupported store URL {redact_url(url)!r}; use {_KINDS}")


def sqlite_path(url: str) -> Path:
    """The file a ``sqlite:///`` URL names, checked so a typo fails before anything is created."""
    rest = url.partition("://")[2]
    if not rest.startswith("/"):
        raise StoreError(f"{url!r}: a SQLite URL has three slashes before the path, "
                         f"as in sqlite:///sessions.db (relative) or sqlite:////abs/sessions.db")
    raw = rest[1:].split("?", 1)[0]
    if not raw or raw.endswith("/"):
        raise StoreError(f"{url!r}: the SQLite store needs a file path, as in sqlite:///.dialogkit/sessions.db")
    if raw == ":memory:":
        raise StoreError(f"{url!r}: an in-memory SQLite file would not be shared between threads; "
                         f"use memory:// instead")
    return Path(raw).expanduser()
