"""Checks of meaning that need the whole bot file: names that must refer to something, regexes
that must compile, rules that must not contradict each other.

The schema (pydantic) already guarantees the shape; this module finds what is well formed but
wrong: a slot of an entity type nobody declared, a placeholder naming no slot, a memory action
that does not exist, a flow no user can start. Every problem carries the position of the
offending value and a hint that says how to fix it. What needs the bot's code (actions,
``module:function`` memory actions) is checked by ``dialogkit.actions.checks``, one layer up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from dialogkit.errors import Problem
from dialogkit.spec.checks_flow_language import flow_language_problems, slot_asks
from dialogkit.spec.schema import (
    BUILTIN_ENTITY_TYPES,
    BUILTIN_MEMORY_ACTIONS,
    BotFile,
    FlowSpec,
    LocalizedText,
    Prompt,
    SlotSpec,
    SynonymValue,
    ValidationRule,
)
from dialogkit.spec.yaml_source import YamlDocument, YamlPath
from dialogkit.strings.placeholders import placeholders
from dialogkit.strings.suggest import did_you_mean

NUMERIC_TYPES = frozenset({"number", "integer"})
TEXTUAL_BUILTINS = frozenset({"phone", "email", "date", "time", "yes_no"})


def memory_lists(spec: BotFile) -> Iterator[tuple[list[str], YamlPath]]:
    """Every list of memory action names in the bot file, with its path, in file order."""
    yield spec.bot.memory.every_turn, ("bot", "memory", "every_turn")
    for name, flow in spec.flows.items():
        for trigger, names in flow.memory.items():
            yield names, ("flows", name, "memory", trigger)


def _blank_texts(spec: BotFile) -> Iterator[tuple[YamlPath, str]]:
    """Labels, aliases and trigger items written empty: each would show as nothing ("(, damaged)")
    or match everywhere, so each is a problem at its place."""
    for name, entity in spec.entities.items():
        for value, form in (entity.values or {}).items():
            path: YamlPath = ("entities", name, "values", value)
            aliases = form if isinstance(form, list) else form.aliases
            yield from _blank_items(aliases, path if isinstance(form, list) else (*path, "aliases"), "an alias")
            if isinstance(form, SynonymValue):
                yield from _blank_label(form.label, (*path, "label"), f"the label of value '{value}'")
    for name, flow in spec.flows.items():
        base: YamlPath = ("flows", name)
        yield from _blank_items(flow.trigger.examples, (*base, "trigger", "examples"), "a trigger example")
        yield from _blank_items(flow.trigger.keywords, (*base, "trigger", "keywords"), "a trigger keyword")
        for index, slot in enumerate(flow.slots):
            yield from _blank_label(slot.label, (*base, "slots", index, "label"), f"the label of slot '{slot.name}'")


def _blank_items(items: list[str], path: YamlPath, what: str) -> Iterator[tuple[YamlPath, str]]:
    yield from (((*path, index), what) for index, item in enumerate(items) if not item.strip())


def _blank_label(label: Prompt | None, path: YamlPath, what: str) -> Iterator[tuple[YamlPath, str]]:
    if label is None:
        return
    texts = list(_texts(label, path))
    if not texts:
        yield path, what
    yield from ((where, what) for text, where in texts if not text.strip())


def _texts(prompt: Prompt | None, path: YamlPath) -> Iterator[tuple[str, YamlPath]]:
    """Each language's text of a prompt with the path of that text."""
    if prompt is None:
        return
    if isinstance(prompt, LocalizedText):
        for language in ("zh", "en"):
            text = getattr(prompt, language)
            if text is not None:
                yield text, (*path, language)
    else:
        yield prompt, path


class BotChecks:
    """Runs every semantic check over one bot file; ``run()`` returns the problems found.

    ``pruned`` names flows and entity types the loader dropped because they were malformed
    (their own problems are already reported), so nothing here complains they are missing.
    ``written`` is the bot file as written, before its values files were read in: their rows
    were checked for empty texts as they were read, so only the file's own values are looked
    at again (a catalogue's 50,000 rows cost a tenth of a second more).
    """

    def __init__(self, spec: BotFile, document: YamlDocument,
                 pruned: set[tuple[str, str]] | None = None, written: BotFile | None = None) -> None:
        self.spec = spec
        self.written = written or spec
        self.document = document
        self.pruned = pruned or set()
        self.problems: list[Problem] = []

    def run(self) -> list[Problem]:
        self.problems = []
        self._check_entity_patterns()
        self._check_entity_any()
        self._check_handoff()
        self._check_timezone()
        intents: dict[str, str] = {}
        for name, flow in self.spec.flows.items():
            base: YamlPath = ("flows", name)
            self._check_startable(name, flow, base)
            self._check_duplicate_intent(name, flow, base, intents)
            self._check_slots(flow, base)
            self._check_prompts(flow, base)
        for path, what in _blank_texts(self.written):
            self._add(path, f"{what} is empty", "write the text, or remove it (a label left out is the name)")
        for names, path in memory_lists(self.spec):
            self._check_memory_list(names, path)
        for path, message, hint in flow_language_problems(self.spec):
            self._add(path, message, hint)
        return self.problems

    # -- helpers -------------------------------------------------------------------------------

    def _add(self, path: YamlPath, message: str, hint: str = "", *, at_key: bool = False) -> None:
        self.problems.append(self.document.problem(path, message, hint, at_key=at_key))

    def _check_regex(self, pattern: str, path: YamlPath, what: str) -> None:
        try:
            re.compile(pattern)
        except re.error as error:
            where = f" at position {error.pos}" if error.pos is not None else ""
            self._add(path, f"{what} is not a valid regular expression: {error.msg}{where}",
                      "patterns use Python 're' syntax; in YAML, single-quote them: '\\d{5}'")

    # -- bot-level -----------------------------------------------------------------------------

    def _check_entity_patterns(self) -> None:
        for name, entity in self.spec.entities.items():
            if entity.pattern is not None:
                self._check_regex(entity.pattern, ("entities", name, "pattern"),
                                  f"the pattern of entity type '{name}'")

    def _check_entity_any(self) -> None:
        """``any:`` names the value an "any" answer fills in, so it must be one of the type's values."""
        for name, entity in self.spec.entities.items():
            if entity.any is None or entity.any in (entity.values or {}):
                continue
            canon = list(entity.values or {})
            guess = did_you_mean(entity.any, canon)
            hint = (f"did you mean '{guess}'?" if guess else "values: " + ", ".join(canon)) if canon else (
                "add the value under values:, with the aliases that mean it")
            self._add(("entities", name, "any"),
                      f"any names '{entity.any}', which is not a value of entity type '{name}'", hint)

    def _check_handoff(self) -> None:
        handoff = self.spec.bot.handoff
        if handoff and handoff not in self.spec.flows and ("flows", handoff) not in self.pruned:
            guess = did_you_mean(handoff, self.spec.flows)
            self._add(("bot", "handoff"), f"handoff names no flow: '{handoff}'",
                      f"did you mean '{guess}'?" if guess else "flows: " + ", ".join(self.spec.flows))

    def _check_timezone(self) -> None:
        """The zone is looked up once here, so that a bot never starts with a clock it cannot read."""
        name = self.spec.bot.timezone
        try:
            ZoneInfo(name)
            return
        except (ZoneInfoNotFoundError, ValueError, OSError):   # "", "../x", "Asia" (a folder)...
            pass
        guess = did_you_mean(name, available_timezones() | {"UTC"})   # listed only on a mistake: slow
        self._add(("bot", "timezone"), f"unknown time zone '{name}'",
                  f"did you mean '{guess}'?" if guess else
                  "write an IANA name such as Asia/Shanghai, Europe/Berlin, America/New_York or UTC")

    # -- per flow ------------------------------------------------------------------------------

    def _check_startable(self, name: str, flow: FlowSpec, base: YamlPath) -> None:
        if flow.trigger.examples or flow.trigger.keywords or name == self.spec.bot.handoff:
            return
        self._add(base, f"flow '{name}' can never start: it has no trigger examples and no keywords",
                  "add trigger.examples (sample sentences, zh and en) or trigger.keywords", at_key=True)

    def _check_duplicate_intent(self, name: str, flow: FlowSpec, base: YamlPath,
                                intents: dict[str, str]) -> None:
        intent = flow.trigger.intent or name
        if intent in intents:
            path = (*base, "trigger", "intent") if flow.trigger.intent else base
            self._add(path, f"intent '{intent}' of flow '{name}' is already the intent of flow "
                      f"'{intents[intent]}'", "give each flow its own intent name",
                      at_key=not flow.trigger.intent)
        else:
            intents[intent] = name

    def _check_slots(self, flow: FlowSpec, base: YamlPath) -> None:
        seen: set[str] = set()
        for index, slot in enumerate(flow.slots):
            path = (*base, "slots", index)
            if slot.name in seen:
                self._add((*path, "name"), f"duplicate slot name '{slot.name}' in this flow",
                          "each slot of a flow needs its own name")
            seen.add(slot.name)
            if isinstance(slot.ask_, list) and not slot.ask_:
                self._add((*path, "ask"), f"slot '{slot.name}' has an empty list of questions (ask: [])",
                          "write its question, or a list of wordings asked in turn after failed answers; "
                          "leave ask out for the default question")
            self._check_slot_entity(slot, path)
            self._check_slot_rules(slot, path)

    def _check_slot_entity(self, slot: SlotSpec, path: YamlPath) -> None:
        entity = slot.entity
        if entity is None or entity in BUILTIN_ENTITY_TYPES or entity in self.spec.entities:
            return
        if ("entities", entity) in self.pruned:
            return
        known = [*self.spec.entities, *BUILTIN_ENTITY_TYPES]
        guess = did_you_mean(entity, known)
        self._add((*path, "entity"), f"slot '{slot.name}' uses unknown entity type '{entity}'",
                  f"did you mean '{guess}'?" if guess
                  else "declare it under entities:, or use a built-in type: " + ", ".join(BUILTIN_ENTITY_TYPES))

    def _value_kind(self, slot: SlotSpec) -> str:
        """'number', 'text', 'choice' (a synonym dictionary), or 'unknown' (a custom regex)."""
        if slot.entity is None or slot.entity in TEXTUAL_BUILTINS:
            return "text"
        if slot.entity in NUMERIC_TYPES:
            return "number"
        spec = self.spec.entities.get(slot.entity)
        if spec is not None and spec.pattern is None and spec.values:
            return "choice"
        return "unknown"

    def _check_slot_rules(self, slot: SlotSpec, path: YamlPath) -> None:
        kind = self._value_kind(slot)
        what = f"slot '{slot.name}'" + (f" (entity {slot.entity})" if slot.entity else " (free text)")
        for index, rule in enumerate(slot.validate_):
            rule_path = (*path, "validate", index)
            if rule.pattern is not None:
                self._check_regex(rule.pattern, (*rule_path, "pattern"),
                                  f"the validation pattern of slot '{slot.name}'")
            self._check_rule_fits(rule, rule_path, kind, what)
            if kind == "choice" and rule.one_of is not None and slot.entity:
                self._check_one_of(rule.one_of, (*rule_path, "one_of"), slot.entity)
        self._check_bounds(slot, path, "min", "max")
        self._check_bounds(slot, path, "min_length", "max_length")

    def _check_rule_fits(self, rule: ValidationRule, path: YamlPath, kind: str, what: str) -> None:
        """min/max compare numbers, min_length/max_length measure text: each on its own kind."""
        if kind in ("text", "choice"):
            for key in ("min", "max"):
                if getattr(rule, key) is not None:
                    self._add((*path, key), f"'{key}' compares numbers, but {what} does not hold a number",
                              "use min_length/max_length for text, or entity: number")
        if kind == "number":
            for key in ("min_length", "max_length"):
                if getattr(rule, key) is not None:
                    self._add((*path, key), f"'{key}' measures text, but {what} holds a number",
                              "use min/max for numbers")

    def _check_one_of(self, items: list[Any], path: YamlPath, entity: str) -> None:
        canon = list(self.spec.entities[entity].values or {})
        for index, item in enumerate(items):
            if str(item) not in canon:
                guess = did_you_mean(str(item), canon)
                self._add((*path, index), f"one_of lists '{item}', which is not a value of entity type '{entity}'",
                          f"did you mean '{guess}'?" if guess else "values: " + ", ".join(canon))

    def _check_bounds(self, slot: SlotSpec, path: YamlPath, low_key: str, high_key: str) -> None:
        lows = [(getattr(r, low_key), i) for i, r in enumerate(slot.validate_) if getattr(r, low_key) is not None]
        highs = [(getattr(r, high_key), i) for i, r in enumerate(slot.validate_) if getattr(r, high_key) is not None]
        if not lows or not highs:
            return
        low, _ = max(lows)
        high, high_index = min(highs)
        if low > high:
            self._add((*path, "validate", high_index, high_key),
                      f"slot '{slot.name}' can never be valid: {low_key} {_num(low)} is above {high_key} {_num(high)}",
                      f"swap them, or lower {low_key}")

    def _check_prompts(self, flow: FlowSpec, base: YamlPath) -> None:
        slot_names = [slot.name for slot in flow.slots]
        for index, slot in enumerate(flow.slots):
            for ask, path in slot_asks(slot, (*base, "slots", index)):
                self._check_placeholders(ask, path, slot_names, "ask")
        if flow.confirm is not None:
            self._check_placeholders(flow.confirm.ask, (*base, "confirm", "ask"), slot_names, "confirm.ask")
        # say/on_error may also name the action's result keys, unknowable here: with an action they
        # are only checked for balanced braces.
        strict = flow.execute.action is None and not flow.execute.returns
        self._check_placeholders(flow.execute.say, (*base, "execute", "say"),
                                 slot_names if strict else None, "say")
        self._check_placeholders(flow.execute.on_error, (*base, "execute", "on_error"),
                                 [*slot_names, "error"] if strict else None, "on_error")

    def _check_placeholders(self, prompt: Prompt | None, path: YamlPath, allowed: list[str] | None,
                            what: str) -> None:
        for text, text_path in _texts(prompt, path):
            try:
                names = placeholders(text)
            except ValueError as error:
                self._add(text_path, f"{what} has unbalanced braces: {error}",
                          "write {slot_name} for a value; double a brace ({{ or }}) to show it")
                continue
            if allowed is None:
                continue
            for name in dict.fromkeys(names):
                if name not in allowed:
                    guess = did_you_mean(name, allowed)
                    self._add(text_path, f"{what} placeholder {{{name}}} names no slot of this flow",
                              f"did you mean {{{guess}}}?" if guess
                              else "slots: " + (", ".join(allowed) if allowed else "(none)"))

    # -- memory actions ------------------------------------------------------------------------

    def _check_memory_list(self, names: list[str], path: YamlPath) -> None:
        """Built-in names must exist; a ``module:function`` is resolved with the bot's code."""
        for index, name in enumerate(names):
            if name in BUILTIN_MEMORY_ACTIONS or ":" in name:
                continue
            guess = did_you_mean(name, BUILTIN_MEMORY_ACTIONS)
            self._add((*path, index), f"unknown memory action '{name}'",
                      f"did you mean '{guess}'?" if guess
                      else "built-in: " + ", ".join(BUILTIN_MEMORY_ACTIONS)
                      + "; or package.module:function, registered with @memory_action")


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
