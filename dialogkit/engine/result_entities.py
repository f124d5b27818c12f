"""What an action returns is something the user can point at: "推荐金鸭餐厅。" then "这家餐馆的周边
有哪些景点" / "what sights are near this restaurant" reaches the restaurant the search found.

A result key that names one of the bot's entity types (``returns: [restaurant]``) becomes an entity
of that type and kind, tracked like a value the user said, its canonical value read through the
type's aliases when the action answers with a label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.memory import tracker
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Session
from dialogkit.spec.schema import BotFile
from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["track_returned"]


def track_returned(session: Session, spec: BotFile, understanding: RuleUnderstanding,
                   result: Mapping[str, Any], *, turn: int) -> None:
    """Track each returned value whose key is an entity type of the bot as an entity of that type."""
    found: list[Mention] = []
    for key, value in result.items():
        entity = spec.entities.get(key)
        if entity is None or not isinstance(value, (str, int)) or isinstance(value, bool) or value == "":
            continue
        written = str(value)
        canonical = understanding.parse_value(key, written)
        found.append(Mention(type=key, value=canonical if canonical is not None else value, text=written,
                             start=0, end=len(written), kind=entity.kind))
    if found:
        tracker.track_mentions(session, found, turn=turn, source="action")
