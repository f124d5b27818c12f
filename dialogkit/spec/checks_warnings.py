"""Warnings of ``dialogkit validate``: things that load and run, but probably not as meant.

A warning never stops a bot from loading; ``dialogkit validate`` prints it, and fails on it only
with ``--strict``. Each comes with a position and a hint, like an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from dialogkit.errors import Problem
from dialogkit.spec.checks_flow_language import Found, prompt_texts, slot_asks
from dialogkit.spec.checks_overlaps import overlap_warnings
from dialogkit.spec.checks_slots import slot_warnings
from dialogkit.spec.schema import BotFile, FlowSpec, LocalizedText, Prompt
from dialogkit.spec.yaml_source import YamlDocument, YamlPath
from dialogkit.strings.placeholders import placeholders

_WORD_EDGE = re.compile(r"(?<!\\)\\b")


def bot_warnings(spec: BotFile, document: YamlDocument) -> list[Problem]:
    """Every warning of the bot file, positioned, in the order of the checks."""
    found = [*_missing_languages(spec), *_word_edges(spec), *_unpromised_placeholders(spec), *overlap_warnings(spec),
             *slot_warnings(spec)]
    return [document.problem(path, "warning: " + message, hint) for path, message, hint in found]


def _prompts(spec: BotFile) -> Iterator[tuple[Prompt | None, YamlPath]]:
    """Every prompt a user may read, with its path."""
    for name, flow in spec.flows.items():
        base: YamlPath = ("flows", name)
        for index, slot in enumerate(flow.slots):
            yield from slot_asks(slot, (*base, "slots", index))
            for rule_index, rule in enumerate(slot.validate_):
                yield rule.error, (*base, "slots", index, "validate", rule_index, "error")
        if flow.confirm is not None:
            yield flow.confirm.ask, (*base, "confirm", "ask")
        yield flow.execute.say, (*base, "execute", "say")
        yield flow.execute.on_error, (*base, "execute", "on_error")
    for name, entry in spec.faq.items():
        yield entry.answer, ("faq", name, "answer")


def _missing_languages(spec: BotFile) -> Iterator[Found]:
    """A bot replying in both languages: each {zh:, en:} prompt should have both."""
    if spec.bot.language != "auto":
        return
    for prompt, path in _prompts(spec):
        if isinstance(prompt, LocalizedText) and (prompt.zh is None or prompt.en is None):
            lacking = "zh" if prompt.zh is None else "en"
            yield (path, f"this prompt has no {lacking} text, but the bot replies in both languages",
                   f"add {lacking}: (without it a {lacking} user reads the other language)")


def _word_edges(spec: BotFile) -> Iterator[Found]:
    r"""``\b`` sees no edge between CJK text and a Latin letter or digit (序列号SN123 has none)."""
    if spec.bot.language == "en":
        return
    patterns: list[tuple[str, YamlPath]] = [
        (entity.pattern, ("entities", name, "pattern"))
        for name, entity in spec.entities.items() if entity.pattern is not None
    ]
    for flow_name, flow in spec.flows.items():
        for index, slot in enumerate(flow.slots):
            patterns.extend((rule.pattern, ("flows", flow_name, "slots", index, "validate", rule_index, "pattern"))
                            for rule_index, rule in enumerate(slot.validate_) if rule.pattern is not None)
    for pattern, path in patterns:
        if _WORD_EDGE.search(pattern):
            yield (path, r"\b in a pattern never matches next to Chinese text (序列号SNABCDEFGH12 has no word edge)",
                   r"write (?<![A-Za-z0-9]) before and (?![A-Za-z0-9]) after the value instead of \b")


def _unpromised_placeholders(spec: BotFile) -> Iterator[Found]:
    """say/on_error naming something that is no slot, with an action that declares no returns."""
    for name, flow in spec.flows.items():
        if flow.execute.action is None or flow.execute.returns:
            continue
        yield from _unpromised(flow, ("flows", name))


def _unpromised(flow: FlowSpec, base: YamlPath) -> Iterator[Found]:
    slots = {s.name for s in flow.slots}
    for key, extra in (("say", set()), ("on_error", {"error"})):
        for text, path in prompt_texts(getattr(flow.execute, key), (*base, "execute", key)):
            try:
                names = placeholders(text)
            except ValueError:
                continue
            for unknown in dict.fromkeys(n for n in names if n not in slots and n not in extra):
                yield (path, f"{key} placeholder {{{unknown}}} is no slot; nothing says the action returns it",
                       f"declare execute.returns: [{unknown}] so that it is checked, or fix the name")
