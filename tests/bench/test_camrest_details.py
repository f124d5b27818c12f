"""The restaurant finder's details question looks up the restaurant the wishes describe: those
the session searched with, those of a search still asking (the question interrupted it), and
those the question names itself; with no wish at all it says to search first."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dialogkit import ActionContext, ActionError
from examples.camrest import camrest_actions as actions

RESTAURANTS = [
    {"name": "first pizza", "food": "italian", "area": "centre", "pricerange": "cheap", "address": "1 Main St",
     "phone": "01", "postcode": "CB1"},
    {"name": "east curry", "food": "indian", "area": "east", "pricerange": "moderate", "address": "2 East St",
     "phone": "02", "postcode": "CB2"},
]


@pytest.fixture(autouse=True)
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "CamRestDB.json"
    path.write_text(json.dumps(RESTAURANTS), encoding="utf-8")
    monkeypatch.setenv("CAMREST_DB", str(path))


def _asked(slots: dict[str, Any], *, waiting: dict[str, Any] | None = None,
           searched: dict[str, Any] | None = None) -> dict[str, Any]:
    session = SimpleNamespace(
        session_slots={k: SimpleNamespace(value=v) for k, v in (searched or {}).items()},
        stack=[SimpleNamespace(slots=waiting or {}), SimpleNamespace(slots=slots)])
    result: dict[str, Any] = actions.restaurant_details(ActionContext(slots=slots, session=session))
    return result


def test_a_search_still_asking_gives_its_wishes() -> None:
    """"what is their address?" while the search asks for a price: the indian place in the east."""
    assert _asked({}, waiting={"food": "indian", "area": "east"})["name"] == "east curry"


def test_the_question_s_own_wishes_come_last() -> None:
    assert _asked({"food": "italian"}, waiting={"food": "indian"})["name"] == "first pizza"


def test_wishes_searched_before_count() -> None:
    assert _asked({}, searched={"area": "east"})["name"] == "east curry"


def test_with_no_wish_there_is_nothing_to_look_up() -> None:
    with pytest.raises(ActionError, match="search for a restaurant first"):
        _asked({})


def test_wishes_no_restaurant_fits() -> None:
    with pytest.raises(ActionError, match="no restaurant fits"):
        _asked({"food": "thai"})
