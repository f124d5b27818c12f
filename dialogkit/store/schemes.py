"""Store URLs -> stores: the one place that knows ``memory://``, ``sqlite:///`` and ``redis://``.

Each store module is imported only when its scheme is opened, so ``import dialogkit`` never
loads the optional ``redis`` package, nor the Redis store that needs it.
"""

from __future__ import annotations

from dialogkit.errors import StoreError
from dialogkit.store.protocol import SessionStore
from dialogkit.store.urls import DEFAULT_STORE_URL, check_network_url, redact_url, sqlite_path

__all__ = ["open_store"]

_KINDS = "memory://, sqlite:///path/to/sessions.db or redis://host:port/db"


def open_store(url: str | None) -> SessionStore:
    """Open the store a URL names; ``None`` opens the default SQLite file in the working directory.

    Every mistake in the URL is a ``StoreError`` that says what is accepted, with any password
    in the URL masked.
    """
    if url is not None and not isinstance(url, str):
        raise StoreError(f"a store URL is a string such as {_KINDS}, not {type(url).__name__}"
                         + (f" (did you mean 'sqlite:///{url}'?)" if hasattr(url, "__fspath__") else ""))
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
        check_network_url(url)
        from dialogkit.store.redis import RedisStore

        return RedisStore(url)
    raise StoreError(f"unsupported store URL {redact_url(url)!r}; use {_KINDS}")
