"""Reading YAML while remembering where every key and value was written.

pydantic reports errors as paths (``flows.report_issue.slots.0.ask``); a person needs
``support.yaml:12:9``. ruamel.yaml's round-trip loader keeps the line and column of every node, so
this module reads a document once, turns it into plain Python data for pydantic, and keeps a
``SourceMap`` from each path to its position. YAML 1.2 rules apply (``yes``/``no``/``on`` stay
strings), which is what authors of bilingual prompts and test files expect.

Problems with the text itself (binary data, syntax errors, duplicate keys, an empty file, a top
level that is not a mapping) become positioned ``Problem``s raised together as one ``FlowError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from dialogkit.errors import FlowError, Problem

PathKey = str | int
YamlPath = tuple[PathKey, ...]
Position = tuple[int, int]

_START: Position = (1, 1)


@dataclass
class SourceMap:
    """Path -> 1-based (line, col) of the key and of the value written at that path.

    Lookups of a path that is not in the document (a missing key, a union branch name pydantic
    adds) fall back to the nearest ancestor that is, so every problem gets *some* position.
    """

    keys: dict[YamlPath, Position] = field(default_factory=dict)
    values: dict[YamlPath, Position] = field(default_factory=dict)

    def key(self, path: YamlPath) -> Position:
        """Where the key of ``path`` is written (for a list item: where the item starts)."""
        return self._nearest(self.keys, tuple(path))

    def value(self, path: YamlPath) -> Position:
        """Where the value of ``path`` starts."""
        return self._nearest(self.values, tuple(path))

    def __contains__(self, path: object) -> bool:
        return isinstance(path, tuple) and path in self.values

    @staticmethod
    def _nearest(table: dict[YamlPath, Position], path: YamlPath) -> Position:
        while path:
            if path in table:
                return table[path]
            path = path[:-1]
        return table.get((), _START)


@dataclass
class YamlDocument:
    """Plain data (dicts, lists, str, int, float, bool, None) plus where each piece was written."""

    data: Any
    positions: SourceMap
    filename: str


def _plain(node: Any, path: YamlPath, positions: SourceMap) -> Any:
    """Turn ruamel's round-trip objects into plain Python while recording positions."""
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            child = (*path, key)
            key_line, key_col = node.lc.key(key)
            value_line, value_col = node.lc.value(key)
            positions.keys[child] = (key_line + 1, key_col + 1)
            positions.values[child] = (value_line + 1, value_col + 1)
            out[_scalar(key)] = _plain(value, child, positions)
        return out
    if isinstance(node, CommentedSeq):
        items: list[Any] = []
        for index, value in enumerate(node):
            child = (*path, index)
            line, col = node.lc.item(index)
            positions.keys[child] = positions.values[child] = (line + 1, col + 1)
            items.append(_plain(value, child, positions))
        return items
    return _scalar(node)


def _scalar(value: Any) -> Any:
    # ruamel returns str/int/float subclasses that carry formatting; pydantic and equality
    # comparisons in tests want the plain builtins.
    if isinstance(value, bool) or value is None:
        return value
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind(value)
    return value


def _new_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.version = (1, 2)  # type: ignore[assignment]
    yaml.allow_duplicate_keys = False
    return yaml


def _mark_problem(filename: str, error: MarkedYAMLError) -> Problem:
    mark = error.problem_mark or error.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else _START
    what = (error.problem or str(error)).strip()
    context = (error.context or "").strip()
    message = f"YAML syntax error: {what}" + (f" ({context})" if context else "")
    hint = "check indentation, quoting and the brackets around this spot"
    if "\\t" in what or "\t" in what:
        hint = "YAML indentation must use spaces, not tabs"
    elif "mapping values are not allowed" in what:
        hint = "a value containing ': ' must be quoted, e.g. ask: \"Note: ...\""
    return Problem(filename, line, col, message, hint)


def _duplicate_problems(text: str, filename: str) -> list[Problem]:
    """Every duplicate key in the document (ruamel stops at the first; authors want them all)."""
    problems: list[Problem] = []
    root = YAML(typ="rt").compose(text)

    def walk(node: Node | None) -> None:
        if isinstance(node, MappingNode):
            seen: dict[Any, Node] = {}
            for key_node, value_node in node.value:
                key = key_node.value
                if key in seen:
                    first = seen[key].start_mark
                    mark = key_node.start_mark
                    problems.append(Problem(
                        filename, mark.line + 1, mark.column + 1,
                        f"duplicate key '{key}' (first written at line {first.line + 1})",
                        "each key may appear once per mapping; merge the two or rename one",
                    ))
                else:
                    seen[key] = key_node
                walk(value_node)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                walk(item)

    walk(root)
    return problems


def decode(raw: bytes, filename: str) -> str:
    """Bytes -> text, refusing binary data with a clear problem instead of a decode traceback."""
    if b"\x00" in raw:
        raise FlowError([Problem(filename, 1, 1, "this is not a text file (it contains binary data)",
                                 "a bot file is UTF-8 YAML text")])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise FlowError([Problem(filename, line, 1, "this file is not valid UTF-8 text",
                                 "save the file as UTF-8")]) from None


def read_yaml(text: str, filename: str = "<string>", *, what: str = "bot file",
              required_key: str = "flows") -> YamlDocument:
    """Parse ``text`` as a YAML 1.2 mapping; raise ``FlowError`` for anything a model cannot read."""
    try:
        loaded = _new_yaml().load(text)
    except DuplicateKeyError:
        raise FlowError(_duplicate_problems(text, filename)) from None
    except MarkedYAMLError as error:
        raise FlowError([_mark_problem(filename, error)]) from None
    except YAMLError as error:
        raise FlowError([Problem(filename, 1, 1, f"YAML error: {error}")]) from None
    if loaded is None:
        raise FlowError([Problem(filename, 1, 1, f"the {what} is empty",
                                 f"a {what} is a mapping with at least a '{required_key}:' key")])
    if not isinstance(loaded, CommentedMap):
        found = "a list" if isinstance(loaded, CommentedSeq) else f"a single value ({loaded!r:.40})"
        raise FlowError([Problem(filename, 1, 1, f"the top level of the {what} must be a mapping, "
                                 f"found {found}", f"start with keys such as '{required_key}:'")])
    positions = SourceMap()
    positions.values[()] = positions.keys[()] = _START
    return YamlDocument(_plain(loaded, (), positions), positions, filename)


def read_yaml_file(path: str | Path, *, what: str = "bot file", required_key: str = "flows") -> YamlDocument:
    """Read and parse a file; an unreadable file is a ``FlowError`` too (never an OSError traceback)."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise FlowError([Problem(name, 1, 1, "no such file")]) from None
    except IsADirectoryError:
        raise FlowError([Problem(name, 1, 1, f"this is a directory, not a {what}")]) from None
    except OSError as error:
        raise FlowError([Problem(name, 1, 1, f"cannot read the file: {error.strerror or error}")]) from None
    return read_yaml(decode(raw, name), name, what=what, required_key=required_key)
