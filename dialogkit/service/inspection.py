"""The JSON of a session and of its context window: what the inspector page draws.

The shapes are written down in docs/serving.md ("A session", "The context window"); a page or a
dashboard may rely on every field being present. Values of ``sensitive: true`` slots are masked
here, in the slots, the task stack and the history, as the logs mask them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from dialogkit.context.parts import PRIORITIES, BuiltContext
from dialogkit.memory.tracker import salience
from dialogkit.model.session import Entity, Session, SummaryItem
from dialogkit.spec.schema import STATES, FlowSpec
from dialogkit.spec.transitions_table import transition_table
from dialogkit.strings.redaction import MASK, mask_values

if TYPE_CHECKING:
    from dialogkit.bot import Bot, SessionView

__all__ = ["HISTORY_SHOWN", "context_json", "history_json", "machine_json", "masked", "sensitive_names",
           "session_json"]

HISTORY_SHOWN = 50
"""Messages of the history a session's JSON carries, the latest."""


def sensitive_names(bot: Bot) -> frozenset[str]:
    """Every slot name that is ``sensitive: true`` in some flow of the bot."""
    return frozenset(name for names in bot.view.sensitive_slots.values() for name in names)


def masked(values: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    return {k: (MASK if k in hidden and v is not None else v) for k, v in values.items()}


def session_json(bot: Bot, view: SessionView, built: BuiltContext, last_turn: dict[str, Any] | None) -> dict[str, Any]:
    """``GET /v1/sessions/{id}``: the session as the inspector page shows it."""
    data = view.data
    assert data is not None
    hidden = sensitive_names(bot)
    pending = data.pending
    return {
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
    }


def _summary_json(text: str, data: Session) -> dict[str, Any]:
    def lines(items: Iterable[SummaryItem]) -> list[str]:
        return [item.zh if data.language == "zh" else item.en for item in items]

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
    secrets = bot.view.sensitive_values(data)
    return [{"role": m.role, "content": mask_values(m.content, secrets) if secrets else m.content, "turn": m.turn}
            for m in data.history[-HISTORY_SHOWN:]]
