"""Filling and validating slots from one interpretation.

Kept apart from the policy: deciding *which* transition fires and *what values* a turn offers
are separate questions, and the LLM path reuses the validation for every value it proposes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dialogkit.memory.tracker import counting_numbers
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.spec.schema import FlowSpec, SlotSpec, prompt_text
from dialogkit.text.phrases import phrase

Validator = Callable[[str, Any], str | None]   # (action name, value) -> error or None
ANSWER_TYPE = "yes_no"
_LIST_JOINER = re.compile(r"\s*(?:[,，、和与及跟或]|(?:,\s*)?(?:and|or))?\s*", re.IGNORECASE)


@dataclass(slots=True)
class SlotOffer:
    """What one utterance offers the active flow."""

    values: dict[str, Any] = field(default_factory=dict)
    surfaces: dict[str, str] = field(default_factory=dict)          # slot -> text as written
    conflicts: dict[str, list[Mention]] = field(default_factory=dict)  # slot -> two or more distinct values

    @property
    def empty(self) -> bool:
        return not self.values and not self.conflicts


def _distinct(mentions: list[Mention]) -> list[Mention]:
    seen: dict[str, Mention] = {}
    for m in mentions:
        seen.setdefault(str(m.value), m)
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class SlotLayout:
    """What ``offer_slots`` needs of a flow, worked out once (``Policy`` keeps one for
    each flow of its bot) instead of on every turn."""

    flow: FlowSpec
    by_type: dict[str, tuple[SlotSpec, ...]]          # entity type -> its slots, in declaration order
    names_by_type: dict[str, frozenset[str]]
    free_text: tuple[tuple[SlotSpec, re.Pattern[str]], ...]   # slots without a type, with their "label:" pattern
    answer_names: dict[str, re.Pattern[str]]          # yes/no slot -> the words that name it

    @classmethod
    def of(cls, flow: FlowSpec) -> SlotLayout:
        by_type: dict[str, list[SlotSpec]] = {}
        for slot in flow.slots:
            if slot.entity:
                by_type.setdefault(slot.entity, []).append(slot)
        return cls(
            flow=flow,
            by_type={t: tuple(slots) for t, slots in by_type.items()},
            names_by_type={t: frozenset(s.name for s in slots) for t, slots in by_type.items()},
            free_text=tuple((s, _label_pattern(_label_names(s))) for s in flow.slots if s.entity is None),
            answer_names={s.name: _naming_pattern(_label_names(s)) for s in by_type.get(ANSWER_TYPE, ())},
        )


def offer_slots(
    layout: SlotLayout,
    interp: Interpretation,
    *,
    filled: dict[str, Any],
    pending_slot: str | None,
    read_every_type: bool = False,
    extract: Callable[[str, set[str]], list[Mention]],
    extra_mentions: Sequence[Mention] = (),
) -> SlotOffer:
    """Map the turn's mentions onto the flow's slots.

    Slots sharing one entity type take the values in order of mention, unfilled slots first;
    one slot offered two different values is a conflict the bot asks about (see docs/behaviours.md,
    item 2), unless the user is correcting themselves ("不是A，是B" / "not A but B"), where the last wins.
    """
    offer = SlotOffer()
    if _bare_answer(offer, layout, interp, pending_slot, extract):
        return offer
    # A referent fills a slot only when the utterance names no value of that type itself:
    # "actually it's 67890" corrects to 67890, not to whatever "it" pointed at.
    mentions: Sequence[Mention] = interp.mentions
    if extra_mentions:
        direct_types = {m.type for m in mentions}
        mentions = [*mentions, *(m for m in extra_mentions if m.type not in direct_types)]
    counts = _counts(interp.mentions, interp.text)
    used: list[Mention] = []
    unread: list[tuple[str, tuple[SlotSpec, ...]]] = []
    for type_name, slots in layout.by_type.items():
        if type_name == ANSWER_TYPE:
            slots = _answered(layout, slots, pending_slot, interp.text)
            if not slots:
                continue
        found = _distinct([m for m in mentions if m.type == type_name and m.start not in counts])
        if found:
            _offer_typed(offer, slots, found, interp, filled, pending_slot)
            used += found
        elif read_every_type or pending_slot in layout.names_by_type[type_name]:
            unread.append((type_name, slots))
    # Read as a slot's own type, a span may be taken though another type claimed it ("damaged"), but
    # not inside a value this utterance gives another slot (2026 in "January 1, 2026" is no amount).
    for type_name, slots in unread:
        found = _distinct([m for m in extract(interp.text, {type_name}) if m.start not in counts
                           and not any(m.start < u.end and u.start < m.end for u in used)
                           and not any(r.start <= m.start and m.end <= r.end for r in interp.rejected)])
        if found:
            _offer_typed(offer, slots, found, interp, filled, pending_slot)
            used += found
    _offer_free_text(offer, layout, interp, pending_slot)
    return offer


_BARE_EDGES = " \t\n。.!！~～,，"


def _bare_answer(offer: SlotOffer, layout: SlotLayout, interp: Interpretation, pending_slot: str | None,
                 extract: Callable[[str, set[str]], list[Mention]]) -> bool:
    """An answer that is one value of the asked slot's type and nothing else ("5000" to "what limit?")
    is that slot's, though another type reads the same words (a card pattern that takes any lone
    number): True when it is, with the value offered to the asked slot alone."""
    asked = layout.flow.slot(pending_slot) if pending_slot else None
    if asked is None or asked.entity is None or asked.entity == ANSWER_TYPE:
        return False
    text = interp.text
    start, end = len(text) - len(text.lstrip(_BARE_EDGES)), len(text.rstrip(_BARE_EDGES))
    if start >= end or not any(m.start <= start and m.end >= end for m in interp.mentions):
        return False
    whole = [m for m in extract(text, {asked.entity}) if m.start <= start and m.end >= end]
    if len({str(m.value) for m in whole}) != 1:
        return False
    offer.values[asked.name] = whole[0].value
    offer.surfaces[asked.name] = whole[0].text
    return True


def _answered(layout: SlotLayout, slots: tuple[SlotSpec, ...], pending_slot: str | None,
              text: str) -> tuple[SlotSpec, ...]:
    """The yes/no slot a yes or a no answers: the one just asked, else one the words name ("no, no
    replacement" / "不，不用补寄"). A bare "确认" / "yes" answers the confirmation, or the question
    for another slot, and is no new value of "send a new card?"."""
    asked = tuple(s for s in slots if s.name == pending_slot)
    if asked:
        return asked
    return tuple(s for s in slots if layout.answer_names[s.name].search(text))


def _counts(mentions: Sequence[Mention], text: str) -> set[int]:
    """Numbers that count the values listed after them: no slot's value. The values must be a list
    ("A 和 B", "A, B and C"), not a route or a range ("两个人，北京到上海": two travellers)."""
    return counting_numbers(mentions, lambda a, b: _LIST_JOINER.fullmatch(text[a.end:b.start]) is not None)


def _offer_typed(offer: SlotOffer, slots: tuple[SlotSpec, ...], found: list[Mention], interp: Interpretation,
                 filled: dict[str, Any], pending_slot: str | None) -> None:
    """Values of one entity type onto the slots of that type."""
    if len(slots) == 1:
        slot = slots[0]
        if len(found) > 1 and "correction" not in interp.cues:
            offer.conflicts[slot.name] = found
            return
        offer.values[slot.name] = found[-1].value
        offer.surfaces[slot.name] = found[-1].text
        return
    ordered = sorted(slots, key=lambda s: (s.name in filled, s.name != pending_slot))
    for slot, mention in zip(ordered, found, strict=False):
        offer.values[slot.name] = mention.value
        offer.surfaces[slot.name] = mention.text


def _offer_free_text(offer: SlotOffer, layout: SlotLayout, interp: Interpretation, pending_slot: str | None) -> None:
    """Slots without a type: offered by "label: value", by the LLM, or as the whole answer when asked."""
    for slot, pattern in layout.free_text:
        if slot.name not in offer.values:
            # The rules' "label: value" first; else a free-text value the LLM proposed (validated already).
            proposed = interp.slot_values.get(slot.name)
            labelled = _labelled_text(pattern, interp.text) or (str(proposed).strip() if proposed is not None else None)
            if labelled:
                offer.values[slot.name] = labelled
                offer.surfaces[slot.name] = labelled
    if pending_slot and not offer.values and not offer.conflicts:
        asked = layout.flow.slot(pending_slot)
        if asked is not None and asked.entity is None and interp.text.strip():
            offer.values[asked.name] = interp.text.strip()
            offer.surfaces[asked.name] = interp.text.strip()


def _labelled_text(pattern: re.Pattern[str], text: str) -> str | None:
    """A free-text slot offered by name: "备注：请尽快处理" / "note: please hurry" fills ``note``.

    Free-text slots have no entity type to find them by, so an optional one could otherwise never
    be filled; its name or label followed by a colon is how users offer it.
    """
    match = pattern.search(text)
    value = match.group(1).strip() if match else ""
    return value or None


def _label_names(slot: SlotSpec) -> tuple[str, ...]:
    names = {slot.name, slot.name.replace("_", " ")}
    if isinstance(slot.label, str):
        names.add(slot.label)
    elif slot.label is not None:
        names.update(n for n in (slot.label.zh, slot.label.en) if n)
    return tuple(sorted(names, key=len, reverse=True))


def _naming_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Words that name a slot in passing: any two Chinese characters of its label in a row ("补寄",
    "新卡" of "补寄新卡"), or an English word of four letters or more ("replacement")."""
    parts: set[str] = set()
    for name in names:
        for run in re.findall(r"[\u4e00-\u9fff]+", name):
            parts.update(run[i:i + 2] for i in range(len(run) - 1))
        parts.update(rf"\b{re.escape(w)}\b" for w in re.findall(r"[a-z]{4,}", name.lower()))
    return re.compile("|".join(sorted(parts)) or r"(?!)", re.IGNORECASE)


def _label_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?:^|[\s，,。;；])(?:{alternation})\s*[:：]\s*(.+)$", re.IGNORECASE | re.DOTALL)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def validate_slot(slot: SlotSpec, value: Any, language: str, run_validator: Validator) -> str | None:
    """The first failing rule's message in ``language``, or None when the value passes every rule."""
    for rule in slot.validate_:
        failed = False
        if rule.pattern is not None and not re.search(rule.pattern, str(value)):
            failed = True
        if not failed and (rule.min is not None or rule.max is not None):
            number = _number(value)
            failed = number is None or (rule.min is not None and number < rule.min) or (
                rule.max is not None and number > rule.max
            )
        if not failed and rule.min_length is not None and len(str(value)) < rule.min_length:
            failed = True
        if not failed and rule.max_length is not None and len(str(value)) > rule.max_length:
            failed = True
        if not failed and rule.one_of is not None and str(value) not in {str(v) for v in rule.one_of}:
            failed = True
        if not failed and rule.action is not None:
            custom = run_validator(rule.action, value)
            if custom:
                return custom
        if failed:
            return prompt_text(rule.error, language) or phrase("invalid_value", language)
    return None


def missing_required(flow: FlowSpec, slots: Mapping[str, Any]) -> list[SlotSpec]:
    """The required slots still empty, in declaration order: the next question asks the first."""
    return [s for s in flow.slots if s.required and slots.get(s.name) is None]
