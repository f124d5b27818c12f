"""The key reference of docs/bot-file.md, rendered from the bot file's JSON Schema.

The schema's descriptions, defaults and examples are written once, on the pydantic models in
``spec.schema``; editors read them through ``dialogkit schema`` and readers through the tables
rendered here, so the two cannot disagree. The rendered block sits between two markers in the
hand-written page, and ``python -m dialogkit.spec.reference docs/bot-file.md`` rewrites it in
place (``--check`` only reports whether it is current, for CI).

One section per model, in the order a bot file nests them, each named by its path in the file
(``flows.<flow>.slots[]``). The prompt type (a string or a ``{zh:, en:}`` map) is used in many
places, so it gets one section of its own at the end and every use links to it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from dialogkit.spec.schema import LocalizedText, json_schema

__all__ = ["END", "START", "main", "render", "rewrite"]

START = "<!-- reference:start -->"
END = "<!-- reference:end -->"
NOTICE = ("<!-- generated from dialogkit/spec/schema.py by `python -m dialogkit.spec.reference docs/bot-file.md`; "
          "edit the schema, not this block -->")

PROMPT_DEF = LocalizedText.__name__
PROMPT_PATH = "prompt"
ROOT_PATH = "top level"

Schema = dict[str, Any]


# --------------------------------------------------------------------------- walking the schema

def _ref_name(node: Schema) -> str | None:
    ref = node.get("$ref")
    return str(ref).rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _singular(key: str) -> str:
    """``flows`` -> ``flow``, ``entities`` -> ``entity``: the placeholder for a map's keys."""
    if key.endswith("ies"):
        return key[:-3] + "y"
    return key[:-1] if key.endswith("s") else key


def _children(node: Schema, path: str) -> Iterator[tuple[str, str]]:
    """(model name, path) of every model ``node`` leads to: directly, in a list, or in a map."""
    name = _ref_name(node)
    if name is not None:
        yield name, path
    for alternative in node.get("anyOf", []):
        yield from _children(alternative, path)
    items = node.get("items")
    if isinstance(items, dict):
        yield from _children(items, path + "[]")
    values = node.get("additionalProperties")
    if isinstance(values, dict):
        key = path.rsplit(".", 1)[-1].rstrip("[]")
        yield from _children(values, f"{path}.<{_singular(key)}>")


def _sections(schema: Schema) -> list[tuple[str, Schema]]:
    """(path, model schema) for every model, depth first in property order; prompts last."""
    defs: dict[str, Schema] = schema.get("$defs", {})
    out: list[tuple[str, Schema]] = []
    seen: set[str] = set()
    uses_prompt = False

    def visit(path: str, model: Schema) -> None:
        nonlocal uses_prompt
        out.append((path, model))
        for key, prop in model.get("properties", {}).items():
            child_path = key if path == ROOT_PATH else f"{path}.{key}"
            for name, where in _children(prop, child_path):
                if name == PROMPT_DEF:
                    uses_prompt = True
                elif name not in seen:
                    seen.add(name)
                    visit(where, defs[name])

    visit(ROOT_PATH, schema)
    if uses_prompt:
        out.append((PROMPT_PATH, defs[PROMPT_DEF]))
    return out


def _paths(schema: Schema) -> dict[str, str]:
    """Model name -> the path of its section, for links."""
    defs: dict[str, Schema] = schema.get("$defs", {})
    by_id = {id(model): name for name, model in defs.items()}
    return {by_id[id(model)]: path for path, model in _sections(schema) if id(model) in by_id}


# --------------------------------------------------------------------------- rendering values

_PLAIN_WORDS = re.compile(r"(?i)^(?:true|false|null|yes|no|on|off|~|[-+]?[\d.]+(?:e[-+]?\d+)?)$")
_UNSAFE = re.compile(r"[{}\[\],&*!|>'\"%@`]|:\s|:$| #|^[\s#?:-]|\s$")


def inline_yaml(value: Any) -> str:
    """A value as a bot file would write it inline: ``[a, b]``, ``{zh: 你好, en: hello}``, ``'^\\d+$'``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(inline_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {inline_yaml(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if text and not _UNSAFE.search(text) and not _PLAIN_WORDS.match(text):
        return text
    if "'" in text and '"' not in text and "\\" not in text:
        return '"' + text + '"'          # "I'll ..." reads better than 'I''ll ...'
    return "'" + text.replace("'", "''") + "'"


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _code(value: Any) -> str:
    return "`" + inline_yaml(value) + "`"


def anchor(path: str) -> str:
    """The HTML id of a section: ``flows.<flow>.slots[]`` -> ``key-flows-flow-slots``."""
    return "key-" + "-".join(re.findall(r"[a-z0-9_]+", path.lower()))


# --------------------------------------------------------------------------- rendering types

def _link(name: str, paths: dict[str, str]) -> str:
    path = paths[name]
    shown = path if path == PROMPT_PATH else f"`{path}`"
    return f"[{shown}](#{anchor(path)})"


def type_text(node: Schema, paths: dict[str, str]) -> str:
    """The type of a property in words: ``list of [`flows.<flow>.slots[]`](#...)``, ``integer ≥ 0``."""
    name = _ref_name(node)
    if name is not None:
        return _link(name, paths)
    if "anyOf" in node:
        kinds = [k for k in node["anyOf"] if k.get("type") != "null"]
        if {_ref_name(k) for k in kinds} & {PROMPT_DEF} and any(k.get("type") == "string" for k in kinds):
            kinds = [k for k in kinds if k.get("type") != "string"]
        return " or ".join(dict.fromkeys(type_text(k, paths) for k in kinds))
    if "enum" in node:
        return "one of " + ", ".join(_code(v) for v in node["enum"])
    kind = node.get("type", "any")
    if kind == "array":
        return "list of " + type_text(node.get("items", {}), paths)
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        keys = node.get("propertyNames", {}).get("enum")
        key_text = "name" if keys is None else "one of " + ", ".join(_code(k) for k in keys)
        return f"map of {key_text} → " + type_text(node["additionalProperties"], paths)
    return str(kind) + _bounds(node)


def _bounds(node: Schema) -> str:
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in node:
            return f" {sign} {node[key]}"
    return ""


# --------------------------------------------------------------------------- the tables

def _default_text(key: str, prop: Schema, required: Sequence[str]) -> str:
    if key in required:
        return "**required**"
    if "default" not in prop or prop["default"] is None:
        return "—"
    return _code(prop["default"])


def _row(key: str, prop: Schema, required: Sequence[str], paths: dict[str, str]) -> str:
    description = str(prop.get("description", ""))
    examples = prop.get("examples") or []
    if examples:
        description += " Example: " + _code(examples[0])
    cells = [f"`{key}`", type_text(prop, paths), _default_text(key, prop, required), description]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _section(path: str, model: Schema, paths: dict[str, str]) -> list[str]:
    title = "Top level" if path == ROOT_PATH else ("Prompts" if path == PROMPT_PATH else f"`{path}`")
    lines = [f'<a id="{anchor(path)}"></a>', "", f"### {title}", ""]
    if model.get("description"):
        lines += [" ".join(str(model["description"]).split()), ""]
    lines += ["| Key | Type | Default | Description |", "|---|---|---|---|"]
    required = model.get("required", [])
    lines += [_row(key, prop, required, paths) for key, prop in model.get("properties", {}).items()]
    return [*lines, ""]


def render(schema: Schema | None = None) -> str:
    """The key reference as markdown: one section and table per model of the bot file."""
    schema = schema if schema is not None else json_schema()
    paths = _paths(schema)
    paths[PROMPT_DEF] = PROMPT_PATH
    lines = [NOTICE, ""]
    for path, model in _sections(schema):
        lines += _section(path, model, paths)
    return "\n".join(lines).rstrip("\n") + "\n"


def rewrite(text: str, rendered: str | None = None) -> str:
    """``text`` with the block between ``START`` and ``END`` replaced by the rendering."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page needs the markers {START} and {END}, in that order")
    block = rendered if rendered is not None else render()
    return text[: start + len(START)] + "\n" + block + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dialogkit.spec.reference [--check] FILE...``: rewrite (or check) each page."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    files = [Path(a) for a in args if a != "--check"]
    if not files:
        print("usage: python -m dialogkit.spec.reference [--check] docs/bot-file.md", file=sys.stderr)
        return 2
    rendered, stale = render(), []
    for path in files:
        text = path.read_text(encoding="utf-8")
        updated = rewrite(text, rendered)
        if updated != text:
            stale.append(path)
            if not check:
                path.write_text(updated, encoding="utf-8")
    for path in stale:
        print(f"{path}: {'out of date' if check else 'rewritten'}", file=sys.stderr)
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
