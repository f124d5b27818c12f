"""What an action returns under an entity type's name is an entity the user can point at."""

from __future__ import annotations

from pathlib import Path

from dialogkit.engine.result_entities import track_returned
from dialogkit.model.session import Session
from dialogkit.spec.loader import check_bot_file
from dialogkit.spec.schema import BotFile
from dialogkit.understanding.rules import RuleUnderstanding

DELI = Path(__file__).resolve().parents[1] / "conversations" / "bots" / "deli.yaml"


def _deli() -> tuple[BotFile, RuleUnderstanding]:
    spec = check_bot_file(DELI).spec
    assert spec is not None
    return spec, RuleUnderstanding(spec)


def test_a_returned_restaurant_label_is_tracked_as_the_restaurant_it_names() -> None:
    spec, understanding = _deli()
    session = Session(id="s")
    track_returned(session, spec, understanding, {"restaurant": "金鸭餐厅", "count": 3}, turn=2)
    [entity] = session.entities
    assert (entity.type, entity.value, entity.kind, entity.source) == ("restaurant", "golden_duck", "place", "action")


def test_keys_that_name_no_entity_type_track_nothing() -> None:
    spec, understanding = _deli()
    session = Session(id="s")
    track_returned(session, spec, understanding, {"order_no_found": "12345678", "ok": True}, turn=2)
    assert session.entities == []
