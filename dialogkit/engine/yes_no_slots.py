"""Yes/no slots: which question a yes or a no answers, and a slot named together with its answer.

"确认" / "yes" at the confirmation answers the confirmation, never "send a new card?"; a yes or a no
fills a yes/no slot when that slot was asked, or where the words name it ("no, no replacement"),
and "不要早餐" / "with breakfast" fill it in any turn.
"""

from __future__ import annotations

import re

from dialogkit.engine.slot_layout import SlotLayout, SlotOffer
from dialogkit.spec.schema import SlotSpec

__all__ = ["answered", "offer_named_answers"]


def answered(layout: SlotLayout, slots: tuple[SlotSpec, ...], pending_slot: str | None,
             text: str) -> tuple[SlotSpec, ...]:
    """The yes/no slot a yes or a no answers: the one just asked, else one the words name ("no, no
    replacement" / "不，不用补寄"). A bare "确认" / "yes" answers the confirmation, or the question
    for another slot, and is no new value of "send a new card?"."""
    asked = tuple(s for s in slots if s.name == pending_slot)
    if asked:
        return asked
    return tuple(s for s in slots if layout.answer_names[s.name].search(text))


_BEFORE_NAME = {False: re.compile(r"(?:不要|不用|不需要|无需|不含|不加|没有|免|\bno|\bwithout|\bskip(?: the)?)\Z",
                                  re.IGNORECASE),
                True: re.compile(r"(?:需要|要|含|加|带|\bwith|\binclud(?:e|ing)(?: the)?)\Z", re.IGNORECASE)}
_BEFORE_WINDOW = 16          # the words right before the name: the answer is never further away
_AFTER_NAME = {False: re.compile(r"^\s*(?:不要|不用|不需要|就不要|就不用)"), True: re.compile(r"^\s*(?:要|需要)(?!不)")}


def offer_named_answers(offer: SlotOffer, layout: SlotLayout, text: str) -> None:
    """A yes/no slot named with its answer, in any turn: "不要早餐" / "早餐不要" / "no breakfast" is
    breakfast = no, "要早餐" / "with breakfast" yes (a leading "no" alone answers the question asked)."""
    for name, pattern in layout.answer_names.items():
        if name in offer.values:
            continue
        for match in pattern.finditer(text):
            before, after = text[max(0, match.start() - _BEFORE_WINDOW):match.start()].rstrip(), text[match.end():]
            value = next((v for v in (False, True) if _BEFORE_NAME[v].search(before) or _AFTER_NAME[v].match(after)),
                         None)
            if value is not None:
                offer.values[name] = value
                offer.surfaces[name] = match.group()
                break


