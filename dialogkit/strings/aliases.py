"""The one form an alias is compared in: lower case, its words joined by single spaces.

Understanding looks a matched alias up in this form, and the bot file's checks find two values
claiming one alias in it, so both agree on which aliases are the same ("Cell  Phone" is "cell phone").
"""

from __future__ import annotations

import re

_UNEVEN_SPACE = re.compile(r"(?:^|\x00)\s|\s(?:\x00|$)|\s\s|[^\S ]")
"""Spaces ``normalise_alias`` would change, in aliases joined by NUL: one at an end, two in a
row, or white space other than a plain space."""


def normalise_alias(text: str) -> str:
    """The lookup key of an alias or a matched surface: lower case, single spaces."""
    return " ".join(text.lower().split())


def normalise_aliases(aliases: list[str]) -> list[str]:
    """``normalise_alias`` of each, lowered in one call when no alias has spaces to tidy (a
    catalogue's 100,000 aliases: one ``lower`` instead of 100,000)."""
    joined = "\x00".join(aliases)
    if len(aliases) < 2 or joined.count("\x00") != len(aliases) - 1 or _UNEVEN_SPACE.search(joined):
        return [normalise_alias(alias) for alias in aliases]
    return joined.lower().split("\x00")
