"""A turn's reading with other words standing in some spans: what the words would read as,
made from the reading already done rather than by reading the new text again.

"它现在怎么样？" after order 12345 asks about the order: its intents are those of
"订单12345现在怎么样？". The reference's words give way to the referent's, and the referent is a
mention where it stands; every other mention of the turn keeps its words, shifted by the change
in length before it. Only the intents are scored again: no entity is looked for and no cue read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.understanding.choices import determines

__all__ = ["StandIn", "with_stand_ins"]


@dataclass(frozen=True, slots=True)
class StandIn:
    """``words`` in place of the turn's ``start:end``; ``mentions`` are the values they name,
    their spans counted within ``words``."""

    start: int
    end: int
    words: str
    mentions: tuple[Mention, ...] = ()


def with_stand_ins(reading: Interpretation, stand_ins: Sequence[StandIn]) -> tuple[str, list[Mention]]:
    """The text with the stand-ins in place (they must not overlap), and its mentions in text
    order: the reading's own outside the replaced spans, shifted, and the stand-ins'. A referent
    named by an any-word with a word after it ("any" in "how is any now") is no value, as in
    ``interpret``."""
    text = reading.text
    ordered = sorted(stand_ins, key=lambda s: s.start)
    pieces: list[str] = []
    mentions: list[Mention] = []
    kept = iter(sorted(reading.mentions, key=lambda m: m.start))
    pending = next(kept, None)
    done = shift = 0
    for stand_in in [*ordered, None]:
        stop = len(text) if stand_in is None else stand_in.start
        while pending is not None and pending.start < stop:
            if pending.start >= done and pending.end <= stop:      # none inside a replaced span
                mentions.append(_moved(pending, shift))
            pending = next(kept, None)
        pieces.append(text[done:stop])
        if stand_in is None:
            break
        at = stand_in.start + shift
        mentions += (_moved(m, at) for m in stand_in.mentions)
        pieces.append(stand_in.words)
        shift += len(stand_in.words) - (stand_in.end - stand_in.start)
        done = stand_in.end
    written = "".join(pieces)
    return written, [m for m in mentions if not determines(m.text, written, m.end)]


def _moved(mention: Mention, by: int) -> Mention:
    return mention if not by else replace(mention, start=mention.start + by, end=mention.end + by)
