"""What the LLM may tell the bot: commands, their schema, and their validation by the rules.

The LLM never changes the conversation directly. It answers with a small list of commands
(``start_flow``, ``set_slot`` ...) that are parsed into pydantic models, then checked against
the bot file and the rule layer's value validation (``validate_commands``): a flow or slot that
does not exist, or a value the rules reject, is dropped with a warning. "The LLM proposes, the
rules validate." The calls that ask for them are in ``calls``. See docs/llms.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from dialogkit.errors import LLMError
from dialogkit.llm.bounds import MAX_COMMANDS
from dialogkit.llm.exchange import ToolCall
from dialogkit.llm.structured import StructuredAsk, first_json
from dialogkit.logging import get_logger
from dialogkit.spec.schema import BotFile, SlotSpec

__all__ = [
    "Cancel",
    "ChitChat",
    "Clarify",
    "Command",
    "Confirm",
    "CorrectSlot",
    "Deny",
    "SetSlot",
    "StartFlow",
    "ValueValidator",
    "command_ask",
    "command_schema",
    "commands_from",
    "extract_json",
    "parse_commands",
    "slot_spec",
    "validate_commands",
]

log = get_logger(__name__)


class _Command(BaseModel):
    # Extra keys are ignored: models often add a harmless "reason"; the shape is what matters.
    model_config = ConfigDict(extra="ignore", frozen=True)


class StartFlow(_Command):
    command: Literal["start_flow"] = "start_flow"
    flow: str


class SetSlot(_Command):
    command: Literal["set_slot"] = "set_slot"
    slot: str
    value: Any


class CorrectSlot(_Command):
    command: Literal["correct_slot"] = "correct_slot"
    slot: str
    value: Any


class Confirm(_Command):
    command: Literal["confirm"] = "confirm"


class Deny(_Command):
    command: Literal["deny"] = "deny"


class Cancel(_Command):
    command: Literal["cancel"] = "cancel"


class Clarify(_Command):
    command: Literal["clarify"] = "clarify"
    question: str


class ChitChat(_Command):
    command: Literal["chit_chat"] = "chit_chat"


Command = Annotated[
    StartFlow | SetSlot | CorrectSlot | Confirm | Deny | Cancel | Clarify | ChitChat,
    Field(discriminator="command"),
]
_COMMAND = TypeAdapter(Command)

ValueValidator = Callable[[SlotSpec, Any], tuple[bool, Any, str | None]]
"""(slot spec, proposed value) -> (ok, canonical value, error message): the rule layer's check."""


# ------------------------------------------------------------------------------ parsing

extract_json = first_json
"""JSON from a model's answer (kept under its old name)."""


def commands_from(data: Any) -> list[Command]:
    """Commands from the model's JSON; items that are not commands are dropped with a warning.

    Raises ``LLMError`` when ``data`` is not shaped like ``{"commands": [...]}`` (or a list, or
    one command), or none of its items is a command. Only the first ``MAX_COMMANDS`` items are
    read: what a model says beyond them costs no work.
    """
    if isinstance(data, dict) and isinstance(data.get("commands"), list):
        items = data["commands"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict) and "command" in data:
        items = [data]
    else:
        raise LLMError('the LLM answer has no "commands" list')
    if len(items) > MAX_COMMANDS:
        log.warning("llm_commands_capped", proposed=len(items), kept=MAX_COMMANDS)
        items = items[:MAX_COMMANDS]
    commands: list[Command] = []
    for item in items:
        try:
            commands.append(_COMMAND.validate_python(item))
        except ValidationError as exc:
            log.warning("llm_command_invalid", item=str(item)[:120], errors=exc.error_count())
    if items and not commands:
        raise LLMError("none of the LLM's commands is valid")
    return commands


def parse_commands(text: str) -> list[Command]:
    """Commands from the model's answer text (see ``commands_from``; raises ``LLMError``)."""
    return commands_from(first_json(text))


# ------------------------------------------------------------------------------ the schema

_COMMAND_HELP = {
    "start_flow": "The user wants to start this flow.",
    "set_slot": "The user gave a value for a slot.",
    "correct_slot": "The user changes a value given before.",
    "confirm": "Yes to the bot's confirmation question.",
    "deny": "No to the bot's confirmation question.",
    "cancel": "The user abandons the current task.",
    "clarify": "The message is ambiguous; the question asks which is meant.",
    "chit_chat": "Small talk or anything off-task.",
}


def _command_fields(spec: BotFile) -> dict[str, dict[str, dict[str, Any]]]:
    """Each command's fields (besides ``command``) as JSON Schema properties naming this bot's flows/slots."""
    slots = sorted({s.name for f in spec.flows.values() for s in f.slots}) or [""]
    slot_value: dict[str, dict[str, Any]] = {"slot": {"type": "string", "enum": slots}, "value": {"type": "string"}}
    return {
        "start_flow": {"flow": {"type": "string", "enum": list(spec.flows)}},
        "set_slot": slot_value, "correct_slot": slot_value,
        "confirm": {}, "deny": {}, "cancel": {},
        "clarify": {"question": {"type": "string"}},
        "chit_chat": {},
    }


def _strict_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _from_tool_calls(calls: list[ToolCall]) -> dict[str, Any]:
    """The commands the model's function calls stand for, as the JSON the schema describes."""
    commands = []
    for call in calls:
        arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        if not isinstance(arguments, dict):
            raise TypeError("the arguments are not an object")
        commands.append({**arguments, "command": call.name})
    return {"commands": commands}


def command_ask(spec: BotFile) -> StructuredAsk:
    """What understanding asks for: ``{"commands": [...]}`` naming this bot's flows and slots, and
    the same as one function per command for ``tools`` mode."""
    fields = _command_fields(spec)
    variants = [_strict_object({"command": {"type": "string", "enum": [name]}, **props})
                for name, props in fields.items()]
    schema = _strict_object({"commands": {"type": "array", "items": {"anyOf": variants}}})
    functions = tuple({"name": name, "description": _COMMAND_HELP[name], "parameters": _strict_object(props)}
                      for name, props in fields.items())
    return StructuredAsk("dialog_commands", schema, functions, _from_tool_calls)


def command_schema(spec: BotFile) -> dict[str, Any]:
    """The ``response_format`` for understanding in ``json_schema`` mode: a strict JSON Schema."""
    ask = command_ask(spec)
    return {"type": "json_schema", "json_schema": {"name": ask.name, "strict": True, "schema": ask.schema}}


# ------------------------------------------------------------------------------ validation


def slot_spec(spec: BotFile, flow: str | None, slot: str) -> SlotSpec | None:
    """The slot a command names: in ``flow`` when that is a flow of the bot, else in any flow."""
    if flow is not None and flow in spec.flows:
        return spec.flows[flow].slot(slot)
    return next((f.slot(slot) for f in spec.flows.values() if f.slot(slot) is not None), None)


def validate_commands(
    commands: Sequence[Command],
    spec: BotFile,
    validate_value: ValueValidator,
    *,
    active_flow: str | None = None,
) -> list[Command]:
    """The commands that name real flows and slots with values the rule layer accepts.

    A slot is looked up in the flow a preceding ``start_flow`` named, else ``active_flow``, else
    any flow. Accepted values are replaced by their canonical form. Values are never logged
    (they may be sensitive); slot names and the rule's error are.
    """
    kept: list[Command] = []
    flow = active_flow
    for command in commands:
        checked: Command | None = command
        if isinstance(command, StartFlow):
            checked = _checked_flow(command, spec)
            flow = checked.flow if checked is not None else flow
        elif isinstance(command, (SetSlot, CorrectSlot)):
            checked = _checked_slot(command, spec, flow, validate_value)
        if checked is not None:
            kept.append(checked)
    return kept


def _checked_flow(command: StartFlow, spec: BotFile) -> StartFlow | None:
    """``command`` naming a real flow (an intent name is mapped to its flow), or None to drop it."""
    by_intent = next((name for name in spec.flows if spec.flow_intent(name) == command.flow), None)
    if command.flow not in spec.flows and by_intent is not None:
        command = command.model_copy(update={"flow": by_intent})  # the intent named, not the flow
    if command.flow not in spec.flows:
        log.warning("llm_command_dropped", command=command.command, flow=command.flow, reason="unknown flow")
        return None
    return command


def _checked_slot(
    command: SetSlot | CorrectSlot, spec: BotFile, flow: str | None, validate_value: ValueValidator
) -> SetSlot | CorrectSlot | None:
    """``command`` with its value in canonical form, or None when the slot or the value is rejected."""
    slot = slot_spec(spec, flow, command.slot)
    if slot is None:
        log.warning("llm_command_dropped", command=command.command, slot=command.slot, flow=flow,
                    reason="unknown slot")
        return None
    ok, canonical, error = validate_value(slot, command.value)
    if not ok:
        log.warning("llm_command_dropped", command=command.command, slot=command.slot,
                    reason=error or "invalid value")
        return None
    return command.model_copy(update={"value": canonical})
