"""Forgetting: dropping what no longer matters, and taking back what the user retracts.

Two different acts. After a task finishes, its *transient details* go (values the user
corrected away, the task's correction history), while its summary, its persisted values and
the entities one can still refer to stay ("它现在怎么样？" after a status check must still work).
"忘记刚才说的" / "forget what I just said" undoes one user turn exactly: every per-mention
record an entity keeps is tagged with its turn, so the turn's mentions, attributes and summary
items can be removed without touching anything older.
"""

from __future__ import annotations

from typing import Any

from dialogkit.memory.summary import remove_turn
from dialogkit.model.session import Entity, Session, Task

__all__ = ["forget_last_turn", "forget_task_details"]


def forget_task_details(session: Session, task: Task) -> None:
    """Drop a finished task's transient details; keep its summary and persisted values.

    Values a correction replaced ("不对，是67890") were only ever mentioned during this task:
    they would otherwise remain pronoun candidates and compete with the value that counted.
    """
    final = {str(v) for v in task.slots.values()}
    for changes in task.slot_history.values():
        for change in changes:
            if str(change.value) in final:
                continue
            for entity in [e for e in session.entities if str(e.value) == str(change.value)]:
                if entity.first_turn >= task.started_turn and entity.id not in session.last_list:
                    _drop(session, entity)
    task.slot_history.clear()
    task.pending_slot = None
    task.reprompts = 0
    session.last_turn_added = {}


def _drop(session: Session, entity: Entity) -> None:
    session.entities[:] = [e for e in session.entities if e.id != entity.id]
    session.last_list[:] = [i for i in session.last_list if i != entity.id]


def forget_last_turn(session: Session, turn: int) -> dict[str, Any]:
    """Remove what ``turn`` added to entity memory and the summary; report what went.

    Entities only mentioned in that turn disappear; others lose that turn's mentions, the
    aliases only that turn used, and the attributes it set. A list formed in that turn is
    cleared. The caller removes the slot values the turn filled (it owns ``Task.slot_turns``).
    """
    removed: list[str] = []
    updated: list[str] = []
    attributes: list[str] = []
    listed_then = bool(session.last_list) and all(
        (e := session.entity(i)) is not None and turn in e.mention_turns for i in session.last_list)
    for entity in list(session.entities):
        dropped_attrs = [name for name, t in entity.attribute_turns.items() if t == turn]
        for name in dropped_attrs:
            entity.attributes.pop(name, None)
            entity.attribute_turns.pop(name, None)
            attributes.append(f"{entity.value}.{name}")
        if turn not in entity.mention_turns:
            continue
        _unmention(entity, turn)
        if entity.mentions == 0 and not entity.attributes:
            _drop(session, entity)
            removed.append(str(entity.value))
        else:
            updated.append(str(entity.value))
    if listed_then:
        session.last_list = []
    summary_items = remove_turn(session.summary, turn)
    return {"entities_removed": removed, "entities_updated": updated, "attributes_removed": attributes,
            "summary_items_removed": summary_items}


def _unmention(entity: Entity, turn: int) -> None:
    """Take back ``turn``'s mentions and rebuild the counters from the remaining ones.

    The tracker keeps only the newest ``RECENT_MENTIONS`` one by one; when older ones were let
    go (``mentions`` counts more than the record holds), the first turn and position stand as
    they are, and an alias the turn used stays: an older, unrecorded mention may have used it too.
    """
    recorded = len(entity.mention_turns)
    complete = entity.mentions <= recorded
    keep = [i for i, t in enumerate(entity.mention_turns) if t != turn]
    gone_texts = {entity.mention_texts[i] for i, t in enumerate(entity.mention_turns)
                  if t == turn and i < len(entity.mention_texts)}
    entity.mention_turns = [entity.mention_turns[i] for i in keep]
    entity.mention_positions = [entity.mention_positions[i] for i in keep if i < len(entity.mention_positions)]
    entity.mention_texts = [entity.mention_texts[i] for i in keep if i < len(entity.mention_texts)]
    entity.mentions = max(entity.mentions - (recorded - len(keep)), len(keep))
    if complete:
        still_used = set(entity.mention_texts)
        entity.aliases = [a for a in entity.aliases if a not in gone_texts or a in still_used]
    if entity.mention_turns:
        entity.last_turn = max(entity.mention_turns)
        if complete:
            entity.first_turn = min(entity.mention_turns)
    if entity.mention_positions:
        entity.last_position = max(entity.mention_positions)
        if complete:
            entity.first_position = min(entity.mention_positions)

