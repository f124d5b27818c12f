"""What every corpus replay returns, so bench/corpus.py and the ratchet treat both corpora alike.

A corpus module (``corpus_camrest``, ``corpus_crosswoz``) exposes
``measure(data: Path, *, subset: int | None = None, dump: Dump | None = None) -> Measured``:
``data`` is the corpus folder (``../shared/corpora/<name>``), ``subset`` keeps the first N
dialogues (the ratchet's fixed subset), and ``dump`` receives every miss, one JSON-able dict a turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Dump = Callable[[dict[str, Any]], None]


@dataclass
class Measured:
    """One corpus's figures (percentages and milliseconds, by name) and the turns that missed.

    ``missed`` holds a stable id per missed turn (``"<dialogue>/<turn>/<measure>"``): the ratchet
    stores it beside the floor, so a drop can print exactly which turns changed.
    """

    corpus: str
    figures: dict[str, float]
    missed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
