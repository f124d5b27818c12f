"""How much of a message the bot reads and keeps, and the cleaning every input goes through.

One cap for understanding, shared by the turn and every rule, so a span a rule reports always
lies inside what the turn read. A chat turn is a few hundred characters; a pasted log or a
1 MB message would only make every regex and n-gram pass slower without adding anything a slot
could use. Text past the cap is kept in the history (up to ``MAX_STORED_CHARS``) but yields no
mentions, intents or cues.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_UNDERSTOOD_CHARS = 4000
"""Understanding reads at most this many characters of a message; the reply says so when it cut."""

MAX_STORED_CHARS = 65536
"""A message longer than this is stored truncated, with a marker, so one paste cannot bloat a session."""


def clean_text(text: Any) -> str:
    """Any input -> printable text: bytes decoded, control characters and lone surrogates removed.

    A caller may hand the bot bytes, ``None`` or a number as well as a string; every layer after
    this one may then assume valid, printable UTF-8.
    """
    if isinstance(text, str):
        value = text
    elif isinstance(text, bytes):
        value = text.decode("utf-8", errors="replace")
    else:
        value = "" if text is None else str(text)
    if value.isprintable():          # the common case: nothing to remove, no per-character scan
        return value.strip()
    value = value.encode("utf-8", errors="replace").decode("utf-8")
    return "".join(ch for ch in value if ch in "\n\t" or unicodedata.category(ch)[0] != "C").strip()
