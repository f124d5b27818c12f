"""A value said with an empty head noun names a thing by that value: "the italian one", "a cheap
one", "川菜那家", "便宜的那个"; so does a value said before the noun of the thing a task looks for
("an italian restaurant", where the flow's keywords hold "restaurant").

The head ("one", "那个") stands for the thing the value describes, so the words choose that value:
they are no ordinal ("the first one") and no reference back to an earlier thing, and a slot that
already holds another value takes this one, as it does from a correction.
"""

from __future__ import annotations

import functools
import re

from dialogkit.lexicon import LANGUAGES, alternation, lexicon


@functools.cache
def _head(nouns: tuple[str, ...] = ()) -> re.Pattern[str]:
    """The head after a value: an optional marker (的) then the head word, ending a word."""
    markers = [w for lang in LANGUAGES for w in lexicon(lang).words("value_head_markers")]
    heads = [w for lang in LANGUAGES for w in lexicon(lang).words("value_heads")] + [n.lower() for n in nouns]
    marker = f"(?:{alternation(markers)})?" if markers else ""
    return re.compile(rf"\s*{marker}\s*(?:{alternation(heads)})(?![a-z])", re.IGNORECASE)


def names_by_value(text: str, surface: str, nouns: tuple[str, ...] = ()) -> bool:
    """Whether ``surface`` (a value's words) is said in ``text`` with an empty head after it, or
    with one of ``nouns`` (what the task looks for)."""
    if not surface:
        return False
    lowered, said, head = text.lower(), surface.lower(), _head(nouns)
    start = lowered.find(said)
    while start >= 0:
        if head.match(lowered, start + len(said)) is not None:
            return True
        start = lowered.find(said, start + 1)
    return False
