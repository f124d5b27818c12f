"""A value the words label for one slot belongs to that slot, even when its type does not read it.

"my order number is 3" names the order number; the 3 is no quantity, though the quantity slot
takes whole numbers. The offer (``offer_slots``) gives a value to the slot whose label it follows
when that slot's type reads it; when it does not (the order-number pattern wants more digits), the
number must not fill a slot that counts: the labelled slot refuses it with its own rule's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dialogkit.engine.slot_layout import COUNTS, SlotLayout, SlotOffer
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.spec.schema import SlotSpec

__all__ = ["Misplaced", "misplaced"]


@dataclass(frozen=True, slots=True)
class Misplaced:
    """A labelled value the offer gave to another slot: ``labelled`` is the slot the words name."""

    labelled: SlotSpec
    taken_by: str
    text: str


def misplaced(offer: SlotOffer, layout: SlotLayout, interp: Interpretation) -> Iterator[Misplaced]:
    """Each number offered to a slot although it was said right after another slot's label, that
    slot itself getting no value from the turn ("my order number is 3" offering quantity 3). The
    labels are the turn's reading's (``interp.matches``: found once a turn, as the offer found them)."""
    text = interp.text
    if not interp.matches(layout.any_label):
        return            # no label's words at all (most turns)
    for slot, pattern in layout.labels:
        if slot.name in offer.values or slot.name in offer.conflicts:
            continue
        for match in interp.matches(pattern):
            if not match.group().strip():
                continue
            said = next((m for m in interp.mentions if _right_after(m, match.start(), match.end(), text)), None)
            if said is None or said.type not in COUNTS:
                continue      # a word of a type of its own ("酒店是舒适型": a hotel type) is that type's
            for name, value in offer.values.items():
                if name != slot.name and offer.surfaces.get(name) == said.text and str(value) == str(said.value):
                    yield Misplaced(slot, name, said.text)
                    break


def _right_after(mention: Mention, start: int, end: int, text: str) -> bool:
    """The value follows the label with at most blanks between (the label's match may take them)."""
    return mention.start > start and not text[min(mention.start, end):max(mention.start, end)].strip()
