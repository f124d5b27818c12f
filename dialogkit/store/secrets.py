"""Sessions encrypted at rest: ``DIALOGKIT_SECRET_KEY`` seals what a store writes.

With the variable set, every session blob, history message and persisted value a store writes is
a Fernet token (``cryptography``: AES-128-CBC with an HMAC-SHA256, timestamped), so the SQLite
file or the Redis keys hold no sensitive value in clear, nor anything else a user said. Rows
written before the key was set stay readable; new ones are sealed. Several comma-separated keys
rotate: the first seals, any of them opens. Without the variable nothing is sealed, and a store
that persists warns once, at start, that sensitive values are stored in plain text until their
task ends (docs/stores.md, "Sensitive values at rest").

The key is read once per process (``reset`` reads it again, for tests).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from dialogkit.errors import StoreError
from dialogkit.logging import get_logger

__all__ = ["ENV", "PREFIX", "Box", "box", "open_row", "plain_at_rest", "reset", "seal_bytes", "seal_text",
           "warn_if_plain"]

log = get_logger("dialogkit.store")

ENV = "DIALOGKIT_SECRET_KEY"
PREFIX = "dk1:"                  # a sealed row starts so; a JSON row never does
_PREFIX_B = PREFIX.encode()
_MAKE_KEY = ('export DIALOGKIT_SECRET_KEY=$(python -c '
             '"from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())")')
_HINT = ('DIALOGKIT_SECRET_KEY must hold Fernet keys (comma-separated to rotate); make one with: '
         'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"')


class Box:
    """Seals and opens rows with the configured keys.

    ``cryptography`` is imported here, not at the top: a process without a key never needs it, and
    it costs about 8 MB of memory per worker.
    """

    def __init__(self, keys: str) -> None:
        from cryptography.fernet import Fernet, MultiFernet

        try:
            self._fernet = MultiFernet([Fernet(k.strip().encode()) for k in keys.split(",") if k.strip()])
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{ENV} is not a valid key: {exc}") from exc

    def seal(self, data: bytes) -> bytes:
        return _PREFIX_B + self._fernet.encrypt(data)

    def open(self, token: bytes) -> bytes:
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(token[len(_PREFIX_B):])
        except InvalidToken:
            raise StoreError(f"a stored row cannot be decrypted with {ENV}: another key sealed it "
                             "(list the old key after the new one to rotate)") from None


_state: dict[str, Box | None] = {}
_warned: set[str] = set()


def box() -> Box | None:
    """The process's ``Box``, or None when no key is set."""
    try:
        return _state["box"]
    except KeyError:
        keys = os.environ.get(ENV, "").strip()
        if keys and not any(k.strip() for k in keys.split(",")):
            keys = ""
        try:
            found = _state["box"] = Box(keys) if keys else None
        except StoreError as exc:
            raise StoreError(f"{exc}\n    hint: {_HINT}") from exc
        return found


def reset() -> None:
    """Read ``DIALOGKIT_SECRET_KEY`` again on next use (tests set and unset it)."""
    _state.clear()


def seal_bytes(data: bytes) -> bytes:
    sealer = box()
    return data if sealer is None else sealer.seal(data)


def seal_text(text: str) -> str:
    sealer = box()
    return text if sealer is None else sealer.seal(text.encode("utf-8")).decode("ascii")


def open_row(data: str | bytes) -> str | bytes:
    """A row as stored -> its JSON: sealed rows are opened, plain ones returned as they are."""
    raw = data.encode("ascii", "replace") if isinstance(data, str) and data.startswith(PREFIX) else data
    if isinstance(raw, bytes) and raw.startswith(_PREFIX_B):
        opener = box()
        if opener is None:
            raise StoreError(f"the store holds encrypted rows: set {ENV} to read them\n    hint: {_HINT}")
        return opener.open(raw)
    return data


def plain_at_rest(url: str) -> bool:
    """Whether what the store at ``url`` writes lies in clear outside the process: a store that
    persists (not ``memory://``) without a key."""
    return not url.startswith("memory:") and box() is None


def warn_if_plain(url: str, has_sensitive: Callable[[], bool]) -> None:
    """Once per store URL and process, when a bot that has sensitive slots starts a session on a
    store that persists without a key: its sensitive values are stored in clear."""
    if url in _warned or not plain_at_rest(url):
        return
    _warned.add(url)
    if not has_sensitive():
        return
    log.warning("sensitive_values_in_plain_text", store=url,
                hint=f"set {ENV} to encrypt what the store writes, sensitive values included: {_MAKE_KEY}; "
                     "without it they are stored in plain text until their task ends "
                     "(docs/stores.md, 'Sensitive values at rest')")
