"""What a store URL says: the default one, the file a ``sqlite:///`` URL names, and the URL safe to show.

SQLite paths follow SQLAlchemy's convention, so URLs people already know mean the same here:
``sqlite:///sessions.db`` is relative to the working directory, ``sqlite:////var/db/s.db``
(four slashes) is absolute. A URL may carry a password (``redis://:secret@host``), so every
error and log line shows it through ``redact_url``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from dialogkit.errors import StoreError

__all__ = ["DEFAULT_STORE_URL", "check_network_url", "redact_url", "sqlite_path"]

DEFAULT_STORE_URL = "sqlite:///./.dialogkit/sessions.db"
_CREDENTIALS = re.compile(r"(://)[^/@]*@")
_UNUSABLE = re.compile("[\x00\ud800-\udfff]")


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to show in errors and logs.

    A URL too broken to split (``redis://[::1``) loses everything between ``://`` and ``@``.
    """
    try:
        parts = urlsplit(url)
        password, port = parts.password, parts.port
    except ValueError:
        return _CREDENTIALS.sub(r"\1***@", url)
    if password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def sqlite_path(url: str) -> Path:
    """The file a ``sqlite:///`` URL names, checked so a typo fails before anything is created.

    ``~`` at the start of the path is the user's home directory (``sqlite:///~/bot/s.db``).
    Query options (``?mode=ro``) are refused: a session store is written on every turn.
    """
    rest = url.partition("://")[2]
    if not rest.startswith("/"):
        raise StoreError(f"{url!r}: a SQLite URL has three slashes before the path, "
                         f"as in sqlite:///sessions.db (relative) or sqlite:////abs/sessions.db")
    raw, _, query = rest[1:].partition("?")
    if query:
        raise StoreError(f"{url!r}: SQLite URL options (?{query}) are not supported; a session store is "
                         f"written on every turn, so it cannot be read-only: remove the '?' part")
    if _UNUSABLE.search(raw):
        raise StoreError(f"{url!r}: the SQLite path holds a NUL or an unpaired surrogate character, "
                         f"which no file name can hold; check how the URL was built")
    if not raw or raw.endswith("/"):
        raise StoreError(f"{url!r}: the SQLite store needs a file path, as in sqlite:///.dialogkit/sessions.db")
    if raw == ":memory:":
        raise StoreError(f"{url!r}: an in-memory SQLite file would not be shared between threads; "
                         f"use memory:// instead")
    return Path(raw).expanduser()


def check_network_url(url: str) -> None:
    """Refuse a server URL that cannot be split into host and port (``redis://[::1``, a port of
    ``x``) with a hint, before a client library raises its own error."""
    try:
        urlsplit(url).port  # noqa: B018 -- reading the port is what checks it
    except ValueError as error:
        raise StoreError(f"{redact_url(url)!r} is not a valid server URL ({error}); write it as "
                         f"redis://host:6379/0, with an IPv6 host in brackets: redis://[::1]:6379/0") from None
