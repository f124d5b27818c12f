"""Actions of the CrossWOZ travel bot: searches over the corpus database, read when first needed.

The database is the corpus's (``crosswoz/database/*.json``); nothing of it is committed. It is
found where ``use_database`` points, else under ``$CROSSWOZ_DATA``, else under
``../shared/corpora`` beside the repository. A search keeps the records that meet every
constraint given (a price or rating range, a dish, a facility, a type) and names the best rated.
"""

from __future__ import annotations

import math
import os
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from dialogkit import action
from examples.crosswoz.build_values import ROOT, database_folder, load_records

_FOLDER: list[Path] = []
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
FREE, NOT_FREE = "免费", "不免费"       # the price type's two worded values


def use_database(data: Path) -> None:
    """Search the database under ``data`` (the corpora folder or the crosswoz folder)."""
    _FOLDER[:] = [database_folder(data)]
    _records.cache_clear()
    _table.cache_clear()
    _best.cache_clear()


@cache
def _records(filename: str) -> list[dict[str, Any]]:
    if not _FOLDER:
        use_database(Path(os.environ.get("CROSSWOZ_DATA", ROOT.parent / "shared" / "corpora")))
    return load_records(_FOLDER[0], filename)


def _squeezed(text: str) -> str:
    return "".join(text.split())


@dataclass(frozen=True)
class _Table:
    """A database file's records, with what a search asks of them indexed: each text field's
    texts written without white space, each list field's items, each number field's numbers in
    order. A search looks at the records its constraints allow, not at all of them."""

    rows: list[tuple[dict[str, Any], dict[str, str]]]
    texts: dict[str, dict[str, list[int]]]           # field -> squeezed text -> rows
    items: dict[str, dict[Any, list[int]]]           # field -> list item -> rows
    numbers: dict[str, list[tuple[float, int]]]      # field -> (number, row), in order
    kinds: dict[str, set[type]]                      # field -> the types its records hold there


@cache
def _table(filename: str) -> _Table:
    rows = [(r, {field: _squeezed(v) for field, v in r.items() if isinstance(v, str)}) for r in _records(filename)]
    table = _Table(rows, {}, {}, {}, {})
    for index, (record, texts) in enumerate(rows):
        for field, have in record.items():
            table.kinds.setdefault(field, set()).add(type(have))
            if isinstance(have, str):
                table.texts.setdefault(field, {}).setdefault(texts[field], []).append(index)
            elif isinstance(have, list):
                for item in have:
                    table.items.setdefault(field, {}).setdefault(item, []).append(index)
            elif isinstance(have, (int, float)):
                table.numbers.setdefault(field, []).append((float(have), index))
    for numbers in table.numbers.values():
        numbers.sort()
    return table


def _allowed(table: _Table, field: str, wanted: Any) -> set[int] | None:
    """The rows that may meet one constraint (``_matches`` decides), or None: any row may."""
    kinds = table.kinds.get(field, set()) - {type(None)}      # a record without the field meets nothing
    if kinds == {str}:
        return set(table.texts.get(field, {}).get(_squeezed(str(wanted)), ()))
    if kinds == {list}:
        try:
            return set(table.items.get(field, {}).get(wanted, ()))
        except TypeError:           # a list of items: no item is one
            return set()
    if kinds and kinds <= {int, float}:
        low, high = _range(str(wanted))
        numbers = table.numbers.get(field, [])
        return {index for index in (i for _n, i in numbers[bisect_left(numbers, (low, -1)):
                                                            bisect_right(numbers, (high, len(table.rows)))])}
    return None


def _range(wanted: str) -> tuple[float, float]:
    """The numbers ``_within`` may take for ``wanted``, as a closed range."""
    if wanted == FREE:
        return 0.0, 0.0
    if wanted == NOT_FREE:
        return math.ulp(0.0), math.inf
    bounds = [float(n) for n in _NUMBER.findall(wanted)]
    if not bounds:
        return -math.inf, math.inf
    if "以上" in wanted:
        return bounds[0], math.inf
    if "以下" in wanted:
        return -math.inf, bounds[0]
    return bounds[0], bounds[-1]


def _within(number: Any, wanted: str) -> bool:
    """Whether ``number`` meets a range said as text: '100-150元', '50元以下', '4.5分以上', '5分', '免费'."""
    if not isinstance(number, (int, float)):
        return False
    if wanted in (FREE, NOT_FREE):
        return (number == 0) == (wanted == FREE)
    bounds = [float(n) for n in _NUMBER.findall(wanted)]
    if not bounds:
        return True
    if "以上" in wanted:
        return number >= bounds[0]
    if "以下" in wanted:
        return number <= bounds[0]
    return bounds[0] <= number <= bounds[-1]


def _matches(record: dict[str, Any], texts: dict[str, str], constraints: dict[str, Any]) -> bool:
    for field, wanted in constraints.items():
        have = record.get(field)
        if wanted is None:
            continue
        if isinstance(have, list):
            if wanted not in have:
                return False
        elif isinstance(have, str):
            if _squeezed(str(wanted)) != texts[field]:
                return False
        elif not _within(have, str(wanted)):
            return False
    return True


def _search(filename: str, constraints: dict[str, Any]) -> dict[str, Any]:
    table = _table(filename)
    rows: set[int] | None = None
    for field, wanted in constraints.items():
        allowed = _allowed(table, field, wanted) if wanted is not None else None
        if allowed is not None:
            rows = allowed if rows is None else rows & allowed
    if rows is None and all(wanted is None for wanted in constraints.values()):
        return _best(filename)      # nothing asked: every record
    chosen = table.rows if rows is None else [table.rows[i] for i in sorted(rows)]
    return _answer([r for r, texts in chosen if _matches(r, texts, constraints)])


@cache
def _best(filename: str) -> dict[str, Any]:
    return _answer(_records(filename))


def _answer(found: list[dict[str, Any]]) -> dict[str, Any]:
    best = max(found, key=lambda r: r.get("评分") or 0, default=None)
    return {"count": len(found), "name_found": best["名称"] if best else "（无）"}


@action("search_restaurant")
def search_restaurant(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("restaurant_db.json", {"名称": slots.get("name"), "推荐菜": slots.get("dish"),
                                          "人均消费": slots.get("price"), "评分": slots.get("rating"),
                                          "周边景点": slots.get("near_attraction"),
                                          "周边酒店": slots.get("near_hotel")})


@action("search_hotel")
def search_hotel(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("hotel_db.json", {"名称": slots.get("name"), "酒店类型": slots.get("hotel_type"),
                                     "酒店设施": slots.get("facility"), "价格": slots.get("price"),
                                     "评分": slots.get("rating"), "周边景点": slots.get("near_attraction"),
                                     "周边餐馆": slots.get("near_restaurant")})


@action("search_attraction")
def search_attraction(slots: dict[str, Any]) -> dict[str, Any]:
    return _search("attraction_db.json", {"名称": slots.get("name"), "门票": slots.get("ticket"),
                                          "游玩时间": slots.get("duration"), "评分": slots.get("rating"),
                                          "周边餐馆": slots.get("near_restaurant"),
                                          "周边酒店": slots.get("near_hotel")})


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
