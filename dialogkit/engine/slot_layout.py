"""What one utterance offers a flow's slots, and what the offer needs of the flow, worked out once.

The words a slot is known by (its name and labels) make three patterns: "label: text" offers free
text, "label (is) value" a value of the slot's type, and two characters or a word of the label
name a yes/no slot in passing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dialogkit.engine.roles import RoleWords, role_words
from dialogkit.engine.slot_units import Units, slot_units
from dialogkit.engine.yes_no_statements import AnswerWords, answer_words
from dialogkit.lexicon import starts, words
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec, SlotSpec

__all__ = ["ANSWER_TYPE", "COUNTS", "SlotLayout", "SlotOffer"]

ANSWER_TYPE = "yes_no"
COUNTS = frozenset({"number", "integer"})


@dataclass(slots=True)
class SlotOffer:
    """What one utterance offers the active flow."""

    values: dict[str, Any] = field(default_factory=dict)
    surfaces: dict[str, str] = field(default_factory=dict)          # slot -> text as written
    conflicts: dict[str, list[Mention]] = field(default_factory=dict)  # slot -> two or more distinct values
    labelled: dict[str, str] = field(default_factory=dict)   # slot -> "label value" as written, when so given

    @property
    def empty(self) -> bool:
        return not self.values and not self.conflicts


@dataclass(frozen=True, slots=True)
class SlotLayout:
    """What ``offer_slots`` needs of a flow, worked out once (``Policy`` keeps one for
    each flow of its bot) instead of on every turn."""

    flow: FlowSpec
    by_type: dict[str, tuple[SlotSpec, ...]]          # entity type -> its slots, in declaration order
    names_by_type: dict[str, frozenset[str]]
    free_text: tuple[tuple[SlotSpec, re.Pattern[str]], ...]   # slots without a type, with their "label:" pattern
    answer_names: dict[str, re.Pattern[str]]          # yes/no slot -> the words that name it
    answer_words: dict[str, AnswerWords]              # yes/no slot -> the words a statement of its answer uses
    units: dict[str, Units]                           # slot sharing its type with another -> what it counts
    headcounts: dict[str, Units]                      # a number slot alone of its type that counts people
    labels: tuple[tuple[SlotSpec, re.Pattern[str]], ...]   # typed slots, with "label (is)" before a value
    roles: dict[str, RoleWords]                       # slot -> the role words said beside its values
    # The words of every one of ``labels`` in one pattern: words it finds nothing in (most turns)
    # hold no label, and none of ``labels`` need be looked for.
    any_label: re.Pattern[str]
    # The types some slot of which is a near slot, or has role words: the offer looks at the words
    # beside a value of those types only, and most flows have none.
    near_types: frozenset[str]
    role_types: frozenset[str]

    @classmethod
    def of(cls, flow: FlowSpec) -> SlotLayout:
        by_type: dict[str, list[SlotSpec]] = {}
        for slot in flow.slots:
            if slot.entity:
                by_type.setdefault(slot.entity, []).append(slot)
        labelled = [s for s in flow.slots if s.entity is not None and s.entity != ANSWER_TYPE]
        roles = role_words(flow)
        return cls(
            flow=flow,
            by_type={t: tuple(slots) for t, slots in by_type.items()},
            names_by_type={t: frozenset(s.name for s in slots) for t, slots in by_type.items()},
            free_text=tuple((s, _label_pattern(_label_names(s))) for s in flow.slots if s.entity is None),
            answer_names={s.name: _naming_pattern(_label_names(s)) for s in by_type.get(ANSWER_TYPE, ())},
            answer_words={s.name: answer_words(s) for s in by_type.get(ANSWER_TYPE, ())},
            units={s.name: slot_units(s) for t, shared in by_type.items() if t in COUNTS and len(shared) > 1
                   for s in shared},
            headcounts={s.name: u for t, shared in by_type.items() if t in COUNTS and len(shared) == 1
                        for s in shared if (u := slot_units(s)).counts_people},
            labels=tuple((s, _value_label_pattern(_label_names(s))) for s in labelled),
            roles=roles,
            any_label=_any_of([name for s in labelled for name in _label_names(s)]),
            near_types=frozenset(t for t, slots in by_type.items() if any(s.is_near for s in slots)),
            role_types=frozenset(t for t, slots in by_type.items() if any(s.name in roles for s in slots)),
        )


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


_DETERMINERS = ("the", "my", "our", "your")      # "the order number is 12345"
_COPULA = "|".join(words("label_copula_patterns"))   # "订单号是12345", "the order number is 12345"

def _value_label_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """A slot's label and what may join it to its value: "联系电话13812345678", "订单号是12345",
    "contact phone: +1 415 555 0100", "the order number is 12345"."""
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(rf"{starts([*_DETERMINERS, *names])}(?:\b(?:{'|'.join(_DETERMINERS)})\s+)?(?:{alternation})\s*"
                      rf"(?:{_COPULA}|:|：|=)?\s*", re.IGNORECASE)


def _any_of(names: list[str]) -> re.Pattern[str]:
    """Any of ``names``, case-blind, as the label patterns find them (nothing for no name)."""
    ordered = sorted(dict.fromkeys(names), key=len, reverse=True)
    alternation = "|".join(re.escape(n) for n in ordered)
    return re.compile(f"{starts(ordered)}(?:{alternation})" if ordered else r"(?!)", re.IGNORECASE)


def _label_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?:^|[\s，,。;；])(?:{alternation})\s*[:：]\s*(.+)$", re.IGNORECASE | re.DOTALL)
