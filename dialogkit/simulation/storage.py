"""Where hypothesis writes while a simulation runs: ``./.dialogkit/hypothesis/``, beside
dialogkit's other local state (the default session store), not a ``.hypothesis/`` folder in the
working directory, which is often the bot's own folder.

A simulation keeps its example database in memory (``runner``); what hypothesis still writes is
its caches: the Unicode tables behind generated text, the constants it reads from source files.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

HOME = Path(".dialogkit") / "hypothesis"


def hypothesis_home(folder: Path | None = None) -> Path:
    """The folder hypothesis writes to when run from ``folder`` (default: the working directory)."""
    return (folder if folder is not None else Path.cwd()) / HOME


def current_home() -> Path:
    """Where hypothesis writes now (its setting, else ``HYPOTHESIS_STORAGE_DIRECTORY``, else its default)."""
    return storage_directory(intent_to_write=False).home_directory


@contextmanager
def hypothesis_storage(home: Path | None = None) -> Iterator[Path]:
    """Hypothesis writes under ``home`` (default: ``hypothesis_home()``) while the block runs, and
    where it wrote before afterwards: a program that runs a simulation keeps its own setting."""
    previous = current_home()
    target = home if home is not None else hypothesis_home()
    set_hypothesis_home_dir(target)
    try:
        yield target
    finally:
        set_hypothesis_home_dir(previous)
