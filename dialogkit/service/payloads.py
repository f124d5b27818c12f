"""The bodies of a turn: the requests the API reads and the reply it writes (docs/serving.md).

The request models are pydantic, so ``/docs`` describes them and a wrong body gets a 422 that
names the field. The reply is written as a plain dict: a turn is the hot path, and a response
model would validate again what ``Reply`` already guarantees.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from dialogkit.model.reply import Reply
from dialogkit.service.inspection import masked, masked_document, reply_redactor

__all__ = ["RasaButton", "RasaMessage", "RasaReply", "TurnReply", "TurnRequest", "rasa_messages", "reply_json"]


class TurnRequest(BaseModel):
    """``POST /v1/sessions/{session_id}/turns``."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(description="What the user said.", examples=["我上周买的手机屏幕碎了"])
    user_id: str | None = Field(None, description="Who said it (user-scoped slots follow it); only with an API key "
                                                   "that has the 'users' scope. Without it the turn is anonymous.",
                                examples=["alice"])


class ActionJson(BaseModel):
    name: str
    inputs: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


class ExplanationJson(BaseModel):
    rule: str = Field(description="The step that decided: label_answer, keep_to_asked_slot, confirm, llm...")
    did: str = Field(description="What it did: 'set product = phone', 'confirmed'.")
    words: str | None = Field(None, description="The user's words it read, where known.")
    span: list[int] | None = Field(None, description="[start, end) of the words in the user's text.")


class TurnReply(BaseModel):
    """The reply of one turn (documentation only: the route writes the dict of ``reply_json``)."""

    session_id: str
    text: str
    state: str
    flow: str | None
    slots: dict[str, Any]
    language: str
    clarification: list[Any] | None
    resolved: str | None
    actions: list[ActionJson]
    options: list[str]
    trigger: str | None
    transitions: list[str]
    memory_actions: list[str]
    explain: list[ExplanationJson]
    summary: str
    latency_ms: float


def reply_json(reply: Reply, hidden: frozenset[str], seconds: float) -> dict[str, Any]:
    """A ``Reply`` as JSON, with the values of ``hidden`` (sensitive) slots masked wherever they appear."""
    document = {
        "session_id": reply.session_id, "text": reply.text, "state": reply.state, "flow": reply.flow,
        "slots": masked(reply.slots, hidden) if hidden else reply.slots, "language": reply.language,
        "clarification": reply.clarification, "resolved": reply.resolved,
        "actions": [{"name": run.name, "inputs": masked(run.inputs, hidden) if hidden else run.inputs,
                     "result": run.result, "error": run.error} for run in reply.actions],
        "options": reply.options, "trigger": reply.trigger, "transitions": reply.transitions,
        "memory_actions": reply.memory_actions, "explain": [e.as_json() for e in reply.explain],
        "summary": reply.summary,
        "latency_ms": round(seconds * 1000, 3),
    }
    return cast(dict[str, Any], masked_document(document, reply_redactor(reply, hidden)))


class RasaMessage(BaseModel):
    """A message in the format of Rasa's REST input channel."""

    model_config = ConfigDict(extra="ignore")

    sender: str = Field(description="The conversation's id: the session id and the user id.", examples=["visitor-42"])
    message: str = Field(description="What the user said.", examples=["my phone arrived broken"])
    metadata: dict[str, Any] | None = Field(None, description="Accepted and ignored.")


class RasaButton(BaseModel):
    title: str
    payload: str


class RasaReply(BaseModel):
    """One bot message of the Rasa REST channel's answer (``buttons`` only when there are some)."""

    recipient_id: str
    text: str
    buttons: list[RasaButton] | None = None


def rasa_messages(reply: Reply, recipient_id: str, hidden: frozenset[str]) -> list[dict[str, Any]]:
    """The reply as Rasa's REST channel answers: a list of messages; quick replies become buttons
    whose payload is the text to send back. Keys without a value are left out, as Rasa does; the
    values of ``hidden`` (sensitive) slots are masked."""
    if not reply.text and not reply.options:
        return []
    message: dict[str, Any] = {"recipient_id": recipient_id, "text": reply.text}
    if reply.options:
        message["buttons"] = [{"title": option, "payload": option} for option in reply.options]
    return [cast(dict[str, Any], masked_document(message, reply_redactor(reply, hidden)))]
