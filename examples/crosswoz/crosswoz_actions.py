"""Actions of the CrossWOZ travel bot: searches over the corpus database, read when first needed.

The database is the corpus's (``crosswoz/database/*.json``); nothing of it is committed. It is
found where ``use_database`` points, else under ``$CROSSWOZ_DATA``, else under
``../shared/corpora`` beside the repository. A search keeps the records that meet every
constraint given (a price or rating range, a dish, a facility, a type) and names the best rated.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from dialogkit import action
from examples.crosswoz.build_values import ROOT, database_folder, load_records

_FOLDER: list[Path] = []
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def use_database(data: Path) -> None:
    """Search the database under ``data`` (the corpora folder or the crosswoz folder)."""
    _FOLDER[:] = [database_folder(data)]
    _records.cache_clear()


@cache
def _records(filename: str) -> list[dict[str, Any]]:
    if not _FOLDER:
        use_database(Path(os.environ.get("CROSSWOZ_DATA", ROOT.parent / "shared" / "corpora")))
    return load_records(_FOLDER[0], filename)


def _within(number: Any, wanted: str) -> bool:
    """Whether ``number`` meets a range said as text: '100-150元', '50元以下', '4.5分以上', '5分', '免费'."""
    if not isinstance(number, (int, float)):
        return False
    if wanted == "免费":
        return number == 0
    bounds = [float(n) for n in _NUMBER.findall(wanted)]
    if not bounds:
        return True
    if "以上" in wanted:
        return number >= bounds[0]
    if "以下" in wanted:
        return number <= bounds[0]
    return bounds[0] <= number <= bounds[-1]


def _matches(record: dict[str, Any], constraints: dict[str, Any]) -> bool:
    for field, wanted in constraints.items():
        have = record.get(field)
        if wanted is None:
            continue
        if isinstance(have, list):
            if wanted not in have:
                return False
        elif isinstance(have, str):
            if "".join(str(wanted).split()) != "".join(have.split()):
                return False
        elif not _within(have, str(wanted)):
            return False
    return True


def _search(filename: str, constraints: dict[str, Any]) -> dict[str, Any]:
    found = [r for r in _records(filename) if _matches(r, constraints)]
    best = max(found, key=lambda r: r.get("评分") or 0, default=None)
    return {"count": len(found), "name_found": best["名称"] if best else "（无）"}


@action("search_restaurant")
def search_restaurant(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("restaurant_db.json", {"名称": slots.get("name"), "推荐菜": slots.get("dish"),
                                          "人均消费": slots.get("price"), "评分": slots.get("rating")})


@action("search_hotel")
def search_hotel(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("hotel_db.json", {"名称": slots.get("name"), "酒店类型": slots.get("hotel_type"),
                                     "酒店设施": slots.get("facility"), "价格": slots.get("price"),
                                     "评分": slots.get("rating")})


@action("search_attraction")
def search_attraction(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("attraction_db.json", {"名称": slots.get("name"), "门票": slots.get("ticket"),
                                          "游玩时间": slots.get("duration"), "评分": slots.get("rating")})


def _station(place: Any) -> str:
    record = next((r for r in _records("metro_db.json") if r["名称"] == place), None)
    return str(record["地铁"]) if record and record.get("地铁") else "（不详）"


@action("metro_route")
def metro_route(slots: dict[str, Any]) -> dict[str, Any]:
    return {"origin_station": _station(slots.get("origin")), "destination_station": _station(slots.get("destination"))}


@action("call_taxi")
def call_taxi(slots: dict[str, Any]) -> dict[str, Any]:
    """The corpus's taxi database is a template with placeholders; so is this answer."""
    return {"car_type": "#CX", "plate": "#CP"}
