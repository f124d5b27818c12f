"""List slots: a slot holding several values of its type ("SPA和叫醒服务", "oat milk and extra shot").

Values said in one turn fill the slot together, in the order said, where a one-value slot would
ask "which one?". Words beside a value edit the list held instead of replacing it: "再加一个健身房"
/ "also a gym" adds, "不要叫醒服务了" / "drop the wake-up call" removes; values said without such
words replace the list (as a correction replaces a value). A list emptied by its last removal is
no value at all, so a required slot is asked for again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dialogkit.engine.roles import RoleWords
from dialogkit.engine.slot_layout import COUNTS, SlotLayout, SlotOffer
from dialogkit.lexicon import words
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import SlotSpec
from dialogkit.understanding.cues import NO_WORDS

__all__ = ["as_list", "counts_of_listed", "edited_list", "offer_list"]

_ADDING = RoleWords.of_words(before=words("list_add_before"), after=words("list_add_after"))
# The no-words of a yes/no answer ("不要", "不需要", "no", "don't") said right before a value, and
# the verbs that take a thing away.
_DROPPING = RoleWords.of_words(before=(*NO_WORDS, *words("list_drop_before")), after=words("list_drop_after"))


def _beside(words: RoleWords, mention: Mention, text: str) -> bool:
    return bool(words.said_before(mention, text) or words.said_after(mention, text))


def as_list(value: Any) -> list[Any] | None:
    """A value for a list slot: a list stays, an empty one is no value, one value is a list of one."""
    if value is None:
        return None
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return values or None


def edited_list(said: Sequence[Mention], text: str, held: Any) -> tuple[list[Any] | None, bool]:
    """The list the turn leaves in the slot, and whether words beside the values edited the list held
    (True) rather than said a new one (False). Without such words the values said are the list."""
    dropped = [_beside(_DROPPING, m, text) for m in said]
    edits = any(dropped) or any(_beside(_ADDING, m, text) for m in said)
    values = (as_list(held) or []) if edits else []
    for mention, drop in sorted(zip(said, dropped, strict=True), key=lambda pair: pair[0].start):
        if drop:
            values = [v for v in values if str(v) != str(mention.value)]
        elif all(str(v) != str(mention.value) for v in values):
            values.append(mention.value)
    return values or None, edits


def offer_list(offer: SlotOffer, slot: SlotSpec, said: Sequence[Mention], text: str,
               filled: Mapping[str, Any]) -> None:
    """Offer a list slot the list the turn leaves in it. An edit names the slot as its label would,
    so it changes a list held while another slot is asked ("再加一个健身房")."""
    values, edits = edited_list(said, text, filled.get(slot.name))
    offer.values[slot.name] = values
    offer.surfaces[slot.name] = text[min(m.start for m in said):max(m.end for m in said)]
    if edits:
        offer.labelled[slot.name] = offer.surfaces[slot.name]


def counts_of_listed(layout: SlotLayout, mentions: Sequence[Mention], text: str) -> set[int]:
    """Numbers that count a value of a list slot said right after them ("再加一个健身房", "两份燕麦奶"):
    how many of it, no value of a number slot asked meanwhile. The start of each."""
    listed = {slot.entity for slot in layout.flow.slots if slot.is_list}
    if not listed:
        return set()
    starts = {m.start for m in mentions if m.type in listed}
    return {m.start for m in mentions if m.type in COUNTS and _next_word_at(text, m.end) in starts}


def _next_word_at(text: str, end: int) -> int:
    while end < len(text) and text[end].isspace():
        end += 1
    return end
