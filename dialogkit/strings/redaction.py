"""The one redaction: what a masked value looks like, and how values and PII are masked.

Logs, the context window, the LLM layer and exports all mask through these functions, so a
sensitive value looks the same wherever it is hidden.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

MASK = "***"

# An address starts only where its run of name characters starts: a long run without "@" is
# then tried once, not once per character (linear on 64 KB of letters, not quadratic).
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Every number starts with a digit, "+" or "(": the lookahead makes a position holding none of
# them cost one character test, where the look-behind and the optional prefix were tried at each.
PHONE = re.compile(r"(?=[\d+(])(?<!\d)(?:\+?\d{1,3}[\s-]?)?(?:1[3-9]\d{9}|\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4})(?!\d)")


def mask_pii(text: str) -> str:
    """Mask e-mail addresses and phone numbers in free text. Text without an "@" holds no
    address (most log fields, most turns): it is not scanned for one."""
    return PHONE.sub(MASK, EMAIL.sub(MASK, text) if "@" in text else text)


class Redactor:
    """Masks a fixed set of values wherever they occur, longest first (one compiled pattern).

    Build it once per set of values and call it on many texts; ``mask_values`` is the one-shot form.
    """

    __slots__ = ("_pattern",)

    def __init__(self, values: Iterable[Any]) -> None:
        cleaned = sorted({str(v) for v in values if v is not None and str(v).strip()}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, cleaned))) if cleaned else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        return self._pattern.sub(MASK, text) if self._pattern is not None else text


def mask_values(text: str, values: Iterable[Any]) -> str:
    """Mask the given (sensitive) values wherever they occur in ``text``."""
    return Redactor(values)(text)


def mask_deep(value: Any, mask: Callable[[str], str]) -> Any:
    """``value`` with ``mask`` (a ``Redactor``, ``mask_pii``) applied to every text inside it: the
    strings of dicts (keys too: a value may be a key, as an entity's id or a choice is), lists and
    tuples, at any depth. A number that ``mask`` would hide as text (a card number an action got as
    an int) becomes the mask. An output is masked as a whole this way, so a field added to it later
    is masked without anyone remembering to."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {mask_deep(k, mask): mask_deep(v, mask) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(mask_deep(v, mask) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and mask(str(value)) != str(value):
        return MASK
    return value
