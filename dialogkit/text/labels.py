"""The texts of one bot: labels of flows, slots and values, and the questions built from them.

``Texts`` is what the engine and the memory actions render with; they receive it instead of
reaching for the bot. Flow descriptions and value labels are cached per language: the help text,
the summary and the context window ask for them on every turn.

A value is shown in the turn's language from end to end (docs/behaviours.md, item 21): its label
in that language; else its first alias written in that language (Han characters for zh, Latin
letters for en; the canonical value counts as the first alias unless it is an identifier such as
``bank_transfer``); else its label in the other language; else the canonical value. A reply to a
Chinese turn never says "John Smith" when the bot file gives 约翰.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from dialogkit.lexicon import auto_languages, languages, lexicon, writing
from dialogkit.spec.schema import BotFile, EntityTypeSpec, FlowSpec, LocalizedText, Prompt, SlotSpec, prompt_text
from dialogkit.strings.cjk import has_cjk
from dialogkit.text.phrases import format_value, phrase, prompt, spoken_list

__all__ = ["Texts", "declared_value_label", "flow_description", "label_noun", "slot_name_label", "written_in"]

YES_NO = {"zh": ["确认", "取消"], "en": ["yes", "no"], "es": ["sí", "no"]}
"""Quick replies offered at a confirmation (a language without its own: the English ones)."""

BOOL_WORDS = {"zh": ("否", "是"), "en": ("no", "yes"), "es": ("no", "sí")}
"""A ``yes_no`` value as a reply shows it: a word of the turn's language, never Python's False/True."""


def flow_description(flow: FlowSpec, name: str, language: str) -> str:
    """A flow's description in ``language``: "中文 / English" descriptions are split on the slash."""
    text = flow.description or name.replace("_", " ")
    if " / " in text:
        zh, _, en = text.partition(" / ")
        return zh.strip() if language == "zh" else en.strip()
    return text


def written_in(text: str, language: str) -> bool:
    """Whether a word reads as ``language``: Han characters for zh, Latin letters and no Han for en
    (and every language written in Latin letters)."""
    if writing(language).script == "han":
        return has_cjk(text)
    return not has_cjk(text) and any(ch.isalpha() for ch in text)


def _own_label(label: Prompt | None, language: str) -> str | None:
    """The label written for ``language`` itself (a plain string serves every language), not a fallback."""
    if isinstance(label, LocalizedText):
        own: str | None = getattr(label, language, None)
        return own
    return label


def declared_value_label(entity: EntityTypeSpec, value: str, language: str) -> str | None:
    """How a value the entity type declares is shown in ``language``; None when it declares no such value.

    The canonical value is a name only when it reads like one: ``bank_transfer`` is an
    identifier, so its aliases ("bank transfer") speak for it first.
    """
    entry = (entity.values or {}).get(value)
    if entry is None:
        return None
    aliases, label = (entry, None) if isinstance(entry, list) else (entry.aliases, entry.label)
    own = _own_label(label, language)
    if own:
        return own
    names = [str(a) for a in aliases] if "_" in value else [value, *(str(a) for a in aliases)]
    spoken = next((name for name in names if written_in(name, language)), None)
    if spoken is not None:
        return spoken
    return prompt_text(label, language) or value


_UNREAD: Any = object()
"""A label ``Texts.declared_label`` has not read yet (None is a label read: the value declares none)."""

_ZH_NOUN_SUFFIXES = ("编号", "号码", "编码", "代码", "号")


def label_noun(label: str, language: str) -> str | None:
    """The noun a slot label names its thing by: "保单号" -> 保单, "policy number" -> policy.

    A bot's own words for its entity types, so "这个保单" / "that policy" read as descriptions of
    a policy in bots whose types no built-in word list knows.
    """
    text = label.strip()
    if writing(language).script == "han":
        if not has_cjk(text):
            return None
        for suffix in _ZH_NOUN_SUFFIXES:
            if text.endswith(suffix) and len(text) > len(suffix) + 1:
                text = text[: -len(suffix)]
                break
        return text if len(text) >= 2 else None
    words = text.lower().split()
    if has_cjk(text) or not words:
        return None
    suffixes, prefixes = _noun_affixes(language)
    while len(words) > 1 and words[-1] in suffixes:
        words.pop()
    noun = " ".join(words)
    for prefix in prefixes:      # "número de pedido" -> pedido
        if noun.startswith(prefix + " ") and len(noun) > len(prefix) + 1:
            noun = noun[len(prefix) + 1:]
            break
    return noun if len(noun) >= 3 and noun.replace(" ", "").isalpha() else None


@functools.cache
def _noun_affixes(language: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The words a label puts after its noun ("order number") and the phrases it puts before it
    ("número de pedido"), from the lexicon (English's for a language without a lexicon)."""
    words = lexicon(language if language in languages() else "en")
    suffixes = frozenset(words.words("label_suffixes")) if words.has("label_suffixes") else frozenset()
    prefixes = words.words("label_prefixes") if words.has("label_prefixes") else ()
    return suffixes, tuple(sorted(prefixes, key=len, reverse=True))


def slot_name_label(slot: SlotSpec, language: str) -> str:
    """A slot's own label ("订单号" / "order number"), else its name with spaces."""
    if slot.label is not None:
        return prompt_text(slot.label, language)
    return slot.name.replace("_", " ")


class Texts:
    """Labels and questions of one bot file, in either language."""

    def __init__(self, spec: BotFile) -> None:
        self.spec = spec
        self._descriptions: dict[tuple[str, str], str] = {}
        self._value_labels: dict[tuple[str, str, str], str | None] = {}
        self._by_label: dict[str, dict[str, str]] = {}
        self._nouns: dict[str, dict[str, tuple[str, ...]]] | None = None

    @functools.cached_property
    def languages(self) -> tuple[str, ...]:
        """The languages the bot's labels are read in: those ``auto`` picks between (a turn may
        be in either whatever the file says), and the file's own language beside them (es)."""
        own = self.spec.bot.language
        return auto_languages() + ((own,) if own in languages() and own not in auto_languages() else ())

    def describe_flow(self, name: str, language: str) -> str:
        key = (name, language)
        text = self._descriptions.get(key)
        if text is None:
            text = self._descriptions[key] = flow_description(self.spec.flows[name], name, language)
        return text

    def task_label(self, name: str, language: str) -> str:
        """The task as a sentence names it: “报告问题” / "report a problem"."""
        desc = self.describe_flow(name, language)
        if language == "zh":
            return f"“{desc}”"
        return f'"{desc[:1].lower() + desc[1:]}"'

    def slot_label(self, slot: SlotSpec | None, language: str) -> str:
        return slot_name_label(slot, language) if slot is not None else ""

    def value_label(self, slot: SlotSpec | None, value: Any, language: str) -> str:
        """A slot value for display in ``language`` (the rule in the module docstring)."""
        return self.entity_value_label(slot.entity if slot is not None else None, value, language)

    def entity_value_label(self, entity_type: str | None, value: Any, language: str) -> str:
        """A value of an entity type for display in ``language``; a value the type does not
        declare (an order number, a number) shows as written."""
        if type(value) is str and entity_type:
            # Most labels asked (the summary's, the templates'): a text value whose label is read
            # already, found with one lookup rather than through ``declared_label``.
            label = self._value_labels.get((entity_type, value, language), _UNREAD)
            if label is _UNREAD:
                label = self.declared_label(entity_type, value, language)
            return value if label is None else label
        if isinstance(value, bool):
            return BOOL_WORDS.get(language, BOOL_WORDS["en"])[value]
        if isinstance(value, list):      # a list slot's values, each by its label
            return spoken_list([self.entity_value_label(entity_type, v, language) for v in value], language)
        label = self.declared_label(entity_type, value, language)
        return format_value(value) if label is None else label

    def declared_label(self, entity_type: str | None, value: Any, language: str) -> str | None:
        """The display label of a value the bot file declares for ``entity_type``, else None.

        Memory uses it to tell a value the bot can name from one only the user's words name.
        """
        if not entity_type or not isinstance(value, str):
            return None
        key = (entity_type, value, language)
        if key not in self._value_labels:
            entity = self.spec.entities.get(entity_type)
            self._value_labels[key] = declared_value_label(entity, value, language) if entity else None
        return self._value_labels[key]

    def value_labelled(self, entity_type: str, text: str) -> str | None:
        """The first value of ``entity_type`` whose label in either language is ``text`` (case
        ignored), else None. Indexed once per type: a turn of a 50,000-value catalogue then
        looks one label up instead of making every value's."""
        if entity_type not in self._by_label:
            index: dict[str, str] = {}
            entity = self.spec.entities.get(entity_type)
            for value in (entity.values or {}) if entity is not None else ():
                for language in self.languages:
                    index.setdefault(self.entity_value_label(entity_type, value, language).lower(), value)
            self._by_label[entity_type] = index
        return self._by_label[entity_type].get(text.lower())

    def type_nouns(self, entity_type: str, language: str) -> tuple[str, ...]:
        """Nouns the bot's own slot labels give a declared entity type, in ``language``."""
        if self._nouns is None:
            self._nouns = self._label_nouns()
        return self._nouns.get(language, {}).get(entity_type, ())

    def _label_nouns(self) -> dict[str, dict[str, tuple[str, ...]]]:
        found: dict[str, dict[str, list[str]]] = {code: {} for code in self.languages}
        for flow in self.spec.flows.values():
            for slot in flow.slots:
                if slot.entity not in self.spec.entities or slot.label is None:
                    continue
                for language, nouns in found.items():
                    noun = label_noun(prompt_text(slot.label, language), language)
                    if noun and noun not in nouns.setdefault(slot.entity, []):
                        nouns[slot.entity].append(noun)
        for language, words in self.spec.lexicon.items():     # the bot's own nouns for a slot: 包裹, parcel
            for flow in self.spec.flows.values():
                for slot in flow.slots:
                    if slot.entity in self.spec.entities and slot.name in words.slot_nouns:
                        held = found.setdefault(language, {}).setdefault(slot.entity, [])
                        held += [n for n in words.slot_nouns[slot.name] if n not in held]
        return {language: {t: tuple(n) for t, n in nouns.items()} for language, nouns in found.items()}

    def labelled_value(self, slot: SlotSpec | None, value: Any, language: str) -> str:
        """A value for a model to read: "原路退回 (original)", the label and the canonical value that
        slots and actions hold; just the value when the two are the same."""
        return self.labelled_entity_value(slot.entity if slot is not None else None, value, language)

    def labelled_entity_value(self, entity_type: str | None, value: Any, language: str) -> str:
        """``labelled_value`` for a value of an entity type (a remembered entity, not a slot)."""
        label = self.entity_value_label(entity_type, value, language)
        canonical = format_value(value)
        return label if label == canonical else f"{label} ({canonical})"

    def template_values(self, flow: FlowSpec, slots: Mapping[str, Any], language: str) -> dict[str, str]:
        """The filled slots of ``flow`` as their display labels, for a template."""
        out: dict[str, str] = {}
        for slot in flow.slots:
            value = slots.get(slot.name)
            if value is not None:
                out[slot.name] = self.value_label(slot, value, language)
        return out

    def prompt(self, p: Prompt | None, language: str, values: Mapping[str, str] | None = None) -> str:
        return prompt(p, language, values or {})

    def ask(self, flow: FlowSpec, slot: SlotSpec, language: str, slots: Mapping[str, Any]) -> str:
        """The slot's question, its placeholders filled from the task's values."""
        if slot.ask is not None:
            return prompt(slot.ask, language, self.template_values(flow, slots, language))
        return phrase("ask_slot", language, slot=slot_name_label(slot, language))

    def confirm(self, flow_name: str, slots: Mapping[str, Any], language: str) -> str:
        flow = self.spec.flows[flow_name]
        if flow.confirm is None:
            return phrase("confirm_default", language, task=self.task_label(flow_name, language))
        return prompt(flow.confirm.ask, language, self.template_values(flow, slots, language))

    def help(self, language: str) -> str:
        """What the bot can do, one flow per line (the answer to unknown input in IDLE)."""
        lines = [phrase("help_intro", language)]
        lines += [phrase("help_item", language, description=self.describe_flow(name, language))
                  for name in self.spec.flows]
        return "\n".join(lines)

    def yes_no(self, language: str) -> list[str]:
        return list(YES_NO.get(language, YES_NO["en"]))
