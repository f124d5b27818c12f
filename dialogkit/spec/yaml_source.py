"""Reading YAML while remembering where every key and value was written.

pydantic reports errors as paths (``flows.report_issue.slots.0.ask``); a person needs
``support.yaml:12:9``. ruamel.yaml keeps the line and column of every node, so this module reads a
document once, turns it into plain Python data for pydantic, and keeps a ``SourceMap`` from each
path to its position. YAML 1.2 rules apply (``yes``/``no``/``on`` stay strings), which is what
authors of bilingual prompts and test files expect.

Problems with the text itself (an unreadable or binary file, syntax errors, duplicate keys, an
empty file, a top level that is not a mapping) become positioned ``Problem``s raised together as
one ``FlowError``. So do files built to exhaust the reader: a file over ``MAX_TEXT_CHARS``,
nesting deeper than ``MAX_DEPTH``, a list or mapping over ``MAX_ITEMS`` entries, or more than
``MAX_NODES`` values once aliases are expanded (a "billion laughs" bomb) is refused with a
problem saying which limit it passed, so reading stays linear in the size of the file.
Conversation test files need each value as written (``user: 0123`` is the text
"0123"), so they read the node tree itself: ``compose_yaml``, ``node_position``, ``node_value``.

A file is read by libyaml in C first (``yaml_fast``); ruamel's reading (``yaml_careful``) is
imported only when that reader refuses a file, a problem is to be positioned, or a node tree is
composed, so a process that loads clean bot files never holds ruamel.yaml.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.yaml_document import (
    BOT_FILE,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_NODES,
    MAX_TEXT_CHARS,
    FileKind,
    PathKey,
    Position,
    SourceMap,
    YamlDocument,
    YamlPath,
    check_size,
)
from dialogkit.spec.yaml_fast import Refused, fast_read

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

__all__ = [  # the document's names, re-exported: readers of YAML import them from here
    "BOT_FILE", "MAX_DEPTH", "MAX_ITEMS", "MAX_NODES", "MAX_TEXT_CHARS", "FileKind", "PathKey", "Position",
    "SourceMap", "YamlDocument", "YamlPath", "compose_yaml", "decode", "is_null", "lazy_document", "node_position",
    "node_tag", "node_value", "read_text_file", "read_yaml", "read_yaml_file",
]


def decode(raw: bytes, filename: str, kind: FileKind = BOT_FILE) -> str:
    """Bytes -> text, refusing binary data with a clear problem instead of a decode traceback."""
    if b"\x00" in raw:
        raise FlowError([Problem(filename, 1, 1, "this is not a text file (it contains binary data)",
                                 f"a {kind.noun} is UTF-8 YAML text")])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise FlowError([Problem(filename, line, 1, "this file is not valid UTF-8 text",
                                 "save the file as UTF-8")]) from None


def read_text_file(path: str | Path, kind: FileKind = BOT_FILE) -> str:
    """A file's text; an unreadable file is a ``FlowError`` too (never an OSError traceback)."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise FlowError([Problem(name, 1, 1, "no such file")]) from None
    except IsADirectoryError:
        raise FlowError([Problem(name, 1, 1, f"this is a directory, not a {kind.noun}")]) from None
    except OSError as error:
        raise FlowError([Problem(name, 1, 1, f"cannot read the file: {error.strerror or error}")]) from None
    return decode(raw, name, kind)


def _careful_read(text: str, filename: str, kind: FileKind) -> YamlDocument:
    from dialogkit.spec import yaml_careful

    return yaml_careful.careful_read(text, filename, kind)


def read_yaml(text: str, filename: str = "<string>", *, kind: FileKind = BOT_FILE) -> YamlDocument:
    """Parse ``text`` as a YAML 1.2 mapping; raise ``FlowError`` for anything a model cannot read.

    The fast reader goes first; what it refuses (and every position) is ruamel's to read."""
    check_size(text, filename, kind)
    try:
        data = fast_read(text, max_nodes=MAX_NODES, max_depth=MAX_DEPTH, max_items=MAX_ITEMS)
    except Refused:
        return _careful_read(text, filename, kind)
    if isinstance(data, dict):
        return lazy_document(data, text, filename, kind)
    return _careful_read(text, filename, kind)


def lazy_document(data: Any, text: str, filename: str, kind: FileKind = BOT_FILE) -> YamlDocument:
    """``data`` read from ``text`` already; positions are read by ruamel when first asked for."""
    return YamlDocument(data, lambda: _careful_read(text, filename, kind).positions, filename)


def read_yaml_file(path: str | Path, *, kind: FileKind = BOT_FILE) -> YamlDocument:
    """Read and parse a file (see ``read_text_file`` and ``read_yaml``)."""
    return read_yaml(read_text_file(path, kind), str(path), kind=kind)


# -- the node tree, for readers that need each value as written ---------------------------------

def compose_yaml(text: str, filename: str, *, kind: FileKind) -> Node:
    """The YAML 1.2 node tree of ``text``: every scalar as written, with its tag and position.

    Syntax errors and an empty document raise ``FlowError`` like ``read_yaml``; duplicate keys
    and the shape of the tree are the caller's to check.
    """
    from dialogkit.spec import yaml_careful

    return yaml_careful.compose(text, filename, kind=kind)


def node_position(node: Node) -> Position:
    """Where ``node`` starts, 1-based (line, col)."""
    mark = node.start_mark
    return mark.line + 1, mark.column + 1


def node_tag(node: Node) -> str:
    """The short name of a resolved tag: str, int, float, bool, null, map, seq."""
    return str(node.tag).rsplit(":", 1)[-1]


_SPECIAL_FLOATS = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}


def node_value(node: Node, keep_numbers: bool = False) -> Any:
    """The plain value of a node under YAML 1.2 core rules; ``keep_numbers`` keeps numbers as written.

    Kept as written, "0123" stays "0123" instead of becoming 123 (a test's expected order number).
    """
    from ruamel.yaml.nodes import MappingNode, SequenceNode  # loaded already: ``node`` is ruamel's

    if isinstance(node, MappingNode):
        return {str(k.value): node_value(v, keep_numbers) for k, v in node.value}
    if isinstance(node, SequenceNode):
        return [node_value(item, keep_numbers) for item in node.value]
    tag, text = node_tag(node), str(node.value)
    if tag == "null":
        return None
    if tag == "bool":
        return text.lower() == "true"
    if tag == "int" and not keep_numbers:
        return int(text, 0) if text.lower().startswith(("0x", "0o")) else int(text)
    if tag == "float" and not keep_numbers:
        return float(_SPECIAL_FLOATS.get(text.lower(), text))
    return text


def is_null(node: Node) -> bool:
    """True for a scalar that means null (``~``, ``null`` or nothing written)."""
    from ruamel.yaml.nodes import ScalarNode  # loaded already: ``node`` is ruamel's

    return isinstance(node, ScalarNode) and node_tag(node) == "null"
