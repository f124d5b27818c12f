"""Users' data over a store: export everything stored about a user, forget it, purge by retention.

These take a store, the bot's name and its texts, never the ``Bot``: the facade's
``export_user``, ``forget_user`` and ``purge`` delegate here with the bot's clock's ``now``, so
the rules are tested on any store without building a bot. What they keep and delete is described
in docs/stores.md, "Users' data and retention".

A user's persisted values belong to one bot: they are stored under ``user_scope(bot, user)``.
Values written before that scoping sit under the bare user id; they are the user's too, so an
export shows them (``legacy_values``) and forgetting deletes them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from dialogkit.memory.summary import STORED, item_text, render_summary
from dialogkit.model.session import (
    Entity,
    Message,
    PersistedValue,
    Session,
    SlotChange,
    SummaryItem,
    SummaryState,
    Task,
    user_scope,
)
from dialogkit.store.protocol import SessionStore
from dialogkit.strings.redaction import Redactor, mask_deep
from dialogkit.text.labels import Texts, slot_name_label

if TYPE_CHECKING:
    from dialogkit.engine.context_view import ContextView

__all__ = ["EXPORT_FORMAT", "export_user", "forget_user", "owns_key", "purge"]

EXPORT_FORMAT = "dialogkit.user-export/1"
"""The export document's ``format``: its kind and version, bumped when a key changes meaning."""


def export_user(store: SessionStore, bot: str, texts: Texts, user_id: str, now: float, *,
                view: ContextView | None = None) -> dict[str, Any]:
    """One JSON-serialisable document of everything stored about ``user_id`` for this bot; with
    ``view``, every sensitive value in it masked (``sensitive_values``: ``masked`` or ``included``)."""
    sessions = [s for sid in store.sessions_of(user_id) if (s := store.load(sid, history_tail=None)) is not None]
    sessions.sort(key=lambda s: s.created_at)
    language = sessions[-1].language if sessions else "en"
    key = user_scope(bot, user_id)
    stored = store.user_slots(key)
    legacy = store.user_slots(user_id) if key != user_id else {}
    document = {
        "format": EXPORT_FORMAT,
        "exported_at": when(now),
        "bot": bot,
        "user_id": user_id,
        "sensitive_values": "included" if view is None else "masked",
        "sessions": [_session(s, texts) for s in sessions],
        "values": _values(stored, texts, language),
        "legacy_values": _values(legacy, texts, language),
    }
    if view is None:
        return document
    secrets = [value for session in sessions for value in view.output_secrets(session)]
    for name, persisted in (*stored.items(), *legacy.items()):
        if name in view.sensitive_names:
            secrets.extend(str(v) for v in (persisted.value, *(c.value for c in persisted.history)) if v is not None)
    return cast(dict[str, Any], mask_deep(document, Redactor(secrets)))


def forget_user(store: SessionStore, bot: str, user_id: str) -> dict[str, int]:
    """Delete the user's sessions with their history and index entries, and their persisted
    values (this bot's and the unscoped ones); how many of each went."""
    sessions = messages = 0
    for session_id in store.sessions_of(user_id):
        messages += store.delete_session(session_id)
        sessions += 1
    key = user_scope(bot, user_id)
    values = store.delete_user_slots(key)
    if key != user_id:
        values += store.delete_user_slots(user_id)
    return {"sessions": sessions, "messages": messages, "values": values}


def purge(store: SessionStore, bot: str, *, retention_s: float | None, timeout_s: float,
          now: float) -> dict[str, int]:
    """The store's housekeeping for one bot, at ``now`` (the bot's clock).

    With a retention: history messages and this bot's persisted values written before
    ``now - retention`` go. Always: sessions idle longer than the session timeout go, with their
    history; the user's persisted values outlive them until the retention ends.
    """
    messages = values = 0
    if retention_s is not None:
        cutoff = now - retention_s
        messages = store.purge_history(cutoff)
        for key in store.user_keys():
            if owns_key(bot, key):
                values += store.delete_user_slots(key, older_than=cutoff)
    sessions = store.purge_expired(now - timeout_s)
    return {"sessions": sessions, "messages": messages, "values": values}


def owns_key(bot: str, key: str) -> bool:
    """Whether a persisted-values key is this bot's to purge: its own scope, or a bare user id
    (values from before the scoping, which every bot sharing the store reads). Another bot's
    scope is left to that bot's retention."""
    return key.startswith(bot + "/") or "/" not in key


def when(timestamp: float) -> str:
    """A stored timestamp (seconds since the epoch) as ISO 8601 in UTC."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


# ---- the document's parts --------------------------------------------------------------------

def _session(session: Session, texts: Texts) -> dict[str, Any]:
    language = session.language
    slots = {name: value.value for name, value in session.session_slots.items()}
    if session.task is not None:
        slots.update(session.task.slots)
    return {
        "id": session.id,
        "user_id": session.user_id,
        "language": language,
        "created_at": when(session.created_at),
        "updated_at": when(session.updated_at),
        "turns": session.turn,
        "state": session.state,
        "flow": session.flow,
        "stack": [_task(task, texts, language) for task in session.stack],
        "slots": slots,
        "session_values": _values(session.session_slots, texts, language),
        "summary": _summary(session.summary, language),
        "entities": [_entity(entity) for entity in session.entities],
        "pending_question": session.pending.model_dump(mode="json") if session.pending else None,
        "action_results": session.executed,
        "history_start": session.history_offset,
        "history": [_message(message) for message in session.history],
    }


def _task(task: Task, texts: Texts, language: str) -> dict[str, Any]:
    flow = texts.spec.flows.get(task.flow)
    return {
        "flow": task.flow,
        "description": texts.describe_flow(task.flow, language) if flow is not None else None,
        "state": task.state,
        "slots": dict(task.slots),
        "slot_history": {name: [_change(c) for c in changes] for name, changes in task.slot_history.items()},
        "prefilled": list(task.prefilled),
        "asking": task.pending_slot,
    }


def _values(values: dict[str, PersistedValue], texts: Texts, language: str) -> dict[str, Any]:
    return {name: {"label": _slot_label(texts, name, language), "value": value.value, "at": when(value.at),
                   "flow": value.flow, "history": [_change(c) for c in value.history]}
            for name, value in sorted(values.items())}


def _slot_label(texts: Texts, name: str, language: str) -> str:
    """The slot's label in the bot file (the first flow declaring it), else its name with spaces."""
    for flow in texts.spec.flows.values():
        for slot in flow.slots:
            if slot.name == name:
                return slot_name_label(slot, language)
    return name.replace("_", " ")


def _change(change: SlotChange) -> dict[str, Any]:
    return {"value": change.value, "turn": change.turn, "at": when(change.at),
            "superseded_at": when(change.superseded_at)}


def _summary(summary: SummaryState, language: str) -> dict[str, Any]:
    return {
        "text": render_summary(summary, language),
        "facts": [_item(i, summary) for i in summary.facts],
        "confirmed": [_item(i, summary) for i in summary.confirmed],
        "pending": [_item(i, summary) for i in summary.pending],
        "rounds": summary.round_summaries,
        "blocks": summary.block_summaries,
    }


def _item(item: SummaryItem, summary: SummaryState) -> dict[str, Any]:
    """The item in every language the summary keeps it in."""
    others = summary.others or {}
    kept = [*STORED, *(lang for lang, texts in others.items() if item.en in texts)]
    return {"key": item.key, **{lang: item_text(item, lang, others) for lang in kept}, "turn": item.turn}


def _entity(entity: Entity) -> dict[str, Any]:
    return entity.model_dump(mode="json", include={"id", "type", "kind", "value", "aliases", "attributes",
                                                   "mentions", "first_turn", "last_turn", "scope", "source"})


def _message(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": message.content, "turn": message.turn, "at": when(message.at),
            "language": message.language, "pinned": message.pinned}
