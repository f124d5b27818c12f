"""The texts of one bot: labels of flows, slots and values, and the questions built from them.

``Texts`` is what the engine and the memory actions render with; they receive it instead of
reaching for the bot. Flow descriptions are cached per language: the help text, the summary and
the context window ask for them on every turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.spec.schema import BotFile, FlowSpec, Prompt, SlotSpec, prompt_text
from dialogkit.text.phrases import format_value, phrase, prompt

__all__ = ["Texts", "flow_description", "slot_name_label"]

YES_NO = {"zh": ["确认", "取消"], "en": ["yes", "no"]}
"""Quick replies offered at a confirmation."""


def flow_description(flow: FlowSpec, name: str, language: str) -> str:
    """A flow's description in ``language``: "中文 / English" descriptions are split on the slash."""
    text = flow.description or name.replace("_", " ")
    if " / " in text:
        zh, _, en = text.partition(" / ")
        return zh.strip() if language == "zh" else en.strip()
    return text


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
        """A slot value for display: the canonical value's label in ``language`` when it has one."""
        entity = slot.entity if slot is not None else None
        if entity and entity in self.spec.entities and isinstance(value, str):
            return self.spec.entities[entity].label(value, language)
        return format_value(value)

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
        return list(YES_NO["zh" if language == "zh" else "en"])
