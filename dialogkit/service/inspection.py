"""The JSON of a session and of its context window: what the inspector page draws.

The shapes are written down in docs/serving.md ("A session", "The context window"); a page or a
dashboard may rely on every field being present. Values of ``sensitive: true`` slots are masked
by name in the slots and the task stack, and as values wherever else they appear (the entities,
the summary, the history): the whole document passes through the session's one redactor
(``ContextView.output_redactor``), so a field added later is masked too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from dialogkit.context.parts import PRIORITIES, BuiltContext
from dialogkit.memory.summary import item_text
from dialogkit.memory.tracker import salience
from dialogkit.model.reply import Reply
from dialogkit.model.session import Entity, Session, SummaryItem
from dialogkit.spec.schema import STATES, FlowSpec
from dialogkit.spec.transitions_table import transition_table
from dialogkit.strings.redaction import MASK, Redactor, mask_deep

if TYPE_CHECKING:
    from dialogkit.bot import Bot, SessionView

__all__ = ["HISTORY_SHOWN", "context_json", "history_json", "machine_json", "masked", "masked_document",
           "reply_redactor", "sensitive_names", "session_json"]

HISTORY_SHOWN = 50
"""Messages of the history a session's JSON carries, the latest."""


def sensitive_names(bot: Bot) -> frozenset[str]:
    """Every slot name that is ``sensitive: true`` in some flow of the bot."""
    return bot.view.sensitive_names


def masked(values: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    return {k: (MASK if k in hidden and v is not None else v) for k, v in values.items()}


def masked_document(document: Any, redact: Redactor) -> Any:
    """``document`` with every sensitive value ``redact`` knows masked, wherever it sits."""
    return mask_deep(document, redact) if redact else document


def reply_redactor(reply: Reply, hidden: frozenset[str]) -> Redactor:
    """The sensitive values a turn's reply may quote: those of its slots and its actions' inputs
    (the reply's text may repeat one, as a confirmation question does)."""
    if not hidden:
        return Redactor(())
    values = [v for k, v in reply.slots.items() if k in hidden]
    values.extend(v for run in reply.actions for k, v in run.inputs.items() if k in hidden)
    return Redactor(values)


def session_json(bot: Bot, view: SessionView, built: BuiltContext, last_turn: dict[str, Any] | None) -> dict[str, Any]:
    """``GET /v1/sessions/{id}``: the session as the inspector page shows it."""
    data = view.data
    assert data is not None
    hidden = sensitive_names(bot)
    pending = data.pending
    return cast(dict[str, Any], masked_document({
        "id": view.id, "user_id": view.user_id, "language": view.language, "turn": data.turn,
        "state": view.state, "flow": view.flow,
        "stack": [{"flow": t.flow, "state": t.state, "asking": t.pending_slot, "slots": masked(t.slots, hidden)}
                  for t in data.stack],
        "slots": masked(view.slots, hidden), "sensitive": sorted(hidden),
        "clarification": None if pending is None else {
            "kind": pending.kind, "expression": pending.expression,
            "candidates": [{"value": c.value, "label": c.label} for c in pending.candidates]},
        "summary": _summary_json(view.summary, data),
        "entities": _entities_json(data.entities, data.turn),
        "machine": _machine_for(bot, data),
        "context": _window_json(built),
        "last_turn": last_turn,
        "history": history_json(bot, data),
    }, bot.view.output_redactor(data)))


def _summary_json(text: str, data: Session) -> dict[str, Any]:
    def lines(items: Iterable[SummaryItem]) -> list[str]:
        return [item_text(item, data.language, data.summary.others) for item in items]

    summary = data.summary
    return {"text": text, "facts": lines(summary.facts), "confirmed": lines(summary.confirmed),
            "pending": lines(summary.pending)}


def _entities_json(entities: Iterable[Entity], turn: int) -> list[dict[str, Any]]:
    shown = [{"id": e.id, "type": e.type, "kind": e.kind, "value": e.value, "aliases": list(e.aliases),
              "mentions": e.mentions, "attributes": dict(e.attributes), "first_turn": e.first_turn,
              "last_turn": e.last_turn, "salience": round(salience(e, turn), 3)} for e in entities]
    return sorted(shown, key=lambda e: (-e["salience"], -e["last_turn"]))


def _machine_for(bot: Bot, data: Session) -> dict[str, Any]:
    name = data.flow or data.last_flow
    flow = bot.spec.flows.get(name) if name else None
    if name is None or flow is None:
        return {"flow": None, "description": None, "states": list(STATES), "transitions": [], "current": data.state}
    return {**machine_json(name, flow), "current": data.state}


def machine_json(name: str, flow: FlowSpec) -> dict[str, Any]:
    """One flow's state machine: its states and one transition per source state."""
    return {"flow": name, "description": flow.description or None, "states": list(STATES),
            "transitions": _transitions(flow)}


def _transitions(flow: FlowSpec) -> list[dict[str, str]]:
    return [{"trigger": t.trigger, "source": source, "dest": t.dest}
            for t in transition_table(flow) for source in t.sources]


def _window_json(built: BuiltContext) -> dict[str, Any]:
    return {
        "budget": built.budget, "used": built.used, "full_tokens": built.full_tokens,
        "sent_tokens": built.sent_tokens, "saved_tokens": built.saved_tokens, "saved_pct": built.saved_pct,
        "encoding": built.encoding,
        "parts": [{"part": part, "priority": PRIORITIES.get(part, 0), "tokens": tokens}
                  for part, tokens in built.breakdown.items()],
        "dropped": list(built.dropped), "truncated": list(built.truncated), "summarized": list(built.summarized),
    }


def context_json(built: BuiltContext) -> dict[str, Any]:
    """``GET /v1/sessions/{id}/context``: the messages an LLM would receive now, and the accounting."""
    messages = [{"role": m.role, "content": m.content, "priority": m.priority, "tokens": m.tokens,
                 "part": m.part, "pinned": m.pinned} for m in built.messages]
    window = _window_json(built)
    del window["parts"]
    return {"messages": messages, **window, "breakdown": dict(built.breakdown)}


def history_json(bot: Bot, data: Session) -> list[dict[str, Any]]:
    """The last ``HISTORY_SHOWN`` messages, sensitive values masked (the session's JSON, the widget's resume)."""
    redact = bot.view.output_redactor(data)
    return [{"role": m.role, "content": redact(m.content), "turn": m.turn} for m in data.history[-HISTORY_SHOWN:]]
