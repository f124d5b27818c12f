"""Bringing a stored session up to date with a changed bot file.

A session outlives releases of its bot file: a flow renamed, a slot removed or a stricter rule
must never leave a stored session naming things the running bot no longer has, or every later
turn of it would fail. A session records the version of the bot file it was saved with; when
that differs from the running one, this module drops what no longer exists and puts a changed
task back to asking, before the turn is handled. What the user said and what the bot remembers
about it (entities, the ticket summary) stays. The rules are in docs/lifecycle.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dialogkit.engine.slots import Validator, missing_required, validate_slot
from dialogkit.errors import DialogkitError
from dialogkit.model.session import Session, Task
from dialogkit.spec.schema import BotFile, FlowSpec, SlotSpec

__all__ = ["Migration", "migrate_session"]

TASK_GONE = {
    "zh": "之前的「{task}」已不再提供。",
    "en": 'The earlier "{task}" task is no longer available.',
}
"""Said for each task whose flow the bot file no longer has (the task is cancelled)."""

_ASKED_AGAIN = ("CONFIRMATION", "EXECUTION")
"""States that assume every required slot is filled: a task missing one goes back to asking."""


@dataclass(slots=True)
class Migration:
    """What bringing one session up to date changed, and what to tell the user about it."""

    flows_dropped: list[str] = field(default_factory=list)       # flows of the tasks cancelled
    slots_dropped: list[str] = field(default_factory=list)       # "flow.slot", or "session.slot" for a persisted value
    values_refused: list[str] = field(default_factory=list)      # "flow.slot" whose value the new rules refuse
    tasks_reset: list[str] = field(default_factory=list)         # flows of the tasks put back to asking
    clarification_dropped: bool = False
    messages: list[str] = field(default_factory=list)            # in the session's language

    @property
    def changed(self) -> bool:
        return bool(self.flows_dropped or self.slots_dropped or self.values_refused or self.tasks_reset
                    or self.clarification_dropped)

    def event(self) -> dict[str, Any]:
        """The fields of the one ``session_migrated`` log event: names only, never values."""
        return {"flows_dropped": self.flows_dropped, "slots_dropped": self.slots_dropped,
                "values_refused": self.values_refused, "tasks_reset": self.tasks_reset,
                "clarification_dropped": self.clarification_dropped}


def migrate_session(session: Session, spec: BotFile, validator: Validator) -> Migration:
    """Make ``session`` valid for ``spec`` in place; never raises on what the session holds.

    Messages are in ``session.language``: called once the turn's language is known, that is
    the language of the reply they become part of.
    """
    out = Migration()
    kept: list[Task] = []
    for task in session.stack:
        flow = spec.flows.get(task.flow)
        if flow is None:
            out.flows_dropped.append(task.flow)
            name = _task_name(session, task)
            out.messages.append(TASK_GONE.get(session.language, TASK_GONE["en"]).format(task=name))
            continue
        if _migrate_task(task, flow, session.language, validator, out):
            out.tasks_reset.append(task.flow)
        kept.append(task)
    session.stack[:] = kept
    _migrate_session_slots(session, spec, out)
    out.clarification_dropped = _drop_stale_clarification(session, spec)
    if session.last_flow is not None and session.last_flow not in spec.flows:
        session.last_flow = None
    return out


def _migrate_task(task: Task, flow: FlowSpec, language: str, validator: Validator, out: Migration) -> bool:
    """Drop the task's values of gone slots and values the slot's rules now refuse; True when the
    task has to ask again (its next question is then the first missing required slot)."""
    names = {slot.name for slot in flow.slots}
    gone = [name for name in task.slots if name not in names]
    for name in gone:
        _drop_value(task, name)
        task.slot_history.pop(name, None)
    out.slots_dropped.extend(f"{task.flow}.{name}" for name in gone)
    refused = [slot.name for slot in flow.slots if task.slots.get(slot.name) is not None
               and _refuses(slot, task.slots[slot.name], language, validator)]
    for name in refused:
        _drop_value(task, name)
    out.values_refused.extend(f"{task.flow}.{name}" for name in refused)
    task.slot_history = {name: changes for name, changes in task.slot_history.items() if name in names}
    task.prefilled = [name for name in task.prefilled if name in task.slots]
    reset = bool(gone or refused) or (task.pending_slot is not None and task.pending_slot not in names)
    incomplete = task.state in _ASKED_AGAIN and bool(missing_required(flow, task.slots))
    if incomplete or (task.state == "CONFIRMATION" and flow.confirm is None):
        task.state = "PARAM_COLLECT"
        reset = True
    if reset:
        task.pending_slot = None
        task.reprompts = 0
    return reset


def _drop_value(task: Task, name: str) -> None:
    task.slots.pop(name, None)
    task.slot_turns.pop(name, None)


def _refuses(slot: SlotSpec, value: Any, language: str, validator: Validator) -> bool:
    """True when the slot's rules refuse ``value``; a custom validator that fails keeps it (the
    value is checked again whenever it is corrected, and a migration must not fail the turn)."""
    try:
        return validate_slot(slot, value, language, validator) is not None
    except DialogkitError:
        return False


def _migrate_session_slots(session: Session, spec: BotFile, out: Migration) -> None:
    """Session-scoped persisted values whose slot no flow declares any more are dropped."""
    declared = {slot.name for flow in spec.flows.values() for slot in flow.slots}
    gone = [name for name in session.session_slots if name not in declared]
    for name in gone:
        del session.session_slots[name]
    out.slots_dropped.extend(f"session.{name}" for name in gone)


def _drop_stale_clarification(session: Session, spec: BotFile) -> bool:
    """A pending question naming a gone flow or slot is dropped: its answer could go nowhere."""
    pending = session.pending
    if pending is None:
        return False
    flow = spec.flows.get(pending.flow) if pending.flow is not None else None
    stale = pending.flow is not None and flow is None
    if not stale and pending.slot is not None:
        flows = [flow] if flow is not None else list(spec.flows.values())
        stale = all(f.slot(pending.slot) is None for f in flows)
    if stale:
        session.pending = None
    return stale


def _task_name(session: Session, task: Task) -> str:
    """How the user knew a task whose flow is gone: its line of the ticket summary (the flow's
    description when the task began), else the flow's name."""
    keys = (f"{task.flow}#{task.id}", task.flow)
    item = next((i for i in session.summary.facts if i.key in keys), None)
    fallback = task.flow.replace("_", " ")
    if session.language == "zh":
        return item.zh if item is not None and item.zh else fallback
    text = item.en if item is not None and item.en else fallback
    return text[:1].lower() + text[1:]
