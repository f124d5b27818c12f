"""Load errors of the flow language's second part: conditions, follow-up flows, promised keys.

Each check yields ``(path, message, hint)``; ``BotChecks`` positions them. They are errors: a bot
with one of them would misbehave at run time (a condition that cannot be read, a flow that does
not exist, a reply that prints an empty hole).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from dialogkit.spec.conditions import ConditionError, parse_condition
from dialogkit.spec.schema import BotFile, FlowSpec, LocalizedText, Prompt, SlotSpec
from dialogkit.spec.yaml_source import YamlPath
from dialogkit.strings.placeholders import placeholders
from dialogkit.strings.suggest import did_you_mean

Found = tuple[YamlPath, str, str]


def flow_language_problems(spec: BotFile) -> Iterator[Found]:
    """Every error of this part, flow by flow, in file order."""
    for name, flow in spec.flows.items():
        base: YamlPath = ("flows", name)
        yield from _conditions(flow, base)
        yield from _then(spec, flow, base)
        yield from _returns_placeholders(flow, base)
        yield from _impossible_one_of(spec, flow, base)


def _condition(source: str, names: list[str], path: YamlPath) -> Iterator[Found]:
    try:
        parse_condition(source, names)
    except ConditionError as error:
        unknown = str(error).rsplit("'", 2)[-2] if "unknown slot" in str(error) else None
        guess = did_you_mean(unknown, names) if unknown else None
        hint = (f"did you mean '{guess}'?" if guess else
                "slots: " + (", ".join(names) or "(none)") + "; compare with ==, !=, <, >, in, and, or, not")
        yield path, str(error), hint


def _conditions(flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    names = [s.name for s in flow.slots]
    for index, slot in enumerate(flow.slots):
        if slot.ask_if is not None:
            yield from _condition(slot.ask_if, names, (*base, "slots", index, "ask_if"))
    if flow.execute.when is not None:
        yield from _condition(flow.execute.when, names, (*base, "execute", "when"))
        if flow.execute.then is None:
            yield ((*base, "execute", "when"), "execute.when without execute.then decides nothing",
                   "add then: FLOW, or remove when")


def _then(spec: BotFile, flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    target = flow.execute.then
    if target is None or target in spec.flows:
        return
    guess = did_you_mean(target, list(spec.flows))
    yield ((*base, "execute", "then"), f"then names no flow: '{target}'",
           f"did you mean '{guess}'?" if guess else "flows: " + ", ".join(spec.flows))


def slot_asks(slot: SlotSpec, path: YamlPath) -> Iterator[tuple[Prompt, YamlPath]]:
    """Each question of a slot with its path (``ask`` itself, or each item of a list)."""
    if isinstance(slot.ask_, list):
        for index, ask in enumerate(slot.ask_):
            yield ask, (*path, "ask", index)
    elif slot.ask_ is not None:
        yield slot.ask_, (*path, "ask")


def prompt_texts(prompt: Prompt | None, path: YamlPath) -> Iterator[tuple[str, YamlPath]]:
    if isinstance(prompt, LocalizedText):
        for language in ("zh", "en"):
            text = getattr(prompt, language)
            if text is not None:
                yield text, (*path, language)
    elif prompt is not None:
        yield prompt, path


def _returns_placeholders(flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    """With ``returns`` declared, say and on_error may name only slots and those keys."""
    if not flow.execute.returns or flow.execute.action is None:
        return
    allowed = [*(s.name for s in flow.slots), *flow.execute.returns]
    for key, extra in (("say", []), ("on_error", ["error"])):
        for text, path in prompt_texts(getattr(flow.execute, key), (*base, "execute", key)):
            for name in _names(text):
                if name not in allowed and name not in extra:
                    guess = did_you_mean(name, allowed)
                    yield (path, f"{key} placeholder {{{name}}} is no slot and no key the action returns",
                           f"did you mean {{{guess}}}?" if guess else
                           "add it to execute.returns, or use one of: " + ", ".join(allowed))


def _names(text: str) -> list[str]:
    try:
        return list(dict.fromkeys(placeholders(text)))
    except ValueError:
        return []          # unbalanced braces: reported by the placeholder check


def _producible(spec: BotFile, entity: str, item: Any) -> bool | None:
    """Whether the entity type can ever produce ``item``; None when that cannot be told here."""
    if entity in ("number", "integer"):
        try:
            number = float(str(item))
        except ValueError:
            return False
        return entity == "number" or number.is_integer()
    declared = spec.entities.get(entity)
    if declared is None or declared.pattern is None:
        return None                      # value sets are checked with the slot's rules
    try:
        return re.search(declared.pattern, str(item)) is not None
    except re.error:
        return None                      # a broken pattern is reported on its own


def _impossible_one_of(spec: BotFile, flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    """``one_of: [one, two]`` on an integer slot: a value the slot can never be filled with."""
    for index, slot in enumerate(flow.slots):
        if slot.entity is None:
            continue
        for rule_index, rule in enumerate(slot.validate_):
            for item_index, item in enumerate(rule.one_of or []):
                if _producible(spec, slot.entity, item) is False:
                    yield ((*base, "slots", index, "validate", rule_index, "one_of", item_index),
                           f"one_of lists '{item}', which entity type '{slot.entity}' can never produce",
                           f"list values of type {slot.entity}, or change the slot's entity")
