"""The prompts dialogkit sends, in one place so they can be read and reviewed as text.

Instructions are written in English (models follow them best) and tell the model which language
to answer in; the user's own words are never translated, so Chinese and English input are
treated alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dialogkit.lexicon import writing
from dialogkit.spec.schema import BotFile, FlowSpec
from dialogkit.text.phrases import PHRASES, phrase

LANGUAGE_NAMES = PHRASES["language_name"]
"""The name of each language, as the instructions (in English) tell the model to answer in it."""

UNDERSTAND_INSTRUCTIONS = """\
You are the language-understanding step of a task-oriented assistant. You do not talk to the
user. Read the conversation and the user's LAST message, then answer with JSON only:
{{"commands": [...]}} using these commands (several may apply, in order):
- {{"command": "start_flow", "flow": NAME}}      the user wants to start one of the flows below
- {{"command": "set_slot", "slot": NAME, "value": VALUE}}   the user gave a value for a slot
- {{"command": "correct_slot", "slot": NAME, "value": VALUE}}  the user changes a value given before
- {{"command": "confirm"}} / {{"command": "deny"}}     yes / no to the bot's confirmation question
- {{"command": "cancel"}}                          the user abandons the current task
- {{"command": "clarify", "question": TEXT}}       the message is ambiguous; TEXT asks which is meant
- {{"command": "chit_chat"}}                       small talk or anything off-task
Use only the flow and slot names listed. For a slot with listed values, give the canonical
value (the key), never the alias. Copy numbers and identifiers exactly as the user wrote them.
Never invent a value the user did not state. The user may write Chinese or English.

Flows:
{flows}

Active flow: {active_flow}
Question awaiting an answer (slot): {pending_slot}"""

SUMMARY_INSTRUCTIONS = """\
Summarise the following conversation excerpt in {language}, in at most {max_sentences}
sentences. Keep every fact the user stated (names, numbers, order ids, dates, choices) exactly;
drop greetings and repetitions. Answer with the summary text only."""

TICKET_INSTRUCTIONS = """\
Maintain a support ticket summary in {language}. From the items below, answer with JSON only:
{{"facts": [...], "confirmed": [...], "pending": [...]}} where "facts" are what the user stated,
"confirmed" what both sides agreed, and "pending" the actions still to happen. Each entry is one
short sentence; keep numbers and identifiers exactly; do not invent anything."""

REPHRASE_INSTRUCTIONS = """\
Rephrase the assistant message below in {language} so it sounds natural and friendly. Keep its
meaning, every number, identifier, name and date exactly, and its question if it asks one. Do
not add information. Answer with the rephrased message only."""


def _slot_line(spec: BotFile, slot_name: str, entity: str | None, required: bool, description: str | None) -> str:
    parts = [f"    - {slot_name}"]
    if entity:
        parts.append(f"type={entity}")
        entity_spec = spec.entities.get(entity)
        if entity_spec is not None and entity_spec.values:
            parts.append("values=" + json.dumps(entity_spec.synonyms(), ensure_ascii=False))
    if not required:
        parts.append("optional")
    if description:
        parts.append(f"({description})")
    return " ".join(parts)


def describe_flows(spec: BotFile) -> str:
    """One block per flow: name, description, slots with their types and canonical values."""
    blocks: list[str] = []
    for name, flow in spec.flows.items():
        blocks.append(_describe_flow(spec, name, flow))
    return "\n".join(blocks)


def _describe_flow(spec: BotFile, name: str, flow: FlowSpec) -> str:
    lines = [f"- {name}: {flow.description or flow.trigger.intent or name}"]
    if flow.trigger.examples:
        lines.append("    examples: " + json.dumps(flow.trigger.examples[:4], ensure_ascii=False))
    for slot in flow.slots:
        lines.append(_slot_line(spec, slot.name, slot.entity, slot.required, slot.description))
    return "\n".join(lines)


def understand_prompt(spec: BotFile, active_flow: str | None, pending_slot: str | None) -> str:
    return UNDERSTAND_INSTRUCTIONS.format(
        flows=describe_flows(spec),
        active_flow=active_flow or "none",
        pending_slot=pending_slot or "none",
    )


def summary_messages(items: Sequence[str], language: str, *, max_sentences: int = 3) -> list[dict[str, Any]]:
    instructions = SUMMARY_INSTRUCTIONS.format(
        language=LANGUAGE_NAMES.get(language, language), max_sentences=max_sentences
    )
    return [{"role": "system", "content": instructions}, {"role": "user", "content": "\n".join(items)}]


def ticket_messages(items: Sequence[str], language: str) -> list[dict[str, Any]]:
    instructions = TICKET_INSTRUCTIONS.format(language=LANGUAGE_NAMES.get(language, language))
    return [{"role": "system", "content": instructions}, {"role": "user", "content": "\n".join(items)}]


def rephrase_messages(text: str, language: str) -> list[dict[str, Any]]:
    instructions = REPHRASE_INSTRUCTIONS.format(language=LANGUAGE_NAMES.get(language, language))
    return [{"role": "system", "content": instructions}, {"role": "user", "content": text}]


def render_ticket(sections: dict[str, list[str]], language: str) -> str:
    """The three sections as text with localized headings (empty sections show a dash)."""
    colon = writing(language).colon.strip()
    lines: list[str] = []
    for key in ("facts", "confirmed", "pending"):
        lines.append(f"{phrase('ticket_' + key, language)}{colon}")
        entries = sections.get(key) or []
        if entries:
            lines.extend(f"- {entry}" for entry in entries)
        else:
            lines.append("- —")
    return "\n".join(lines)
