"""A finished task's sensitive values erased at rest: masked in its history rows, dropped from the session.

A value of a ``sensitive: true`` slot is needed while its task runs (to confirm it, to act on it);
once the task completes, fails or is cancelled, the store has no reason to keep it. The turn that
ends the task has already replied and acted with the real value and folded its rounds (masked) into
the summary; this step runs just before the session is staged, so the same commit rewrites the
task's stored rows with the one mask and no later load sees the raw value (docs/stores.md,
"Sensitive values at rest").
"""

from __future__ import annotations

from collections.abc import Callable

from dialogkit.engine.turn import TurnContext
from dialogkit.model.session import Message, Session, Task
from dialogkit.strings.redaction import Redactor, mask_deep

__all__ = ["HistoryReader", "erase_ended_task"]

HistoryReader = Callable[[int, int], list[Message]]
"""The stored history rows [start, end) of the turn's session: rows older than the loaded tail."""

_CHUNK = 64  # stored rows read at a time, going back past the loaded tail to the task's start


def erase_ended_task(ctx: TurnContext, sensitive_slots: dict[str, tuple[str, ...]], *, plain: bool,
                     older: HistoryReader | None = None) -> None:
    """Mask the ended task's sensitive values in the session's messages since it started, stage the
    stored ones for rewriting, forget the entities that hold them and, when the store keeps the
    session in clear (``plain``), drop the values from ``session.secrets`` too. Sealed by a key, or
    never leaving the process (``memory://``), they stay there, so later windows keep masking a
    value typed again. ``older`` reads the stored rows before the loaded tail, for a task that
    started before it (a long task: many reprompts or digressions)."""
    ended = ctx.ended_task
    if ended is None:
        return
    values = _values(ended, sensitive_slots.get(ended.flow, ()))
    if not values:
        return
    session = ctx.session
    redact = Redactor(values)
    updates = _mask_history(session, ended.started_turn, redact)
    if older is not None and _started_before_tail(session, ended.started_turn):
        updates.update(_mask_stored(older, session.history_offset, ended.started_turn, redact))
    if updates:
        ctx.txn.rewrite_messages(updates)
    held = set(values)
    _forget_entities(session, held)
    _mask_results(session, redact)
    if plain and session.secrets:
        session.secrets[:] = [v for v in session.secrets if v not in held]


def _values(task: Task, names: tuple[str, ...]) -> list[str]:
    """The task's sensitive values, the ones a correction replaced included."""
    values: list[str] = []
    for name in names:
        held = [task.slots.get(name), *(change.value for change in task.slot_history.get(name, []))]
        values.extend(str(v) for v in held if v is not None and str(v).strip())
    return values


def _forget_entities(session: Session, held: set[str]) -> None:
    """Working memory forgets an entity whose value is one of them (the rules track a phone number
    as an entity as they read it): it would otherwise keep the value, its aliases and mentions."""
    gone = {e.id for e in session.entities if str(e.value) in held}
    if gone:
        session.entities[:] = [e for e in session.entities if e.id not in gone]
        session.last_list[:] = [i for i in session.last_list if i not in gone]


def _mask_results(session: Session, redact: Redactor) -> None:
    """The recorded action results (kept per idempotency key, so a repeated "yes" never runs an
    action twice) are masked too: an action may echo the value it was given."""
    for key, result in session.executed.items():
        masked = mask_deep(result, redact)
        if masked != result:
            session.executed[key] = masked


def _mask_history(session: Session, since_turn: int, redact: Redactor) -> dict[int, Message]:
    """Mask the loaded messages of turns since ``since_turn`` in place; the changed ones by absolute index."""
    changed, _ = _mask_rows(session.history, session.history_offset, since_turn, redact)
    for index, message in changed.items():
        session.history[index - session.history_offset] = message
    return changed


def _started_before_tail(session: Session, since_turn: int) -> bool:
    """Whether stored rows before the loaded tail may belong to the task."""
    if session.history_offset <= 0:
        return False
    return not session.history or session.history[0].turn >= since_turn


def _mask_stored(read: HistoryReader, end: int, since_turn: int, redact: Redactor) -> dict[int, Message]:
    """The stored rows before ``end`` from turn ``since_turn`` on, masked, by absolute index; read
    backwards a chunk at a time, so a long session costs only the task's own rows."""
    changed: dict[int, Message] = {}
    while end > 0:
        start = max(0, end - _CHUNK)
        chunk, reached = _mask_rows(read(start, end), start, since_turn, redact)
        changed.update(chunk)
        if reached:
            break
        end = start
    return changed


def _mask_rows(rows: list[Message], offset: int, since_turn: int,
               redact: Redactor) -> tuple[dict[int, Message], bool]:
    """The rows of turns since ``since_turn`` that ``redact`` changes, masked, by absolute index
    (``offset`` + position); and whether a row before the task was reached (nothing older is its)."""
    changed: dict[int, Message] = {}
    for position in range(len(rows) - 1, -1, -1):
        message = rows[position]
        if message.turn < since_turn:
            return changed, True
        masked = redact(message.content)
        if masked != message.content:
            changed[offset + position] = message.model_copy(update={"content": masked})
    return changed, False
