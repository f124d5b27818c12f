"""The one "did you mean": a misspelt name is answered with the closest name that exists.

Every place that refuses a name (a bot-file key, an entity type, an action, a test file's
expectation) suggests through this function, so all of them agree on what counts as a typo.
Case is ignored, because ``Date`` for ``date`` or ``idle`` for ``IDLE`` is the same slip; the
suggestion keeps the spelling of the choice. difflib compares characters, so Chinese names are
matched as well as English ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6
"""How similar (difflib ratio, 0-1) a choice must be to count as what was meant."""


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to ``word`` when one is close enough to be a typo, else None."""
    by_folded: dict[str, str] = {}
    for choice in choices:
        by_folded.setdefault(choice.casefold(), choice)
    match = difflib.get_close_matches(word.casefold(), list(by_folded), n=1, cutoff=CUTOFF)
    return by_folded[match[0]] if match else None
