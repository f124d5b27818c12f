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
from dialogkit.lexicon import writing
from dialogkit.memory.summary import item_text
from dialogkit.model.session import Session, Task
from dialogkit.spec.schema import BotFile, FlowSpec, SlotSpec
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import phrase

__all__ = ["Migration", "migrate_session"]


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
    resumed: bool = False       # the active task's flow is gone and a suspended task is active again
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


def migrate_session(session: Session, spec: BotFile, texts: Texts, validator: Validator) -> Migration:
    """Make ``session`` valid for ``spec`` in place; never raises on what the session holds.

    Messages are in ``session.language``: called once the turn's language is known, that is
    the language of the reply they become part of. ``texts`` are the new bot's labels.
    """
    out = Migration()
    active = session.task
    kept: list[Task] = []
    refusals: list[str] = []               # of the last task kept, the active one
    for task in session.stack:
        flow = spec.flows.get(task.flow)
        if flow is None:
            out.flows_dropped.append(task.flow)
            name = _task_name(session, task)
            out.messages.append(phrase("task_gone", session.language, task=name))   # the task is cancelled
            continue
        refusals = _migrate_task(task, flow, texts, session.language, validator, out)
        kept.append(task)
    session.stack[:] = kept
    out.resumed = active is not None and bool(kept) and kept[-1] is not active
    out.messages.extend(refusals)          # the active task's: a suspended one asks when it resumes
    _migrate_session_slots(session, spec, out)
    out.clarification_dropped = _drop_stale_clarification(session, spec)
    if session.last_flow is not None and session.last_flow not in spec.flows:
        session.last_flow = None
    return out


def _migrate_task(task: Task, flow: FlowSpec, texts: Texts, language: str, validator: Validator,
                  out: Migration) -> list[str]:
    """Drop the task's values of gone slots and values the slot's rules now refuse, and put it back
    to asking when anything changed; what to say about the refused values."""
    names = {slot.name for slot in flow.slots}
    gone = [name for name in task.slots if name not in names]
    for name in gone:
        _drop_value(task, name)
    out.slots_dropped.extend(f"{task.flow}.{name}" for name in gone)
    said: list[str] = []
    for slot in flow.slots:
        value = task.slots.get(slot.name)
        error = _refusal(slot, value, language, validator) if value is not None else None
        if error is not None:
            _drop_value(task, slot.name)
            out.values_refused.append(f"{task.flow}.{slot.name}")
            said += [phrase("value_refused_now", language, slot=texts.slot_label(slot, language)), error]
    task.slot_history = {name: changes for name, changes in task.slot_history.items() if name in names}
    task.prefilled = [name for name in task.prefilled if name in task.slots]
    changed = bool(gone or said) or (task.pending_slot is not None and task.pending_slot not in names)
    if _ask_again(task, flow, changed):
        out.tasks_reset.append(task.flow)
    return said


def _ask_again(task: Task, flow: FlowSpec, changed: bool) -> bool:
    """Put a changed task back to asking: its next question is the first missing required slot,
    and a confirmation is asked again (with the values it now holds) before anything runs."""
    incomplete = task.state in _ASKED_AGAIN and bool(missing_required(flow, task.slots))
    if incomplete or (task.state == "CONFIRMATION" and (changed or flow.confirm is None)):
        task.state = "PARAM_COLLECT"
        changed = True
    if changed:
        task.pending_slot = None
        task.reprompts = 0
    return changed


def _drop_value(task: Task, name: str) -> None:
    task.slots.pop(name, None)
    task.slot_turns.pop(name, None)


def _refusal(slot: SlotSpec, value: Any, language: str, validator: Validator) -> str | None:
    """The rule's message when the slot's rules now refuse ``value``; a custom validator that
    fails keeps the value (a migration must not fail the turn; the value is checked again when
    it is corrected)."""
    try:
        return validate_slot(slot, value, language, validator)
    except DialogkitError:
        return None


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
    keys = (task.key, task.flow)
    item = next((i for i in session.summary.facts if i.key in keys), None)
    fallback = task.flow.replace("_", " ")
    text = item_text(item, session.language) if item is not None else ""
    text = text or fallback
    return text[:1].lower() + text[1:] if writing(session.language).capitals else text
