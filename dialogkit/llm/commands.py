"""What the LLM may tell the bot, and the calls that ask it: understand, summarize, rephrase.

The LLM never changes the conversation directly. It answers with a small list of commands
(``start_flow``, ``set_slot`` ...) that are parsed into pydantic models, then checked against
the bot file and the rule layer's value validation (``validate_commands``): a flow or slot that
does not exist, or a value the rules reject, is dropped with a warning. "The LLM proposes, the
rules validate." See docs/llms.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from dialogkit.errors import LLMError
from dialogkit.llm import prompts
from dialogkit.llm.client import LLMClient
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
    "command_schema",
    "extract_json",
    "parse_commands",
    "rephrase",
    "summarize",
    "understand",
    "validate_commands",
]

log = structlog.get_logger(__name__)


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


# ------------------------------------------------------------------------------ JSON parsing

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """JSON from a model's answer: the whole text, a ```json fence, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for opening, closing in (("{", "}"), ("[", "]")):
        start, end = text.find(opening), text.rfind(closing)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise LLMError(f"the LLM answer is not JSON: {text[:80]!r}")


def parse_commands(text: str) -> list[Command]:
    """Commands from the model's answer; items that are not commands are dropped with a warning.

    Raises ``LLMError`` when the answer is not JSON, not shaped like ``{"commands": [...]}``, or
    none of its items is a command.
    """
    data = extract_json(text)
    if isinstance(data, dict) and isinstance(data.get("commands"), list):
        items = data["commands"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict) and "command" in data:
        items = [data]
    else:
        raise LLMError('the LLM answer has no "commands" list')
    commands: list[Command] = []
    for item in items:
        try:
            commands.append(_COMMAND.validate_python(item))
        except ValidationError as exc:
            log.warning("llm_command_invalid", item=str(item)[:120], errors=exc.error_count())
    if items and not commands:
        raise LLMError("none of the LLM's commands is valid")
    return commands


def command_schema(spec: BotFile) -> dict[str, Any]:
    """The ``response_format`` for understanding: strict JSON Schema naming this bot's flows/slots."""
    slots = sorted({s.name for f in spec.flows.values() for s in f.slots}) or [""]

    def variant(name: str, **fields: dict[str, Any]) -> dict[str, Any]:
        properties = {"command": {"type": "string", "enum": [name]}, **fields}
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    slot_value: dict[str, dict[str, Any]] = {"slot": {"type": "string", "enum": slots}, "value": {"type": "string"}}
    variants = [
        variant("start_flow", flow={"type": "string", "enum": list(spec.flows)}),
        variant("set_slot", **slot_value),
        variant("correct_slot", **slot_value),
        variant("confirm"), variant("deny"), variant("cancel"),
        variant("clarify", question={"type": "string"}),
        variant("chit_chat"),
    ]
    schema = {
        "type": "object",
        "properties": {"commands": {"type": "array", "items": {"anyOf": variants}}},
        "required": ["commands"],
        "additionalProperties": False,
    }
    return {"type": "json_schema", "json_schema": {"name": "dialog_commands", "strict": True, "schema": schema}}


# ------------------------------------------------------------------------------ the calls


def _as_message(message: Any) -> dict[str, Any]:
    if isinstance(message, dict):
        return {"role": message["role"], "content": message["content"]}
    return {"role": message.role, "content": message.content}


def _chat_structured(
    client: LLMClient, messages: list[dict[str, Any]], response_format: dict[str, Any], deadline_s: float | None
) -> str:
    """Ask with ``response_format``; a server that refuses it (HTTP 400) is asked once without."""
    try:
        return client.chat(messages, response_format=response_format, deadline_s=deadline_s).content
    except LLMError as exc:
        if getattr(exc.original, "status_code", None) != 400:
            raise
        log.info("llm_response_format_unsupported", model=client.model)
        return client.chat(messages, deadline_s=deadline_s).content


def understand(
    client: LLMClient,
    context_messages: Sequence[Any],
    spec: BotFile,
    active_flow: str | None,
    pending_slot: str | None,
    *,
    deadline_s: float | None = None,
) -> list[Command]:
    """Ask the LLM what the user's last message means, as commands (not yet validated).

    ``context_messages`` are the built context window's messages (``ContextMessage`` or dicts);
    the understanding instructions go first as a system message.
    """
    instructions = {"role": "system", "content": prompts.understand_prompt(spec, active_flow, pending_slot)}
    messages = [instructions, *(_as_message(m) for m in context_messages)]
    return parse_commands(_chat_structured(client, messages, command_schema(spec), deadline_s))


def _slot_spec(spec: BotFile, flow: str | None, slot: str) -> SlotSpec | None:
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
    slot = _slot_spec(spec, flow, command.slot)
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


def summarize(
    client: LLMClient,
    items: Sequence[str],
    language: str,
    *,
    ticket: bool = False,
    max_sentences: int = 3,
    deadline_s: float | None = None,
) -> str:
    """A summary of ``items`` in ``language``.

    Round summaries (``ticket=False``) are plain text. The ticket summary (``ticket=True``) keeps
    its three sections, facts / confirmed / pending: asked for as JSON, rendered with headings
    in ``language`` by ``prompts.render_ticket``.
    """
    if not ticket:
        messages = prompts.summary_messages(items, language, max_sentences=max_sentences)
        return client.chat(messages, deadline_s=deadline_s).content
    messages = prompts.ticket_messages(items, language)
    data = extract_json(_chat_structured(client, messages, _TICKET_FORMAT, deadline_s))
    return prompts.render_ticket(_ticket_sections(data), language)


_TICKET_KEYS = ("facts", "confirmed", "pending")
_TICKET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {k: {"type": "array", "items": {"type": "string"}} for k in _TICKET_KEYS},
    "required": list(_TICKET_KEYS),
    "additionalProperties": False,
}
_TICKET_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "ticket_summary", "strict": True, "schema": _TICKET_SCHEMA},
}


def _ticket_sections(data: Any) -> dict[str, list[str]]:
    """The three sections of a ticket answer, each a list of non-empty lines (a lone string is one line)."""
    if not isinstance(data, dict) or not any(k in data for k in _TICKET_KEYS):
        raise LLMError("the ticket summary has none of the sections facts / confirmed / pending")
    sections: dict[str, list[str]] = {}
    for key in _TICKET_KEYS:
        value = data.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise LLMError(f"the ticket summary's {key!r} section is not a list")
        sections[key] = [str(v).strip() for v in value if str(v).strip()]
    return sections


_IDENTIFIER = re.compile(r"[A-Za-z]*\d[\w\-./:]*")
_QUOTES = "\"'“”‘’「」『』"


def rephrase(client: LLMClient, text: str, language: str, *, deadline_s: float | None = None) -> str:
    """``text`` said more naturally; raises ``LLMError`` if a number or identifier got lost,
    so the bot keeps its template instead of a fluent but wrong answer."""
    answer = client.chat(prompts.rephrase_messages(text, language), deadline_s=deadline_s).content
    answer = answer.strip().strip(_QUOTES).strip()
    missing = [token for token in _IDENTIFIER.findall(text) if token.rstrip(".:/-") not in answer]
    if missing:
        raise LLMError(f"the rephrased text lost {len(missing)} number(s)/identifier(s)")
    if not answer:
        raise LLMError("the rephrased text is empty")
    return answer
