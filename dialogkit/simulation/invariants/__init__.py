"""The behaviours a simulation checks after every turn, one module each (docs/behaviours.md).

(a) no action runs with a value the user took back; (b) a bare answer goes to the asked slot;
(c) a mention starts no flow; (d) an ambiguous reference is clarified and the question survives
an unrelated turn; (e) the reply is in the turn's language; (f) forgetting re-asks the first
empty required slot; (g) no turn raises; (h) the summary holds no value the user took back;
(i) an FAQ question changes nothing; (j) a slot whose ask_if is false is neither asked nor kept;
(k) a completed task starts its ``then`` flow with the slots carried by name; (l) a give-up handed
to a person says a person will take over; (m) a value offered for a slot of the active task,
asked or not, is set, or the reply clarifies or says why not.
"""

from __future__ import annotations

from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.invariants import (
    asked_slot,
    clarification,
    conditional,
    faq,
    follow_up,
    forgetting,
    handoff,
    language,
    mentions,
    offered_values,
    rejected_values,
    sanity,
    summary,
)
from dialogkit.simulation.invariants.base import BotFacts, Finding, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.vocabulary import LANGUAGES
from dialogkit.text.labels import Texts

INVARIANTS: tuple[Invariant, ...] = (
    rejected_values.INVARIANT,
    asked_slot.INVARIANT,
    mentions.INVARIANT,
    clarification.INVARIANT,
    language.INVARIANT,
    forgetting.INVARIANT,
    sanity.INVARIANT,
    summary.INVARIANT,
    faq.INVARIANT,
    conditional.INVARIANT,
    follow_up.INVARIANT,
    handoff.INVARIANT,
    offered_values.INVARIANT,
)


def bot_facts(catalog: Catalog) -> BotFacts:
    foreign = {lang: language.foreign_forms(catalog, lang) for lang in LANGUAGES}
    return BotFacts(catalog, Texts(catalog.spec), foreign)


def check_turn(turn: TurnRecord, judge: Judge) -> list[tuple[Invariant, Finding]]:
    """Every invariant the turn breaks, with how it broke."""
    found = []
    for invariant in INVARIANTS:
        finding = invariant.check(turn, judge)
        if finding is not None:
            found.append((invariant, finding))
    return found


__all__ = ["INVARIANTS", "BotFacts", "Finding", "Invariant", "Judge", "bot_facts", "check_turn"]
