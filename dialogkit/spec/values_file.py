"""An entity type's values read from a CSV or JSON file beside the bot file (``values_file:``).

Catalogues (products, stores, stations, dishes) are kept as tables, often exported from another
system, and run to tens of thousands of rows: as YAML they would be slow to read and hard to
keep. Each row is one value: its canonical name, its aliases and a label per language.

- CSV: a header row naming the columns ``value`` (required), ``aliases`` (several separated by
  ``|``), ``zh`` and ``en``; one value per row.
- JSON: a list of objects with the same keys, ``aliases`` a list of strings (or one string).

The standard library reads both (``csv`` and ``json`` are in C), never the YAML reader. Every
bad row is a problem at ``file:line``, so an author fixes them all in one round.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.schema import SynonymValue
from dialogkit.spec.yaml_source import decode
from dialogkit.strings.suggest import did_you_mean

COLUMNS = ("value", "aliases", "zh", "en")
MAX_VALUES = 200_000               # rows of one file
MAX_BYTES = 64 * 2**20
ALIAS_SEPARATOR = "|"


@dataclass
class ValuesRead:
    """The values of one file, the line each was written on, and the problems of its bad rows."""

    values: dict[str, SynonymValue] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)     # checked, not yet models
    digest: str = ""            # sha256 of the file's bytes: the bot's version covers them


def read_values_file(path: Path, shown: str) -> ValuesRead:
    """The values in the file at ``path`` (``shown`` is how problems name it)."""
    out = ValuesRead()
    try:
        raw = path.read_bytes()
    except OSError as error:
        out.problems.append(Problem(shown, 1, 1, f"cannot read the values file: {error.strerror or error}",
                                    "values_file is a path relative to the bot file's folder"))
        return out
    out.digest = hashlib.sha256(raw).hexdigest()
    if len(raw) > MAX_BYTES:
        out.problems.append(Problem(shown, 1, 1, f"the values file has {len(raw)} bytes, more than {MAX_BYTES}"))
        return out
    try:
        text = decode(raw, shown)
    except FlowError as error:
        out.problems.extend(error.problems)
        return out
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        out.problems.append(Problem(shown, 1, 1, f"a values file is .csv or .json, not '{suffix or path.name}'"))
        return out
    rows = _csv_rows(text, shown, out.problems) if suffix == ".csv" else _json_rows(text, shown, out.problems)
    for line, *cells in rows:
        if len(out.rows) >= MAX_VALUES:
            out.problems.append(Problem(shown, line, 1, f"the values file holds more than {MAX_VALUES} values",
                                        "split the catalogue into several entity types"))
            break
        _add(out, line, shown, *cells)
    _as_models(out, shown)
    return out


_VALUES = TypeAdapter(dict[str, SynonymValue])


def _as_models(out: ValuesRead, shown: str) -> None:
    """The checked rows as models, built in one call (pydantic's core builds 50,000 in 0.1 s)."""
    try:
        out.values = _VALUES.validate_python(out.rows)
    except ValidationError as error:     # rows are checked first: this is a safety net
        for err in error.errors(include_url=False):
            value = str(err["loc"][0]) if err["loc"] else ""
            out.problems.append(Problem(shown, out.lines.get(value, 1), 1, f"value '{value}': {err['msg']}"))
    out.rows = {}


Row = tuple[int, Any, Any, Any, Any]
"""One row as read: its line, then its value, aliases, zh and en cells (None when absent)."""


def _add(out: ValuesRead, line: int, shown: str, value: Any, aliases: Any, zh: Any, en: Any) -> None:
    """One row checked and kept; a bad row is a problem at its line. One pass with no helper
    calls: a catalogue runs it 50,000 times while the bot loads."""
    if not isinstance(value, str) or not (value := value.strip()):
        out.problems.append(Problem(shown, line, 1, "a row without a value", "fill the 'value' column"))
        return
    if value in out.lines:
        out.problems.append(Problem(shown, line, 1, f"value '{value}' is given twice (first at line "
                                    f"{out.lines[value]})", "merge the two rows"))
        return
    if isinstance(aliases, str):
        aliases = aliases.split(ALIAS_SEPARATOR) if aliases.strip() else []
    elif aliases is None:
        aliases = []
    elif not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        out.problems.append(Problem(shown, line, 1, f"the aliases of '{value}' must be a list of texts"))
        return
    stripped = [alias.strip() for alias in aliases]
    if not all(stripped):
        out.problems.append(Problem(shown, line, 1, f"an alias of '{value}' is empty",
                                    f"remove the empty alias (two {ALIAS_SEPARATOR} in a row, or one at an end)"))
        return
    label: dict[str, str] | None = None
    if zh is not None or en is not None:
        if not isinstance(zh or "", str) or not isinstance(en or "", str):
            out.problems.append(Problem(shown, line, 1, f"the labels (zh, en) of '{value}' must be texts"))
            return
        zh, en = zh and zh.strip(), en and en.strip()
        label = ({"zh": zh, "en": en} if en else {"zh": zh}) if zh else ({"en": en} if en else None)
    out.rows[value] = {"aliases": stripped, "label": label}
    out.lines[value] = line


def _csv_rows(text: str, shown: str, problems: list[Problem]) -> Iterator[Row]:
    reader = csv.reader(text.splitlines(keepends=True))
    try:
        header = [name.strip().lower() for name in next(reader, [])]
    except csv.Error as error:
        problems.append(Problem(shown, 1, 1, f"CSV error: {error}"))
        return
    if not _good_header(header, shown, problems):
        return
    width = len(header)
    picks = [header.index(column) if column in header else width for column in COLUMNS]   # width: absent
    start = reader.line_num + 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if len(cells) > width:
                problems.append(Problem(shown, line, 1, f"this row has {len(cells)} cells, the header names "
                                        f"{width}", "quote a cell holding a comma"))
                continue
            if not any(cells) or not "".join(cells).strip():
                continue
            padded: list[str | None] = [*cells, *[None] * (width + 1 - len(cells))]
            yield line, padded[picks[0]], padded[picks[1]], padded[picks[2]], padded[picks[3]]
    except csv.Error as error:
        problems.append(Problem(shown, start, 1, f"CSV error: {error}", "check the quotes on this row"))


def _good_header(header: list[str], shown: str, problems: list[Problem]) -> bool:
    if "value" not in header:
        problems.append(Problem(shown, 1, 1, "the header row has no 'value' column",
                                "start the file with a header row: value,aliases,zh,en"))
        return False
    for name in header:
        if name not in COLUMNS:
            guess = did_you_mean(name, list(COLUMNS))
            problems.append(Problem(shown, 1, 1, f"unknown column '{name}'",
                                    f"did you mean '{guess}'?" if guess else "columns: " + ", ".join(COLUMNS)))
    return not problems


def _json_rows(text: str, shown: str, problems: list[Problem]) -> Iterator[Row]:
    """The objects of a JSON list, each with the line it starts on (read one at a time for that)."""
    decoder = json.JSONDecoder()
    at, line = _skip(text, 0), 1
    if text[at:at + 1] != "[":
        problems.append(Problem(shown, 1, 1, "a JSON values file is a list of objects",
                                'write [{"value": "phone", "aliases": ["手机", "iPhone"]}, ...]'))
        return
    at, counted = _skip(text, at + 1), 0
    while at < len(text) and text[at] != "]":
        line += text.count("\n", counted, at)
        counted = at
        try:
            row, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            problems.append(Problem(shown, error.lineno, error.colno, f"JSON error: {error.msg}"))
            return
        if isinstance(row, dict):
            unknown = [k for k in row if k not in COLUMNS]
            if unknown:
                problems.append(Problem(shown, line, 1, f"unknown key '{unknown[0]}'", "keys: " + ", ".join(COLUMNS)))
            else:
                yield line, row.get("value"), row.get("aliases"), row.get("zh"), row.get("en")
        else:
            problems.append(Problem(shown, line, 1, "each item of the list is an object with a 'value'"))
        at = _skip(text, at)
        if text[at:at + 1] == ",":
            at = _skip(text, at + 1)
        elif text[at:at + 1] != "]":
            problems.append(Problem(shown, line + text.count("\n", counted, at), 1, "JSON error: expected ',' or ']'"))
            return


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
