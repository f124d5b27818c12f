"""The one way the command line builds a rich console.

Users' and bots' text passes through these consoles, and rich would otherwise turn ``:ok:`` or
``:cd:`` in it into emoji and colour numbers and paths as it guesses; a transcript must show what
was said.
"""

from __future__ import annotations

from rich.console import Console


def plain_console(*, stderr: bool = False, soft_wrap: bool = False) -> Console:
    """A console that prints text as written: no emoji codes, no guessed highlighting."""
    return Console(stderr=stderr, highlight=False, emoji=False, soft_wrap=soft_wrap)
