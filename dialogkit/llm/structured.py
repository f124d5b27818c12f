"""Structured output, negotiated with each server: a JSON Schema where it is taken, less where not.

Servers differ in how they can be asked for JSON. OpenAI and vLLM take a JSON Schema
(``response_format`` of type ``json_schema``); llama.cpp's Python server refuses that (HTTP 500
naming ``response_format``) but takes ``{"type": "json_object", "schema": ...}``, which its grammar
enforces; some take neither. ``llm.structured_output`` says how to ask:

- ``auto`` (default) starts with ``json_schema``. On a refusal (any 4xx but 401/403/404, or a
  5xx whose body names ``response_format``) it asks again in ``json_object`` mode, with the
  schema in the request (``schema`` key) and in the prompt, then in plain ``text`` with the
  schema in the prompt and the first JSON object taken from the reply. The mode that worked is
  remembered per server (base URL) for the life of the process, so the refused ones are not
  asked again.
- ``json_schema``, ``json_object``, ``tools`` (one function per command, for servers whose tool
  calling is more reliable than their JSON mode) or ``text``: that mode only; a refusal is a
  failure and the rules answer the turn.

See docs/llms.md.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from dialogkit.errors import LLMError
from dialogkit.llm.exchange import Exchange, LLMRejected, LLMResult, Steps, ToolCall
from dialogkit.llm.once import log_once
from dialogkit.logging import get_logger

__all__ = [
    "LADDER",
    "Mode",
    "StructuredAsk",
    "ask_json",
    "first_json",
    "forget_modes",
    "negotiated_mode",
    "schema_note",
    "single_function",
]

log = get_logger("dialogkit.llm")

Mode = Literal["json_schema", "json_object", "tools", "text"]
MODES: tuple[Mode, ...] = get_args(Mode)
LADDER: tuple[Mode, ...] = ("json_schema", "json_object", "text")
"""The modes ``auto`` tries, richest first."""

_start: dict[str, Mode] = {}       # server -> the mode ``auto`` asks in first
_start_lock = threading.Lock()

SCHEMA_NOTE = "Answer with one JSON object, and nothing else, that follows this JSON Schema:\n{schema}"


@dataclass(frozen=True)
class StructuredAsk:
    """What to ask for: a named JSON Schema, and the same as functions for ``tools`` mode.

    ``functions`` are the tools' ``function`` objects; ``from_tool_calls`` turns the model's calls
    back into the JSON the schema describes.
    """

    name: str
    schema: dict[str, Any]
    functions: tuple[dict[str, Any], ...]
    from_tool_calls: Callable[[list[ToolCall]], Any]


def single_function(name: str, schema: dict[str, Any], description: str = "") -> StructuredAsk:
    """An ask whose ``tools`` form is one function taking the whole object as its arguments."""

    def decode(calls: list[ToolCall]) -> Any:
        return json.loads(calls[0].arguments)

    function = {"name": name, "description": description or name, "parameters": schema}
    return StructuredAsk(name, schema, (function,), decode)


# ------------------------------------------------------------------------------ remembered modes


def negotiated_mode(server: str, setting: str) -> Mode | None:
    """The mode calls to ``server`` are asked in now: the setting itself, or what ``auto`` settled
    on (None while nothing was asked yet)."""
    if setting != "auto":
        return cast(Mode, setting)
    with _start_lock:
        return _start.get(server)


def _remember(server: str, mode: Mode) -> None:
    with _start_lock:
        _start[server] = mode


def forget_modes() -> None:
    """Forget every server's negotiated mode (tests; a process restart does the same)."""
    with _start_lock:
        _start.clear()


def _modes(server: str, setting: str) -> tuple[Mode, ...]:
    """The modes to try, in order, for this call."""
    if setting != "auto":
        return (cast(Mode, setting),)
    with _start_lock:
        first = _start.get(server, LADDER[0])
    return LADDER[LADDER.index(first):]


# ------------------------------------------------------------------------------ asking


def schema_note(schema: dict[str, Any]) -> str:
    """The schema as the prompt states it, for modes where the server does not enforce it."""
    return SCHEMA_NOTE.format(schema=json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def _with_note(messages: Sequence[dict[str, Any]], note: str) -> list[dict[str, Any]]:
    """``messages`` with ``note`` added to the first system message (or as one, first)."""
    out = [dict(m) for m in messages]
    for message in out:
        if message["role"] == "system":
            message["content"] = f"{message['content']}\n\n{note}"
            return out
    return [{"role": "system", "content": note}, *out]


def _request(ex: Exchange, messages: Sequence[dict[str, Any]], ask: StructuredAsk, mode: Mode) -> dict[str, Any]:
    """The request asking for ``ask`` in ``mode``."""
    if mode == "json_schema":
        format_ = {"type": "json_schema", "json_schema": {"name": ask.name, "strict": True, "schema": ask.schema}}
        return ex.request(messages, response_format=format_)
    if mode == "tools":
        tools = [{"type": "function", "function": f} for f in ask.functions]
        choice = {"type": "function", "function": {"name": ask.functions[0]["name"]}} if len(tools) == 1 else None
        return ex.request(messages, tools=tools, tool_choice=choice)
    noted = _with_note(messages, schema_note(ask.schema))
    if mode == "json_object":
        return ex.request(noted, response_format={"type": "json_object", "schema": ask.schema})
    return ex.request(noted)


def _decode(result: LLMResult, ask: StructuredAsk) -> Any:
    """The JSON the answer holds: from its tool calls when it made any, else from its text."""
    if result.tool_calls:
        try:
            return ask.from_tool_calls(result.tool_calls)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise LLMError(f"the LLM's tool calls are not valid: {type(exc).__name__}") from exc
    return first_json(result.content)


def ask_json(ex: Exchange, messages: Sequence[dict[str, Any]], ask: StructuredAsk) -> Steps[Any]:
    """The model's JSON answer to ``messages``, asked in the server's best mode (see the module doc).

    Raises ``LLMRejected`` when the server refuses every mode left, ``LLMError`` on any other failure.
    """
    server, setting = ex.endpoint.server, ex.spec.structured_output
    modes = _modes(server, setting)
    for index, mode in enumerate(modes):
        try:
            result = yield from ex.complete(_request(ex, messages, ask, mode), mode=mode)
        except LLMRejected as exc:
            if not exc.refusal:
                raise
            if index + 1 == len(modes):     # refused in the last mode left: this call has failed
                ex.usage.failures += 1
                ex.log_rejected(exc.original, mode, refusal=True)
                raise
            _step_down(ex, mode, modes[index + 1], exc)
            continue
        if setting == "auto":
            _remember(server, mode)
        return _decode(result, ask)
    raise AssertionError("unreachable: the last mode returns or raises")  # pragma: no cover


def _step_down(ex: Exchange, refused: Mode, next_mode: Mode, exc: LLMRejected) -> None:
    """Remember that ``server`` refused ``refused``: this call and the later ones ask in ``next_mode``."""
    server = ex.endpoint.server
    _remember(server, next_mode)
    log_once(("step_down", server, refused), "llm_mode_refused", server=server, model=ex.endpoint.model,
             refused=refused, next=next_mode, status=exc.status)


# ------------------------------------------------------------------------------ JSON in text

_FENCE = "```"
_DECODER = json.JSONDecoder()
_MAX_STARTS = 64


def _first_decodable(text: str, opening: str) -> Any:
    """The first JSON value starting at an ``opening`` bracket of ``text`` (raises ValueError)."""
    start = text.find(opening)
    for _ in range(_MAX_STARTS):
        if start < 0:
            break
        try:
            return _DECODER.raw_decode(text, start)[0]
        except ValueError:
            start = text.find(opening, start + 1)
    raise ValueError(f"no JSON starting with {opening!r}")


def _fenced(text: str) -> list[str]:
    """The bodies of the text's closed ```json fences, in one pass (a regex looking for each
    opening's closing fence would rescan the rest of the text once per unclosed opening)."""
    parts = text.split(_FENCE)
    bodies = parts[1:len(parts) - 1:2]   # between an opening and its closing fence
    return [(body[4:] if body[:4] in ("json", "JSON") else body).strip() for body in bodies]


def first_json(text: str) -> Any:
    """JSON from a model's answer: the whole text, a ```json fence, else the first JSON object in
    it (then the first array), however much the model wrote around or after it."""
    candidates = [text.strip(), *_fenced(text)]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    for opening in ("{", "["):
        try:
            return _first_decodable(text, opening)
        except ValueError:
            continue
    raise LLMError(f"the LLM answer is not JSON: {text[:80]!r}")
