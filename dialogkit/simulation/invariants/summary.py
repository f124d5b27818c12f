"""(h) The summary holds no value the user took back."""

from __future__ import annotations

import re
from typing import Any

from dialogkit.memory.summary import STORED
from dialogkit.simulation.catalog import Catalog, word_pattern
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import TakenBack, member_keys, members, value_key
from dialogkit.text.labels import flow_description
from dialogkit.text.phrases import format_value


def value_forms(catalog: Catalog, taken: TakenBack) -> list[str]:
    """How a summary shows the value: its label in either language when its type lists it (the
    canonical name itself may be a common word: "schedule" in "Schedule a meeting"), else as written."""
    entity = _entity(catalog, taken)
    value = catalog.shown_labels(entity).value(taken.value) if entity is not None else None
    forms = set(value.shown.values()) if value is not None else {format_value(taken.value)}
    return sorted(f for f in forms if f)


def _entity(catalog: Catalog, taken: TakenBack) -> str | None:
    slot = catalog.slot(taken.flow, taken.slot)
    return slot.entity if slot is not None and slot.entity in catalog.entities else None


def _other_labels(catalog: Catalog, taken: TakenBack, held: dict[str, Any], form: str) -> list[str]:
    """What the summary may rightly show that holds the value's ``form``, longest first: the
    labels of the type's other values ("元" is inside "美元") and the values the task holds now
    ("11" is inside "2027-02-11"). They are read past before looking for the form."""
    lowered = form.lower()
    labels = {text for value in held.values() for v in members(value) if value_key(v) != value_key(taken.value)
              and lowered in (text := format_value(v)).lower() and text.lower() != lowered}
    entity = _entity(catalog, taken)
    if entity is not None:
        labels |= catalog.shown_labels(entity).holding(form, besides=taken.value)
    return sorted(labels, key=len, reverse=True)


def _slot_labels(catalog: Catalog, taken: TakenBack) -> list[str]:
    """The flow's slot labels and every flow's description, longest first: the summary names slots
    by their labels ("联系电话 138…", "email aaa@example.com") and tasks by their descriptions ("Report
    a lost or stolen card"), so one that holds the form, or is the form, is no value shown."""
    flow = catalog.flows.get(taken.flow)
    labels = {label for s in (flow.slots if flow is not None else ()) for label in s.label.values() if label}
    labels |= {flow_description(spec, name, language) for name, spec in catalog.spec.flows.items()
               for language in STORED}
    return sorted(labels, key=len, reverse=True)


def _holds(summary: str, form: str, others: list[str], slot_labels: list[str]) -> bool:
    lowered = form.lower()
    for other in [*others, *(label for label in slot_labels if lowered in label.lower())]:
        # As a word: "100" read past inside "R-1001" would leave a "1" standing alone.
        summary = re.sub(word_pattern(other), " ", summary, flags=re.IGNORECASE)
    return re.search(word_pattern(form), summary, re.IGNORECASE) is not None


def _still_held(taken: TakenBack, slots: dict[str, Any]) -> bool:
    return any(value_key(taken.value) in member_keys(v) for v in slots.values())


def summary_holds_no_taken_back_value(turn: TurnRecord, judge: Judge) -> Finding | None:
    """The ticket summary (``reply.summary``) never holds a value the user took back — corrected
    away or forgotten — unless the user named that value again elsewhere
    (docs/behaviours.md, items 12, 14 and 19).
    """
    if turn.reply is None:
        return None
    memory = judge.memory
    taken = [t for t in memory.taken_back
             if t.reason != "denied" and not memory.said_elsewhere(t, turn) and not _still_held(t, turn.after.slots)]
    if not taken:
        return None
    summary = turn.reply.summary
    for item in taken:
        # What the task held when last seen stays in the summary after a cancel ("2027-12-01" holds "12").
        held = {**memory.seen.get(item.flow, {}), **turn.after.slots}
        slot_labels = _slot_labels(judge.catalog, item)
        for form in value_forms(judge.catalog, item):
            if _holds(summary, form, _other_labels(judge.catalog, item, held, form), slot_labels):
                how = "corrected away" if item.reason == "corrected" else "took back with forget"
                message = f"the summary still holds {form!r}, which the user {how} at turn {item.turn + 1}"
                return Finding(item.reason, message, {"summary": f"/^(?![\\s\\S]*(?i:{word_pattern(form)}))/"})
    return None


INVARIANT = Invariant(
    "summary_keeps_taken_back", "h", "the summary holds no value the user took back",
    summary_holds_no_taken_back_value,
)
