"""What a simulated user can say to one bot, read from its bot file alone.

Flows with their trigger examples and keywords, slots with their labels and rules, entity types
with every alias and label sorted by language. Nothing here knows any particular bot: a new bot
file gets conversations without a line of code (docs/testing.md, "simulation").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dialogkit.lexicon import auto_languages, languages, writing
from dialogkit.simulation import vocabulary
from dialogkit.simulation.shown_labels import ShownLabels
from dialogkit.simulation.word_finder import WordFinder, word_pattern
from dialogkit.spec.conditions import Condition, parse_condition
from dialogkit.spec.schema import (
    BUILTIN_ENTITY_TYPES,
    BotFile,
    FaqSpec,
    FlowSpec,
    SlotSpec,
    ValidationRule,
    prompt_text,
)
from dialogkit.strings.cjk import has_cjk
from dialogkit.text.labels import flow_description, slot_name_label

__all__ = ["AUTO_HAN", "AUTO_LATIN", "Catalog", "EntityInfo", "FlowInfo", "SlotInfo", "ValueForms", "bot_latin",
           "language_of", "spoken", "word_pattern"]


@dataclass(frozen=True, slots=True)
class ValueForms:
    """One canonical value of an entity type: what users type for it, per language, and the
    label a reply shows in each language."""

    canonical: str
    said: dict[str, tuple[str, ...]]       # language -> aliases (and labels) written in it
    shown: dict[str, str]                  # language -> the label a reply uses
    labels_only: frozenset[str] = frozenset()   # labels that are no alias: shown, but not declared as input


@dataclass(frozen=True, slots=True)
class EntityInfo:
    name: str
    kind: str
    values: tuple[ValueForms, ...] = ()
    pattern: str | None = None

    @property
    def builtin(self) -> bool:
        return self.name in BUILTIN_ENTITY_TYPES

    def value(self, canonical: Any) -> ValueForms | None:
        return next((v for v in self.values if v.canonical == canonical), None)


@dataclass(frozen=True, slots=True)
class SlotInfo:
    flow: str
    name: str
    entity: str | None
    required: bool
    label: dict[str, str]
    rules: tuple[ValidationRule, ...]
    spec: SlotSpec
    condition: Condition | None = None     # its ask_if, parsed as the engine parses it


@dataclass(frozen=True, slots=True)
class FlowInfo:
    name: str
    examples: dict[str, tuple[str, ...]]   # language -> trigger examples written in it
    keywords: tuple[str, ...]
    slots: tuple[SlotInfo, ...]
    confirm: bool
    action: str | None
    spec: FlowSpec
    then: str | None = None                 # the follow-up flow its completion starts
    then_when: Condition | None = None      # ... only while this holds over the finished task's values

    def slot(self, name: str) -> SlotInfo | None:
        return next((s for s in self.slots if s.name == name), None)

    def needed(self, slot: SlotInfo, values: dict[str, Any]) -> bool:
        """Whether ``slot`` is asked under the task's values: its ``ask_if`` holds, evaluated by
        the engine's own condition, or it has none."""
        return slot.condition is None or slot.condition.holds(values, [s.name for s in self.slots])

    def missing(self, values: dict[str, Any]) -> list[SlotInfo]:
        """The required slots still empty that are asked now, in declaration order."""
        return [s for s in self.slots if s.required and values.get(s.name) is None and self.needed(s, values)]

    @property
    def entity_slots(self) -> tuple[SlotInfo, ...]:
        return tuple(s for s in self.slots if s.entity is not None)


AUTO_HAN = next(code for code in auto_languages() if writing(code).script == "han")
AUTO_LATIN = next(code for code in auto_languages() if writing(code).script == "latin")
"""The languages ``language: auto`` picks for Han text (zh) and for Latin words (en)."""


def language_of(text: str, latin: str = AUTO_LATIN) -> str:
    """The language a bot's word is in: Han characters make zh, Latin letters the bot's
    Latin-script language (``latin``: en, or es for a Spanish bot)."""
    return AUTO_HAN if has_cjk(text) else latin


def bot_latin(spec: BotFile) -> str:
    """The language a bot's Latin-script words are in: its own when its file names a Latin-script
    language (es), else en."""
    own = spec.bot.language
    return own if own in languages() and writing(own).script == "latin" else AUTO_LATIN


def spoken(latin: str) -> tuple[str, ...]:
    """The languages a bot's words are sorted into: those auto picks (zh, en), and the bot's own
    Latin-script language (es) beside them."""
    return tuple(dict.fromkeys((*auto_languages(), latin)))


def _value_forms(canonical: str, aliases: list[str], labels: dict[str, str], latin: str) -> ValueForms:
    said: dict[str, list[str]] = {lang: [] for lang in spoken(latin)}
    for alias in [*aliases, *labels.values()]:
        bucket = said[language_of(alias, latin)]
        if alias and alias not in bucket:
            bucket.append(alias)
    shown = {}
    for lang in spoken(latin):
        shown[lang] = labels.get(lang) or (said[lang][0] if said[lang] else canonical)
    declared = {a.lower() for a in aliases}
    labels_only = frozenset(label for label in labels.values() if label and label.lower() not in declared)
    return ValueForms(canonical, {k: tuple(v) for k, v in said.items()}, shown, labels_only)


def _entity(spec: BotFile, name: str) -> EntityInfo:
    declared = spec.entities.get(name)
    if declared is None:
        return EntityInfo(name, spec.entity_kind(name))
    values = []
    for canonical, aliases in declared.synonyms().items():
        entry = (declared.values or {})[canonical]
        label = getattr(entry, "label", None)
        labels = {lang: prompt_text(label, lang) for lang in spoken(bot_latin(spec))} if label is not None else {}
        values.append(_value_forms(canonical, aliases, labels, bot_latin(spec)))
    return EntityInfo(name, declared.kind, tuple(values), declared.pattern)


def _slot(flow: FlowSpec, name: str, slot: SlotSpec, latin: str) -> SlotInfo:
    label = {lang: slot_name_label(slot, lang) for lang in spoken(latin)}
    names = [s.name for s in flow.slots]
    condition = parse_condition(slot.ask_if, names) if slot.ask_if is not None else None
    return SlotInfo(name, slot.name, slot.entity, slot.required, label, tuple(slot.validate_), slot, condition)


def _flow(name: str, flow: FlowSpec, latin: str) -> FlowInfo:
    examples: dict[str, list[str]] = {lang: [] for lang in spoken(latin)}
    for text in flow.trigger.examples:
        examples[language_of(text, latin)].append(text)
    for lang in spoken(latin):
        if not examples[lang] and flow.description:
            examples[lang].append(flow_description(flow, name, lang))
    return FlowInfo(
        name=name, examples={k: tuple(v) for k, v in examples.items()}, keywords=tuple(flow.trigger.keywords),
        slots=tuple(_slot(flow, name, s, latin) for s in flow.slots), confirm=flow.confirm is not None,
        action=flow.execute.action, spec=flow, then=flow.execute.then,
        then_when=parse_condition(flow.execute.when, [s.name for s in flow.slots]) if flow.execute.when else None,
    )


def _faq_phrases(entry: FaqSpec, latin: str) -> dict[str, tuple[str, ...]]:
    """An FAQ entry's examples and keywords, per language: what a user asks it with."""
    out: dict[str, list[str]] = {lang: [] for lang in spoken(latin)}
    for text in [*entry.examples, *entry.keywords]:
        out[language_of(text, latin)].append(text)
    return {lang: tuple(texts) for lang, texts in out.items()}


class Catalog:
    """Everything the simulator may say to one bot, and the words it must keep apart."""

    def __init__(self, spec: BotFile) -> None:
        self.spec = spec
        self.latin = bot_latin(spec)
        self.flows = {name: _flow(name, flow, self.latin) for name, flow in spec.flows.items()}
        used = {s.entity for f in self.flows.values() for s in f.slots if s.entity}
        self.entities = {name: _entity(spec, name) for name in sorted(used | set(spec.entities))}
        self.keywords = tuple(sorted({k.lower() for f in self.flows.values() for k in f.keywords}))
        self.handoff = spec.bot.handoff
        self.faq = {name: _faq_phrases(entry, self.latin) for name, entry in spec.faq.items()}
        self.start_language = spec.bot.language if spec.bot.language in languages() else AUTO_LATIN
        self._alias_pattern = WordFinder(self.aliases())
        self._canonical: dict[str, set[str]] = {}
        types: dict[str, set[str]] = {}
        for entity in self.entities.values():
            for value in entity.values:
                for forms in value.said.values():
                    for form in forms:
                        self._canonical.setdefault(form.lower(), set()).add(value.canonical)
                        types.setdefault(form.lower(), set()).add(entity.name)
        self._types = {form: frozenset(names) for form, names in types.items()}
        self._shown: dict[str, ShownLabels[ValueForms]] = {}
        self.request_types: dict[str, frozenset[str]] = {}
        """Trigger example -> the entity types the bot reads in it (filled from the bot's own
        understanding by the harness; a text not listed reads as none)."""

    def aliases(self) -> list[str]:
        return [a for e in self.entities.values() for v in e.values for forms in v.said.values() for a in forms]

    def has_keyword(self, text: str) -> bool:
        """True when a trigger keyword of any flow occurs in ``text`` (which may then start it)."""
        lowered = text.lower()
        return any(k in lowered for k in self.keywords)

    def reads(self, entity: str | None, text: str, value: Any) -> bool:
        """Whether the bot file's own pattern for ``entity`` finds ``value`` in ``text``: a pattern
        that reads a value only in context ("尾号1234", or a number said alone) finds none in "no,
        make it 1202", so the simulator never counts on the bot reading it there. Types without
        a pattern read their values anywhere."""
        info = self.entities.get(entity) if entity else None
        if info is None or info.pattern is None:
            return True
        for match in re.finditer(info.pattern, text):
            group = next((g for g in match.groups() if g is not None), match.group())
            if group == value:
                return True
        return False

    def reads_anywhere(self, entity: str | None) -> bool:
        """Whether ``reads`` holds of every text for ``entity``: it has no pattern of its own."""
        info = self.entities.get(entity) if entity else None
        return info is None or info.pattern is None

    def has_alias(self, text: str) -> bool:
        """True when ``text`` holds any entity value's alias (it would be a mention)."""
        return self._alias_pattern.search(text) is not None

    def values_in(self, text: str) -> frozenset[str]:
        """The canonical values whose aliases or labels ``text`` holds: what it names, said or not."""
        found: set[str] = set()
        for match in self._alias_pattern.finditer(text):
            found |= self._canonical.get(match.group().lower(), set())
        return frozenset(found)

    def shown_labels(self, entity: str) -> ShownLabels[ValueForms]:
        """The labels of ``entity``'s values, indexed when first asked for (most runs never do)."""
        if entity not in self._shown:
            self._shown[entity] = ShownLabels(self.entities[entity].values)
        return self._shown[entity]

    def types_of(self, text: str) -> frozenset[str]:
        """The entity types that list ``text`` among their values' aliases and labels ("any" is
        a value of every type that has an ``any`` value)."""
        return self._types.get(text.lower(), frozenset())

    def neutral(self, phrases: tuple[str, ...]) -> tuple[str, ...]:
        """The phrases that hold neither an alias nor a trigger keyword of this bot."""
        return tuple(p for p in phrases if not self.has_alias(p) and not self.has_keyword(p))

    def off_topic(self, language: str) -> tuple[str, ...]:
        return self.neutral(vocabulary.OFF_TOPIC[language])

    def free_text(self, language: str) -> tuple[str, ...]:
        return self.neutral(vocabulary.FREE_TEXT[language])

    def action_flows(self, action: str) -> list[str]:
        return [f.name for f in self.flows.values() if f.action == action]

    def slot(self, flow: str | None, name: str) -> SlotInfo | None:
        info = self.flows.get(flow) if flow else None
        return info.slot(name) if info is not None else None
