"""The one placeholder parser: which names a ``{name}`` template refers to.

Templates follow ``str.format`` syntax, so ``string.Formatter`` reads them: doubled braces are
literal, and ``{name.attr}``, ``{name[0]}``, ``{name!r}`` and ``{name:>5}`` all refer to ``name``.
"""

from __future__ import annotations

import re
import string

_FORMATTER = string.Formatter()
_NAME_END = re.compile(r"[.\[!:]")


def placeholders(template: str) -> list[str]:
    """The names ``template`` refers to, in order and with repeats; ``{}`` gives ``""``.

    Raises ``ValueError`` for unbalanced braces, so a checker can report the template; code
    that renders should not call this on every turn.
    """
    names: list[str] = []
    for _, field, _, _ in _FORMATTER.parse(template):
        if field is not None:
            names.append(_NAME_END.split(field, maxsplit=1)[0])
    return names
