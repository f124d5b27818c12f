"""Write the CrossWOZ bot: the committed template plus the catalogue types, generated from the database.

The corpus database names about 12,000 restaurants, hotels, sights, dishes and facilities. They are
the corpus's own words, so none of them is committed: this script reads them from the corpus folder
given and writes the complete bot file to a git-ignored cache, ``.dialogkit/corpus/crosswoz.yaml``.

    python examples/crosswoz/build_values.py --data ../shared/corpora

Each value is its own canonical value and only alias: a name is said as it is written. A value of
one character is left out: it would match inside unrelated words.

The play times the sights list ("1小时 - 2小时", "3天") are the duration type's values, written
beside the bot file as ``crosswoz_durations.json`` with the ways people say them ("1-2个小时",
"1、2个小时", "一两个小时", "半小时"): the search compares a duration with the database's text,
and a wish said another way would find nothing. A duration the database does not list is still
read by the type's pattern.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dialogkit.strings.aliases import normalise_alias

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TEMPLATE = HERE / "crosswoz.yaml.in"
OUT = ROOT / ".dialogkit" / "corpus" / "crosswoz.yaml"
DURATIONS = "crosswoz_durations.json"     # beside the bot file; the template's duration type reads it
MARKER = "  # generated: restaurant, hotel, attraction, place, dish, facility, hotel_type\n"

Record = dict[str, Any]


def _names(records: list[Record]) -> Iterable[str]:
    return (r["名称"] for r in records)


def _field_items(field: str) -> Callable[[list[Record]], Iterable[str]]:
    """Every item of a list field (推荐菜, 酒店设施), or the field's value when it is one string."""
    def items(records: list[Record]) -> Iterable[str]:
        for record in records:
            value = record.get(field)
            yield from (value if isinstance(value, list) else [value] if isinstance(value, str) else [])
    return items


# entity type -> (database file, kind, description, what to read from each record)
CATALOGUES: dict[str, tuple[str, str, str, Callable[[list[Record]], Iterable[str]]]] = {
    "restaurant": ("restaurant_db.json", "place", "餐馆名称", _names),
    "hotel": ("hotel_db.json", "place", "酒店名称", _names),
    "attraction": ("attraction_db.json", "place", "景点名称", _names),
    "place": ("metro_db.json", "place", "地铁和出租车的起点、终点：任何一个地方", _names),
    "dish": ("restaurant_db.json", "thing", "菜名", _field_items("推荐菜")),
    "facility": ("hotel_db.json", "thing", "酒店设施", _field_items("酒店设施")),
    "hotel_type": ("hotel_db.json", "other", "酒店类型", _field_items("酒店类型")),
}


class MissingData(Exception):
    """The corpus folder or one of its database files is not where it was said to be."""


def database_folder(data: Path) -> Path:
    """The database folder under ``data``: the corpora folder, or the crosswoz folder itself."""
    for folder in (data / "crosswoz" / "database", data / "database"):
        if folder.is_dir():
            return folder
    raise MissingData(f"no CrossWOZ database under {data} (expected crosswoz/database/*.json)")


def load_records(database: Path, filename: str) -> list[Record]:
    """A database file's records (each file is a list of [name, record] pairs)."""
    path = database / filename
    if not path.is_file():
        raise MissingData(f"{path} is missing")
    return [record for _name, record in json.loads(path.read_text(encoding="utf-8"))]


def catalogue_values(database: Path) -> dict[str, list[str]]:
    """Each catalogue type's values, in database order, without one-character values and without
    repeats: the first spelling of a name stands for the others that differ only in case or width
    ('Pizza' and 'PIZZA', '(通州店)' and '（通州店）'), since matching ignores both and an alias names
    one value."""
    loaded: dict[str, list[Record]] = {}
    out: dict[str, list[str]] = {}
    for name, (filename, _kind, _description, read) in CATALOGUES.items():
        records = loaded.setdefault(filename, load_records(database, filename))
        first: dict[str, str] = {}
        for value in (" ".join(v.split()) for v in read(records)):
            if len(value) >= 2:
                first.setdefault(normalise_alias(value), value)
        out[name] = list(first.values())
    return out


def entities_block(values: dict[str, list[str]]) -> str:
    """The generated types as YAML under ``entities:`` (keys JSON-quoted: a name may hold ':' or '#')."""
    lines: list[str] = []
    for name, found in values.items():
        _filename, kind, description, _read = CATALOGUES[name]
        lines += [f"  {name}:", f"    description: {json.dumps(description, ensure_ascii=False)}",
                  f"    kind: {kind}", "    values:"]
        lines += [f"      {json.dumps(value, ensure_ascii=False)}: []" for value in found]
    return "\n".join(lines) + "\n"


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(小时|天)(?:\s*-\s*(\d+(?:\.\d+)?)(小时|天))?$")
_HOUR, _DAY = "小时", "天"
_UNIT_SPELLINGS = {_HOUR: (_HOUR, "个" + _HOUR), _DAY: (_DAY,)}
_JOINERS = ("-", "~", "到", "至", "、")
# How a small number of hours or days is also written: 半小时, 一小时, 两三天 (a range without a joiner).
_NUMERALS = {"0.5": ("半",), "1": ("一",), "2": ("两", "二"), "3": ("三",), "4": ("四",), "5": ("五",),
             "6": ("六",), "7": ("七",), "8": ("八",), "9": ("九",), "10": ("十",)}


def _spellings(number: str) -> tuple[str, ...]:
    return (number, *_NUMERALS.get(number, ()))


def duration_aliases(value: str) -> list[str]:
    """The ways a play time of the database is said: "1小时 - 2小时" as 1-2小时, 1到2个小时,
    1小时到2小时, 1、2个小时, 一两个小时; "0.5小时" as 半小时, 半个小时. A range whose ends are one
    time ("0.3小时 - 0.3小时") is said as that time. Nothing for a text of another shape."""
    found = _DURATION.match(" ".join(value.split()))
    if found is None:
        return []
    low, low_unit, high, high_unit = found.groups()
    if high is None or (high == low and high_unit == low_unit):
        return [n + u for n in _spellings(low) for u in _UNIT_SPELLINGS[low_unit]]
    out: list[str] = []
    for a, b in _range_ends(low, high):
        for joiner in _JOINERS:
            for unit in _UNIT_SPELLINGS[high_unit]:
                if low_unit == high_unit:
                    out.append(f"{a}{joiner}{b}{unit}")
                out += [f"{a}{first}{joiner}{b}{unit}" for first in _UNIT_SPELLINGS[low_unit]]
        if low_unit == high_unit and not b[0].isdigit() and _next(low, high):
            out += [f"{a}{b}{unit}" for unit in _UNIT_SPELLINGS[high_unit]]    # 一两个小时, 两三天
    return out


def _next(low: str, high: str) -> bool:
    """Whether ``high`` is the whole number after ``low``: two such ends are said together, 两三."""
    return low.isdigit() and high.isdigit() and int(high) == int(low) + 1


def _range_ends(low: str, high: str) -> list[tuple[str, str]]:
    """The two ends written alike, in digits (1-2) or in words (一两); 半 also before digits (半-1)."""
    words = [(a, b) for a in _spellings(low)[1:] for b in _spellings(high)[1:]]
    half = [(a, high) for a in _spellings(low)[1:] if a == "半"]
    return [(low, high), *words, *half]


def durations_file(database: Path) -> list[dict[str, Any]]:
    """The duration type's values: each play time the sights list, with its aliases. An alias that
    names two values (or is another value itself) is left to neither."""
    values = list(dict.fromkeys(" ".join(str(r.get("游玩时间", "")).split())
                                for r in load_records(database, "attraction_db.json")))
    values = [v for v in values if _DURATION.match(v)]
    claims: dict[str, set[str]] = {normalise_alias(v): {v} for v in values}
    for value in values:
        for alias in duration_aliases(value):
            claims.setdefault(normalise_alias(alias), set()).add(value)
    return [{"value": value, "aliases": sorted({a for a in duration_aliases(value)
                                                if claims[normalise_alias(a)] == {value}})} for value in values]


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` only when it changes (a build cache keys on the files' bytes)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build(data: Path, out: Path = OUT) -> Path:
    """Write the complete bot file to ``out``, and the durations beside it (each only when its text
    changes), and return its path."""
    template = TEMPLATE.read_text(encoding="utf-8")
    if MARKER not in template:
        raise ValueError(f"{TEMPLATE} lost the line marking where the generated types go")
    database = database_folder(data)
    _write(out.parent / DURATIONS, json.dumps(durations_file(database), ensure_ascii=False, indent=1) + "\n")
    _write(out, template.replace(MARKER, entities_block(catalogue_values(database))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "corpora",
                        help="the corpora folder (holding crosswoz/), or the crosswoz folder itself")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        path = build(args.data, args.out)
    except MissingData as exc:
        print(f"build_values: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
