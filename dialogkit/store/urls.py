"""What a store URL says: the default one, the file a ``sqlite:///`` URL names, and the URL safe to show.

SQLite paths follow SQLAlchemy's convention, so URLs people already know mean the same here:
``sqlite:///sessions.db`` is relative to the working directory, ``sqlite:////var/db/s.db``
(four slashes) is absolute. A URL may carry a password (``redis://:secret@host``), so every
error and log line shows it through ``redact_url``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from dialogkit.errors import StoreError

__all__ = ["DEFAULT_STORE_URL", "redact_url", "sqlite_path"]

DEFAULT_STORE_URL = "sqlite:///./.dialogkit/sessions.db"


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to show in errors and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


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
