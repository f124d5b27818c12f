"""Write the CrossWOZ bot: the committed template plus the catalogue types, generated from the database.

The corpus database names about 12,000 restaurants, hotels, sights, dishes and facilities. They are
the corpus's own words, so none of them is committed: this script reads them from the corpus folder
given and writes the complete bot file to a git-ignored cache, ``.dialogkit/corpus/crosswoz.yaml``.

    python examples/crosswoz/build_values.py --data ../shared/corpora

Each value is its own canonical value and only alias: a name is said as it is written. A value of
one character is left out: it would match inside unrelated words.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dialogkit.strings.aliases import normalise_alias

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TEMPLATE = HERE / "crosswoz.yaml.in"
OUT = ROOT / ".dialogkit" / "corpus" / "crosswoz.yaml"
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


def build(data: Path, out: Path = OUT) -> Path:
    """Write the complete bot file to ``out`` (only when its text changes) and return its path."""
    template = TEMPLATE.read_text(encoding="utf-8")
    if MARKER not in template:
        raise ValueError(f"{TEMPLATE} lost the line marking where the generated types go")
    text = template.replace(MARKER, entities_block(catalogue_values(database_folder(data))))
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
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
