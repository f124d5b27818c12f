"""Free-text slots (a name, an address, a description): what of an answer is their value.

Asked for one, the whole answer is the value, less what it gives other slots by their labels; a
number or a date inside it is part of it ("王小二", "Agent 47"), a count with its measure word is not
("我们三个人"), and a request for help is no answer. Unasked, "label: text" offers one (its label
found by the turn's reading, ``interp.matches``). What is left of the words once the values read are
taken out is a look at the words, not a reading of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dialogkit.engine.slot_layout import COUNTS, SlotLayout, SlotOffer
from dialogkit.model.interpretation import Interpretation
from dialogkit.spec.schema import SlotSpec
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.numbers import CN_NUMERAL_CHARS

__all__ = ["offer_free_text"]


_INCIDENTAL = frozenset({"number", "integer", "date", "time"})
_NO_ANSWER = frozenset({"help", "alternatives", "forget"})
_MEASURED = re.compile(rf"[^\d\s.,{CN_NUMERAL_CHARS}]")      # anything but the number: a measure word


def _part_of_free_text(offer: SlotOffer, layout: SlotLayout, interp: Interpretation, pending_slot: str | None,
                       filled: Mapping[str, Any]) -> bool:
    """Asked for free text, values the rules read inside a longer answer are part of it: a number or a
    date with no measure word ("王小二", "Agent 47", "Louis the 14th"; "三个人" and "两晚" count), and
    anything for a slot already filled ("一开Excel就蓝屏" describes the blue screen held; "3 new hires
    start in 2027" gives a reason, not a licence count), unless the user corrects or says the value
    after its slot's label ("开始时间是上午八点" / "the start time is 5:30pm" gives the time)."""
    asked = layout.flow.slot(pending_slot) if pending_slot else None
    if asked is None or asked.entity is not None or offer.empty or interp.cues & {"correction", "no"} \
            or any(filled.get(name) is None for name in offer.conflicts):
        return False
    rest = interp.text
    for name, surface in offer.surfaces.items():
        if name in offer.labelled or not _incidental(layout.flow.slot(name), surface, filled):
            return False
        rest = rest.replace(surface, " ")
    for mention in (m for mentions in offer.conflicts.values() for m in mentions):
        rest = rest.replace(mention.text, " ")
    return has_cjk(rest) or sum(ch.isalnum() for ch in rest) >= 2     # "李十一" keeps its surname


def _incidental(slot: SlotSpec | None, surface: str, filled: Mapping[str, Any]) -> bool:
    if slot is None:
        return False
    if filled.get(slot.name) is not None:
        return True
    return slot.entity in _INCIDENTAL and not (slot.entity in COUNTS and _MEASURED.search(surface))


def offer_free_text(offer: SlotOffer, layout: SlotLayout, interp: Interpretation, pending_slot: str | None,
                    filled: Mapping[str, Any]) -> None:
    """Slots without a type: offered by "label: value", or as the whole answer when asked."""
    if _part_of_free_text(offer, layout, interp, pending_slot, filled):
        offer.values.clear()
        offer.surfaces.clear()
        offer.conflicts.clear()
    for slot, pattern in layout.free_text:
        if slot.name not in offer.values:
            labelled = _labelled_text(pattern, interp)
            if labelled:
                offer.values[slot.name] = labelled
                offer.surfaces[slot.name] = labelled
    # "帮助" / "help" asked for a description is a request for help (answered, then asked again).
    asked = layout.flow.slot(pending_slot) if pending_slot else None
    if asked is None or asked.entity is not None or asked.name in offer.values or offer.conflicts \
            or interp.cues & _NO_ANSWER:
        return
    answer = _besides_labelled(offer, layout, interp.text)
    if answer:
        offer.values[asked.name] = answer
        offer.surfaces[asked.name] = answer


def _besides_labelled(offer: SlotOffer, layout: SlotLayout, text: str) -> str:
    """The answer to a free-text question: the whole text, less the values the user gave other slots
    by their labels ("北京市朝阳区建国路88号，联系电话13812345678" is an address and a phone); nothing
    when a value came without its label (the user answered something else)."""
    if set(offer.values) - set(offer.labelled):
        return ""
    for said in offer.labelled.values():
        text = text.replace(said, " ")
    return text.strip(" \t\n,，。.;；、")


def _labelled_text(pattern: re.Pattern[str], interp: Interpretation) -> str | None:
    """A free-text slot offered by name: "备注：请尽快处理" / "note: please hurry" fills ``note``.

    Free-text slots have no entity type to find them by, so an optional one could otherwise never
    be filled; its name or label followed by a colon is how users offer it (the label found by the
    turn's reading, ``interp.matches``: once a turn).
    """
    found = interp.matches(pattern)
    value = found[0].group(1).strip() if found else ""
    return value or None
