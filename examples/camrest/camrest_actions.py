"""Actions of the Cambridge restaurant finder (`examples/camrest/camrest.yaml`).

The restaurants are CamRest676's database (CamRestDB.json, CC BY 4.0), which is not part of this
repository: it is read from ``$CAMREST_DB``, else from the corpora folder beside the checkout
(``../shared/corpora/camrest676/CamRestDB.json``). Without it a search fails with a message
saying where it looked, and the bot takes its ``on_error`` path.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from dialogkit import ActionContext, ActionError, action

SEARCHED = ("food", "area", "pricerange")
DEFAULT_DB = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "camrest676" / "CamRestDB.json"


def _db_path() -> Path:
    return Path(os.environ.get("CAMREST_DB") or DEFAULT_DB)


@cache
def _restaurants(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ActionError(f"no restaurant database at {path} (set CAMREST_DB)")
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return rows


def _matching(wishes: dict[str, Any]) -> list[dict[str, Any]]:
    """Restaurants fitting every wish; ``any`` (no preference) fits all."""
    return [r for r in _restaurants(_db_path())
            if all(wishes.get(k) in (None, "any", r.get(k)) for k in SEARCHED)]


@action("find_restaurants")
def find_restaurants(ctx: ActionContext) -> dict[str, Any]:
    """The first restaurant fitting the wishes and how many do; none fitting is an answer too."""
    found = _matching(ctx.slots)
    return {"name": found[0]["name"] if found else "nothing", "count": len(found)}


@action("restaurant_details")
def restaurant_details(ctx: ActionContext) -> dict[str, Any]:
    """Where to find the restaurant the question names ("the phone number of Nandos"), else the
    first one fitting the wishes: those this session searched with, then those of a search still
    asking (the question interrupted it), then those the question itself names ("the address of a
    cheap one"). With no wish at all there is nothing to look up yet."""
    named = [r for r in _restaurants(_db_path()) if r["name"].lower() == str(ctx.slots.get("restaurant") or "")]
    if named:
        return {key: named[0].get(key, "") for key in ("name", "address", "phone", "postcode")}
    wishes = _wishes(ctx)
    if not wishes:
        raise ActionError("search for a restaurant first")
    found = _matching(wishes)
    if not found:
        raise ActionError("no restaurant fits those wishes")
    return {key: found[0].get(key, "") for key in ("name", "address", "phone", "postcode")}


def _wishes(ctx: ActionContext) -> dict[str, Any]:
    held = getattr(ctx.session, "session_slots", {}) or {}
    wishes = {name: held[name].value for name in SEARCHED if name in held}
    for task in getattr(ctx.session, "stack", ()):     # bottom to top: the question's own task last
        wishes.update({name: task.slots[name] for name in SEARCHED if task.slots.get(name) is not None})
    wishes.update({name: ctx.slots[name] for name in SEARCHED if ctx.slots.get(name) is not None})
    return wishes
