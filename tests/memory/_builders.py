"""Hand-built sessions and mentions for memory tests: what understanding would have produced."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from dialogkit.memory.tracker import track_mentions
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Entity, Session
from dialogkit.spec.loader import check_bot_file
from dialogkit.text.labels import Texts

ROOT = Path(__file__).resolve().parents[2]

KINDS = {"order_id": "thing", "product": "thing", "person": "person", "city": "place", "meeting": "thing",
         "issue_type": "other", "time": "time", "number": "other"}


def mention(type_name: str, value: Any, text: str | None = None, *, kind: str | None = None,
            start: int = 0) -> Mention:
    """A mention as understanding would report it; the kind defaults from the type."""
    surface = str(value) if text is None else text
    return Mention(type=type_name, value=value, text=surface, start=start, end=start + len(surface),
                   kind=kind or KINDS.get(type_name, "other"))


def in_order(*mentions: Mention) -> list[Mention]:
    """Give mentions increasing, non-overlapping offsets, as if written one after another."""
    placed, offset = [], 0
    for m in mentions:
        placed.append(Mention(m.type, m.value, m.text, offset, offset + len(m.text), m.kind))
        offset += len(m.text) + 1
    return placed


def say(session: Session, turn: int, *mentions: Mention, source: str = "user") -> list[Entity]:
    """Track one prior turn's mentions."""
    return track_mentions(session, in_order(*mentions), turn=turn, source=source)


def new_session(name: str = "s1") -> Session:
    return Session(id=name, user_id=f"user-{name}")


@functools.cache
def bot_texts(relative: str) -> Texts:
    """The labels of a bot file in this repository ("flows/support_ticket.yaml"), read once."""
    spec = check_bot_file(ROOT / relative).spec
    assert spec is not None, relative
    return Texts(spec)
