"""(b) The asked slot comes first."""

from __future__ import annotations

from typing import Any

from dialogkit.engine.choices import outside
from dialogkit.engine.doubtful_values import doubt
from dialogkit.simulation.catalog import SlotInfo
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge, slots_of_task
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.user_memory import member_keys, slot_key, value_key
from dialogkit.simulation.values import Said, rule_passes
from dialogkit.simulation.vocabulary import LANGUAGES
from dialogkit.spec.schema import prompt_text
from dialogkit.text.phrases import phrase


def rule_messages(slot: SlotInfo, language: str | None = None, broken_by: Said | None = None) -> list[str]:
    """The messages of the slot's rules (those ``broken_by`` breaks, when given), in one language or both."""
    languages = (language,) if language else LANGUAGES
    rules = [r for r in slot.rules if broken_by is None or not rule_passes(r, broken_by.canonical)]
    messages = [prompt_text(rule.error, lang) or phrase("invalid_value", lang) for rule in rules for lang in languages]
    if slot.spec.choices is not None and broken_by is not None and not broken_by.valid:
        messages = [outside(broken_by.text, lang) for lang in languages] + messages   # refused with the list
    return messages


def _other_slot_filled(turn: TurnRecord, slot: SlotInfo, after: dict[str, Any]) -> Finding | None:
    for name, value in after.items():
        before = turn.before.slots.get(name)
        if name != slot.name and value is not None and slot_key(value) != slot_key(before):
            message = f"the answer to the question for {slot.name} filled {name}={value!r} instead"
            return Finding("filled_another_slot", message, {"slots": {name: before}})
    return None


def _answer_taken(turn: TurnRecord, slot: SlotInfo, said: Said, after: dict[str, Any] | None,
                  handoff: str | None) -> Finding | None:
    text = turn.text
    if any(m and m in text for m in rule_messages(slot, broken_by=None if said.valid else said)) \
            or turn.refused_aloud():
        return None
    held = after.get(slot.name) if after is not None else None
    if said.valid:
        if after is not None and slot_key(held) == slot_key(said.canonical):
            return None
        if _doubted_aloud(turn, slot, said):
            return None
        message = f"the answer {said.text!r} to the question for {slot.name} left it {held!r}"
        if said.form == "label":   # the bot shows this label but the bot file does not list it as an alias
            return Finding("label_not_understood", message + " (a label of the value, not an alias)",
                           {"slots": {slot.name: said.canonical}})
        return Finding("answer_not_taken", message, {"slots": {slot.name: said.canonical}})
    if after is not None and value_key(said.canonical) in member_keys(held):     # a list slot's values too
        return Finding("invalid_value_accepted", f"{slot.name} took the invalid value {said.text!r}",
                       {"slots": {slot.name: turn.before.slots.get(slot.name)}})
    if turn.reply is None or (handoff is not None and turn.reply.flow == handoff != turn.before.flow):
        return None
    message = f"the invalid answer {said.text!r} for {slot.name} got no rule message"
    expected = rule_messages(slot, turn.language, said) or [phrase("invalid_value", turn.language)]
    return Finding("no_rule_message", message, {"bot": expected[0]})


def _doubted_aloud(turn: TurnRecord, slot: SlotInfo, said: Said) -> bool:
    """The bot asked about a value shaped like another type (a mobile number for an order id)
    before taking it, as documented, rather than dropping the answer (docs/behaviours.md, item 3)."""
    doubt_said = doubt(slot.spec, said.text, turn.language)
    return doubt_said is not None and doubt_said in turn.text


def bare_answer_goes_to_asked_slot(turn: TurnRecord, judge: Judge) -> Finding | None:
    """A bare answer to a question is offered to the asked slot first: it fills that slot, or the
    reply gives that slot's rule message (for an invalid answer, the message of a rule it breaks);
    it never fills another slot instead (docs/behaviours.md, items 3 and 17).

    When an invalid answer is the failure that gives up, the reply still gives the rule's
    message, unless the bot hands off to its ``handoff`` flow instead.
    """
    utterance = turn.utterance
    flow = turn.before.flow
    if utterance.move != "answer" or flow is None or turn.before.pending or turn.before.asked != utterance.slot:
        return None
    slot = judge.catalog.slot(flow, utterance.slot or "")
    said = next(iter(utterance.said), None)
    if slot is None or said is None or turn.reply is None:
        return None
    after = slots_of_task(turn, flow, judge.catalog)
    if after is not None:
        filled = _other_slot_filled(turn, slot, after)
        if filled is not None:
            return filled
    return _answer_taken(turn, slot, said, after, judge.catalog.handoff)


INVARIANT = Invariant("asked_slot_first", "b", "a bare answer goes to the slot asked", bare_answer_goes_to_asked_slot)
