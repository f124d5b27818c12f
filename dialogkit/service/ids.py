"""Which session and user ids the API accepts: 1 to 128 letters or digits of any script, ``_ - . : @``,
and not dots alone.

Ids become store keys, log fields and URL path segments; this set is safe in all three (no
slash, no space, no control or glob character) and leaves room for a UUID, an e-mail-like user
id, a channel prefix (``web:visitor-42``) or a name written in Chinese. An id of dots alone
(``.``, ``..``) is refused: sent percent-encoded (``%2e%2e``) it reaches a route decoded, and as a
path segment, a file name or a key prefix it means "here" or "the parent".
"""

from __future__ import annotations

import re

from dialogkit.service.errors import ApiError

__all__ = ["MAX_ID_CHARS", "check_id"]

MAX_ID_CHARS = 128

_ID = re.compile(rf"(?!\.+$)[\w.:@-]{{1,{MAX_ID_CHARS}}}")


def check_id(value: str, what: str = "session id") -> str:
    """``value`` when it is a valid id; else 422 ``invalid_id``."""
    if _ID.fullmatch(value) is None:
        shown = value if len(value) <= 40 else value[:40] + "…"
        raise ApiError(422, "invalid_id", f"invalid {what} {shown!r}: 1 to {MAX_ID_CHARS} letters, digits, "
                                          "'_', '-', '.', ':' or '@', "
                                          "and not dots alone")
    return value
