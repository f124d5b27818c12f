"""k-of-n tests: ``repeat: N`` runs of a test, of which ``min_pass: K`` must pass.

An LLM does not answer the same way every time, so a test of an LLM path asserts a rate, not a
single run. ``repeat`` and ``min_pass`` go together: the nearest place that sets ``repeat`` (the
test, else its file, else the command line) decides both, so a pair written for one test is
never half overridden by a default meant for others. Without ``min_pass`` every run must pass.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FILE_KEYS", "MAX_REPEAT", "ONCE", "OPTIONS", "Repeat", "Spelling", "repeat_problem"]

MAX_REPEAT = 1000
"""More runs than this is a typo, not a measurement."""


@dataclass(frozen=True, slots=True)
class Repeat:
    """How often a test runs and how many of those runs must pass."""

    runs: int = 1
    min_pass: int = 1

    @classmethod
    def of(cls, runs: int, min_pass: int | None = None) -> Repeat:
        """``min_pass`` left out: every run must pass."""
        return cls(runs, runs if min_pass is None else min_pass)

    def __str__(self) -> str:
        return f"{self.min_pass} of {self.runs}"


ONCE = Repeat()
"""A test as it always ran: once, and that run must pass."""


@dataclass(frozen=True, slots=True)
class Spelling:
    """How the two settings are written where a problem is reported: file keys or options."""

    repeat: str
    min_pass: str
    example: str


FILE_KEYS = Spelling("`repeat`", "`min_pass`", "`repeat: 5` and `min_pass: 4`")
OPTIONS = Spelling("--repeat", "--min-pass", "--repeat 5 --min-pass 4")


def repeat_problem(runs: object, min_pass: object, spelling: Spelling = FILE_KEYS) -> tuple[str, str, str] | None:
    """What is wrong with ``repeat``/``min_pass`` as written: (the key at fault, message, hint), or None.

    ``runs`` is None when only ``min_pass`` was written. Shared by the test-file reader and the
    command line, so both refuse the same values with the same words.
    """
    example = f"e.g. {spelling.example}: the test passes when 4 of 5 runs pass"
    for name, value in (("repeat", runs), ("min_pass", min_pass)):
        shown = getattr(spelling, name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            return name, f"{shown} must be a whole number, not {value!r}", example
        if not 1 <= value <= MAX_REPEAT:
            return name, f"{shown} must be from 1 to {MAX_REPEAT}, not {value}", example
    if runs is None and min_pass is not None:
        return "min_pass", f"{spelling.min_pass} needs {spelling.repeat} beside it", example
    if isinstance(runs, int) and isinstance(min_pass, int) and min_pass > runs:
        return ("min_pass", f"{spelling.min_pass} ({min_pass}) is more than {spelling.repeat} ({runs}): "
                "the test could never pass", f"at most {runs}; {example}")
    return None
