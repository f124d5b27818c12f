"""The calls the bot makes: understand, summarize, rephrase; each once as steps, run sync or async.

Each call is written once, as sans-IO steps over an ``Exchange`` (``understand_steps`` ...), and
offered twice: ``understand(client, ...)`` runs the steps with the sync SDK, ``await
aunderstand(client, ...)`` with the async one. Structured answers (understanding, the ticket
summary) go through the structured-output negotiation of ``structured.ask_json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dialogkit.errors import LLMError
from dialogkit.llm import prompts
from dialogkit.llm.client import LLMClient
from dialogkit.llm.commands import Command, command_ask, commands_from
from dialogkit.llm.exchange import Exchange, Steps
from dialogkit.llm.rephrase_check import rephrase_problem
from dialogkit.llm.structured import ask_json, single_function
from dialogkit.spec.schema import BotFile

__all__ = [
    "arephrase",
    "asummarize",
    "aunderstand",
    "rephrase",
    "rephrase_steps",
    "summarize",
    "summarize_steps",
    "understand",
    "understand_steps",
]


def _as_message(message: Any) -> dict[str, Any]:
    if isinstance(message, dict):
        return {"role": message["role"], "content": message["content"]}
    return {"role": message.role, "content": message.content}


# ------------------------------------------------------------------------------ understanding


def understand_steps(ex: Exchange, context_messages: Sequence[Any], spec: BotFile, active_flow: str | None,
                     pending_slot: str | None) -> Steps[list[Command]]:
    """What the user's last message means, as commands (not yet validated).

    ``context_messages`` are the built context window's messages (``ContextMessage`` or dicts);
    the understanding instructions go first, as the system message.
    """
    instructions = {"role": "system", "content": prompts.understand_prompt(spec, active_flow, pending_slot)}
    messages = [instructions, *(_as_message(m) for m in context_messages)]
    data = yield from ask_json(ex, messages, command_ask(spec))
    return commands_from(data)


def understand(client: LLMClient, context_messages: Sequence[Any], spec: BotFile, active_flow: str | None,
               pending_slot: str | None, *, deadline_s: float | None = None) -> list[Command]:
    """``understand_steps`` with the sync SDK."""
    return client.run(understand_steps(client.exchange(deadline_s), context_messages, spec, active_flow, pending_slot))


async def aunderstand(client: LLMClient, context_messages: Sequence[Any], spec: BotFile, active_flow: str | None,
                      pending_slot: str | None, *, deadline_s: float | None = None) -> list[Command]:
    """``understand_steps`` with the async SDK."""
    steps = understand_steps(client.exchange(deadline_s), context_messages, spec, active_flow, pending_slot)
    return await client.arun(steps)


# ------------------------------------------------------------------------------ summaries

_TICKET_KEYS = ("facts", "confirmed", "pending")
_TICKET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {k: {"type": "array", "items": {"type": "string"}} for k in _TICKET_KEYS},
    "required": list(_TICKET_KEYS),
    "additionalProperties": False,
}
_TICKET_ASK = single_function("ticket_summary", _TICKET_SCHEMA, "The ticket summary: facts, confirmed, pending.")


def summarize_steps(ex: Exchange, items: Sequence[str], language: str, *, ticket: bool = False,
                    max_sentences: int = 3) -> Steps[str]:
    """A summary of ``items`` in ``language``.

    Round summaries (``ticket=False``) are plain text. The ticket summary (``ticket=True``) keeps
    its three sections, facts / confirmed / pending: asked for as JSON, rendered with headings
    in ``language`` by ``prompts.render_ticket``.
    """
    if not ticket:
        messages = prompts.summary_messages(items, language, max_sentences=max_sentences)
        result = yield from ex.complete(ex.request(messages))
        return result.content
    data = yield from ask_json(ex, prompts.ticket_messages(items, language), _TICKET_ASK)
    return prompts.render_ticket(_ticket_sections(data), language)


def summarize(client: LLMClient, items: Sequence[str], language: str, *, ticket: bool = False,
              max_sentences: int = 3, deadline_s: float | None = None) -> str:
    """``summarize_steps`` with the sync SDK."""
    steps = summarize_steps(client.exchange(deadline_s), items, language, ticket=ticket, max_sentences=max_sentences)
    return client.run(steps)


async def asummarize(client: LLMClient, items: Sequence[str], language: str, *, ticket: bool = False,
                     max_sentences: int = 3, deadline_s: float | None = None) -> str:
    """``summarize_steps`` with the async SDK."""
    steps = summarize_steps(client.exchange(deadline_s), items, language, ticket=ticket, max_sentences=max_sentences)
    return await client.arun(steps)


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


# ------------------------------------------------------------------------------ rephrasing

_QUOTES = "\"'“”‘’「」『』"


def rephrase_steps(ex: Exchange, text: str, language: str, values: Sequence[str] = ()) -> Steps[str]:
    """``text`` said more naturally; raises ``LLMError`` when the answer may not replace it (see
    ``rephrase_check``), so the bot keeps its template instead of a fluent but wrong answer."""
    result = yield from ex.complete(ex.request(prompts.rephrase_messages(text, language)))
    answer = result.content.strip().strip(_QUOTES).strip()
    problem = rephrase_problem(text, answer, values)
    if problem is not None:
        raise LLMError(problem)
    return answer


def rephrase(client: LLMClient, text: str, language: str, *, deadline_s: float | None = None) -> str:
    """``rephrase_steps`` with the sync SDK."""
    return client.run(rephrase_steps(client.exchange(deadline_s), text, language))


async def arephrase(client: LLMClient, text: str, language: str, *, deadline_s: float | None = None) -> str:
    """``rephrase_steps`` with the async SDK."""
    return await client.arun(rephrase_steps(client.exchange(deadline_s), text, language))
