"""Filling and validating slots from one interpretation.

Kept apart from the policy: deciding *which* transition fires and *what values* a turn offers
are separate questions, and the LLM path reuses the validation for every value it proposes.

What the offer needs of the words, the turn's reading answers, each fact once a turn: the values
(``interp.mentions``, and ``interp.read_as`` for a slot's own type), and the bot file's own words
in them (``interp.matches``: a slot's label, "label:" before free text, the words naming a yes/no
slot). What the offer still looks at itself is the words right beside or between mentions already
read: a unit after a number, a role word before a place, a joiner between two values, a word that
makes a value a determiner ("any cheap one"). Those are looks at a span's edges, not readings.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from dialogkit.engine.free_text import offer_free_text
from dialogkit.engine.list_slots import as_list, counts_of_listed, offer_list
from dialogkit.engine.roles import by_role
from dialogkit.engine.slot_layout import ANSWER_TYPE, COUNTS, SlotLayout, SlotOffer
from dialogkit.engine.slot_units import Units, counts_a_value, unit_after
from dialogkit.engine.yes_no_slots import answered, offer_named_answers, offer_stated_answers
from dialogkit.lexicon import alternation, words
from dialogkit.memory.tracker import counting_numbers
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.spec.schema import FlowSpec, SlotSpec, prompt_text
from dialogkit.text.phrases import phrase
from dialogkit.understanding.choices import determines
from dialogkit.understanding.value_questions import names_nothing

__all__ = ["ANSWER_TYPE", "COUNTS", "SlotLayout", "SlotOffer", "Validator", "missing_required", "offer_slots",
           "validate_slot"]

Validator = Callable[[str, Any], str | None]   # (action name, value) -> error or None
_JOINERS = alternation(words("value_joiners"))    # "A和B", "A and B"
_LIST_JOINER = re.compile(rf"\s*(?:[,，、]|(?:,\s*)?(?:{_JOINERS}))?\s*", re.IGNORECASE)


def _distinct(mentions: list[Mention]) -> list[Mention]:
    seen: dict[str, Mention] = {}
    for m in mentions:
        seen.setdefault(str(m.value), m)
    return list(seen.values())


def offer_slots(
    layout: SlotLayout,
    interp: Interpretation,
    *,
    filled: dict[str, Any],
    pending_slot: str | None,
    read_every_type: bool = False,
    extra_mentions: Sequence[Mention] = (),
) -> SlotOffer:
    """Map the turn's mentions onto the flow's slots (and, where a slot's own type must be read
    though another type claimed the words, the turn read as that type: ``interp.read_as``).

    Slots sharing one entity type take the values in order of mention, unfilled slots first;
    one slot offered two different values is a conflict the bot asks about (see docs/behaviours.md,
    item 2), unless the user is correcting themselves ("不是A，是B" / "not A but B"), where the last wins.
    """
    offer = SlotOffer()
    if _bare_answer(offer, layout, interp, pending_slot, extra_mentions):
        return offer
    # A referent fills a slot only when the utterance names no value of that type itself:
    # "actually it's 67890" corrects to 67890, not to whatever "it" pointed at.
    mentions: Sequence[Mention] = interp.mentions
    if extra_mentions:
        direct_types = {m.type for m in mentions}
        mentions = [*mentions, *(m for m in extra_mentions if m.type not in direct_types)]
    counts = _counts(interp.mentions, interp.text) | counts_of_listed(layout, interp.mentions, interp.text)
    used = _offer_labelled(offer, layout, interp)
    unread: list[tuple[str, tuple[SlotSpec, ...], bool]] = []
    said_by_type = _by_type(layout, mentions)
    for type_name, slots in layout.by_type.items():
        if type_name == ANSWER_TYPE:
            slots = answered(layout, slots, pending_slot, interp)
        if offer.values:
            slots = tuple(s for s in slots if s.name not in offer.values)
        if not slots:
            continue
        said = [m for m in said_by_type.get(type_name, ()) if m.start not in counts and not _inside(m, used)]
        direct = slots
        if type_name in layout.near_types:
            # The place a search looks around ("故宫周边的酒店") is the near slot's, and only it is.
            direct = tuple(s for s in slots if not s.is_near)
            near = tuple(s for s in slots if s.is_near)
            said = [m for m in said if not _role_beside(layout, near, m, interp.text)]
        if said and direct:
            _offer_typed(offer, layout, direct, said, interp, filled, pending_slot)
            used += said
        read_all = not said and bool(direct) and (read_every_type or pending_slot in layout.names_by_type[type_name])
        if read_all or (type_name in layout.role_types and any(s.name in layout.roles for s in slots)):
            unread.append((type_name, slots, read_all))
    # Read as a slot's own type, a span may be taken though another type claimed it ("damaged"), but
    # not inside a value this utterance gives another slot (2026 in "January 1, 2026" is no amount).
    # A slot whose role words stand beside a value takes it the same way, asked or not ("从故宫到长城"
    # when the place names are also attractions): the role word says which slot, and that it is one.
    for type_name, among, read_all in unread:
        slots = tuple(s for s in among if s.name not in offer.values)
        if not slots:
            continue
        said = [m for m in interp.read_as((type_name,)) if m.start not in counts and not _inside(m, used)
                and not any(r.start <= m.start and m.end <= r.end for r in interp.rejected)
                and not determines(m.text, interp.text, m.end)
                and (read_all or _role_beside(layout, slots, m, interp.text))]
        if said:
            _offer_typed(offer, layout, slots, said, interp, filled, pending_slot)
            used += said
    offer_named_answers(offer, layout, interp)
    offer_stated_answers(offer, layout, interp.text)
    offer_free_text(offer, layout, interp, pending_slot, filled)
    return offer


def _role_beside(layout: SlotLayout, slots: tuple[SlotSpec, ...], mention: Mention, text: str) -> bool:
    """A role word of one of ``slots`` stands right before or after the value (a look at the words
    beside a mention read, as ``by_role`` looks)."""
    return any((words := layout.roles.get(s.name)) is not None
               and (words.said_before(mention, text) or words.said_after(mention, text)) for s in slots)


def _by_type(layout: SlotLayout, mentions: Sequence[Mention]) -> dict[str, list[Mention]]:
    """The mentions that are values of each slot type, in text order: their own type's, and a whole
    number is a ``number`` slot's too ("15元", "12 yuan" are read as integers first) when no slot of
    the flow counts in integers. Grouped once, not looked through again for each of the flow's types."""
    grouped: dict[str, list[Mention]] = {}
    integers_are_numbers = "integer" not in layout.by_type
    for m in mentions:
        grouped.setdefault("number" if integers_are_numbers and m.type == "integer" else m.type, []).append(m)
    return grouped


def _inside(mention: Mention, spans: Sequence[Mention]) -> bool:
    return any(mention.start < u.end and u.start < mention.end for u in spans)


def _offer_labelled(offer: SlotOffer, layout: SlotLayout, interp: Interpretation) -> list[Mention]:
    """A value said right after a slot's label is that slot's, read as its type, though another type
    claims the words: "联系电话13812345678" is the contact phone even where the bot's tracking-number
    pattern also takes eleven digits. The values taken, so no other slot reads them again."""
    text = interp.text
    taken: list[Mention] = []
    if not interp.matches(layout.any_label):
        return taken          # no label's words at all (most turns): no label pattern looked for
    found_by_type: dict[str, list[Mention]] = {}
    after_labels: dict[str, list[Mention]] = {}     # slot -> the values said right after its label
    matches = [(slot, interp.matches(pattern)) for slot, pattern in layout.labels]   # read once a turn
    for slot, found_matches in matches:
        assert slot.entity is not None
        if found_matches and slot.entity not in found_by_type:
            found_by_type[slot.entity] = interp.read_as((slot.entity,))
        after_labels[slot.name] = [m for match in found_matches for m in found_by_type.get(slot.entity, ())
                                   if _right_after(m, match.end(), text)]
    for slot, found_matches in matches:
        assert slot.entity is not None
        found = found_by_type.get(slot.entity, [])
        for match in found_matches:
            value = next((m for m in found if _right_after(m, match.end(), text) and not _inside(m, taken)), None)
            # Another value of its type said too ("没收到，问题是碎了", "护照号A和护照号B") leaves it a
            # question, as ever; one said after another slot's label ("入住晚数是1，人数是4") is that slot's.
            claimed = [m for name, said in after_labels.items() if name != slot.name for m in said]
            others = [m for m in found if not _inside(m, [value, *taken, *claimed])] if value is not None else []
            if value is not None and all(str(m.value) == str(value.value) for m in others):
                offer.values[slot.name], offer.surfaces[slot.name] = value.value, value.text
                offer.labelled[slot.name] = text[match.start():value.end]
                # The label's own words are no value either: the 邮箱 of "联系邮箱 a@b.com" is no system.
                taken.append(replace(value, start=match.start()))
                break
    return taken


def _right_after(mention: Mention, end: int, text: str) -> bool:
    """The value starts where the label ends, or at the blank before that ("is 5:30pm" read with its space)."""
    return mention.start == end or (mention.start < end and not text[mention.start:end].strip())


_BARE_EDGES = " \t\n。.!！~～,，"


def _bare_answer(offer: SlotOffer, layout: SlotLayout, interp: Interpretation, pending_slot: str | None,
                 extra: Sequence[Mention] = ()) -> bool:
    """An answer that is one value of the asked slot's type and nothing else ("5000" to "what limit?")
    is that slot's, though another type reads the same words (a card pattern that takes any lone
    number): True when it is, with the value offered to the asked slot alone. The turn's extra
    readings count too ("7" to "几点到？" / "what time?" is its hour, though the flow also takes a
    count)."""
    asked = layout.flow.slot(pending_slot) if pending_slot else None
    if asked is None or asked.entity is None or asked.entity == ANSWER_TYPE or asked.is_list:
        return False
    text = interp.text
    start, end = len(text) - len(text.lstrip(_BARE_EDGES)), len(text.rstrip(_BARE_EDGES))
    if start >= end or not any(m.start <= start and m.end >= end for m in interp.mentions):
        return False
    read = [*interp.read_as((asked.entity,)), *(m for m in extra if m.type == asked.entity)]
    whole = [m for m in read if m.start <= start and m.end >= end]
    if len({str(m.value) for m in whole}) != 1:
        return False
    offer.values[asked.name] = whole[0].value
    offer.surfaces[asked.name] = whole[0].text
    return True


def _counts(mentions: Sequence[Mention], text: str) -> set[int]:
    """Numbers that count the values listed after them: no slot's value. The values must be a list
    ("A 和 B", "A, B and C"), not a route or a range ("两个人，北京到上海": two travellers): a look at
    the words between two mentions read."""
    return counting_numbers(mentions, lambda a, b: _LIST_JOINER.fullmatch(text[a.end:b.start]) is not None)


def _offer_typed(offer: SlotOffer, layout: SlotLayout, slots: tuple[SlotSpec, ...], said: list[Mention],
                 interp: Interpretation, filled: dict[str, Any], pending_slot: str | None) -> None:
    """Values of one entity type onto the slots of that type."""
    asked = any(s.name == pending_slot for s in slots)     # "其他" listed as a dish: still "other"
    said = [m for m in said if not names_nothing(m.text, interp.text, asked)]
    if not said:
        return
    if len(slots) == 1 and slots[0].is_list:
        offer_list(offer, slots[0], said, interp.text, filled)   # several values are the list, no question
        return
    if len(slots) == 1 and slots[0].name in layout.headcounts:
        said = [m for m in said if not _counts_else(layout.headcounts[slots[0].name], m, interp)]
        if not said:
            return
    if len(slots) == 1:
        found = _distinct(said)
        slot = slots[0]
        if len(found) > 1 and ("correction" not in interp.cues or _listed(found, interp.text)):
            offer.conflicts[slot.name] = found
            return
        offer.values[slot.name] = found[-1].value
        offer.surfaces[slot.name] = found[-1].text
        return
    counted, rest = _by_unit(layout, slots, said, interp.text) if slots[0].name in layout.units else ({}, said)
    for name, mention in counted.items():
        offer.values[name] = mention.value
        offer.surfaces[name] = mention.text
    placed, rest = by_role(layout.roles, slots, rest, interp.text)
    for slot in (s for s in slots if s.name in placed and s.name not in counted):
        # A value its role words name is that slot's, as a value after its label is ("从东单去国贸").
        _offer_typed(offer, layout, (slot,), placed[slot.name], interp, filled, pending_slot)
        if slot.name in offer.surfaces:
            offer.labelled[slot.name] = offer.surfaces[slot.name]
    ordered = sorted((s for s in slots if s.name not in counted and s.name not in placed and not s.is_near),
                     key=lambda s: (s.name in filled, s.name != pending_slot))
    for slot, mention in zip(ordered, _distinct(rest), strict=False):
        offer.values[slot.name] = mention.value
        offer.surfaces[slot.name] = mention.text


_AND_OR = re.compile(rf"(?<!\s)\s*+(?:{alternation([*words('value_joiners'), *words('alternative_joiners')])}"
                     r"|、|&)\s*+", re.IGNORECASE)   # linear


def _listed(found: list[Mention], text: str) -> bool:
    """Values joined as a list ("SF1234567890和773012345678都改到明天") are two, though the words
    around them correct ("改到"): only "不是A，是B" / "not A but B" puts the last in place of the first.
    A look at the words between two mentions read."""
    ordered = sorted(found, key=lambda m: m.start)
    return any(_AND_OR.fullmatch(text[a.end:b.start]) for a, b in itertools.pairwise(ordered))


def _counts_else(units: Units, mention: Mention, interp: Interpretation) -> bool:
    """A headcount is not what "两节瑜伽课" / "two yoga classes" count: a Chinese measure word the
    slot's words do not hold, or a value of the bot's own said right after the number."""
    unit = unit_after(mention, interp.text)
    if unit is None:
        return False
    if unit[0] == "han":
        return units.fits(unit) is False
    return not units.fits(unit) and counts_a_value(mention, interp.mentions, interp.text)


def _by_unit(layout: SlotLayout, slots: tuple[SlotSpec, ...], said: list[Mention],
             text: str) -> tuple[dict[str, Mention], list[Mention]]:
    """Numbers whose unit names one of the slots ("住两晚，两个人": nights, guests), by slot; the
    others, in order. A Chinese measure word no slot counts ("一间") leaves its number out. The unit
    is the word the number's span ends with or the one right after it (``unit_after``)."""
    counted: dict[str, Mention] = {}
    rest: list[Mention] = []
    for mention in said:
        unit = unit_after(mention, text)
        fits = {s.name: layout.units[s.name].fits(unit) for s in slots} if unit is not None else {}
        named = [name for name, fit in fits.items() if fit]
        if len(named) == 1 and named[0] not in counted:
            counted[named[0]] = mention
        elif not (unit is not None and unit[0] == "han" and fits and all(fit is False for fit in fits.values())):
            rest.append(mention)
    return counted, rest


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def validate_slot(slot: SlotSpec, value: Any, language: str, run_validator: Validator) -> str | None:
    """The first failing rule's message in ``language``, or None when the value passes every rule
    (every value of a list slot's list)."""
    if slot.is_list:
        return next((m for v in as_list(value) or [] if (m := _first_failure(slot, v, language, run_validator))), None)
    return _first_failure(slot, value, language, run_validator)


def _first_failure(slot: SlotSpec, value: Any, language: str, run_validator: Validator) -> str | None:
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
