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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.constructor import DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.yaml_fast import Refused, fast_read

PathKey = str | int
YamlPath = tuple[PathKey, ...]
Position = tuple[int, int]

_START: Position = (1, 1)

MAX_TEXT_CHARS = 1_000_000   # the shipped bot files are under 10,000 characters
MAX_DEPTH = 64               # a bot file nests about 8 deep
MAX_ITEMS = 10_000           # entries in one list
MAX_NODES = 50_000           # values in the whole file, each alias counted as what it expands to
_LIMIT_HINT = "split the file up, or keep long data (value lists, examples) shorter"
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class FileKind:
    """The words the problems of one kind of YAML file use: its name and how it should start."""

    noun: str
    empty_hint: str
    top_hint: str
    syntax_error: str = "YAML syntax error"


BOT_FILE = FileKind("bot file", "a bot file is a mapping with at least a 'flows:' key",
                    "start with keys such as 'flows:'")


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
    """Plain data (dicts, lists, str, int, float, bool, None) plus where each piece was written.

    ``located`` is the ``SourceMap``, or how to build it when first needed: a file read by the
    fast reader (``yaml_fast``) is read again by ruamel only when a problem is to be positioned.
    """

    data: Any
    located: SourceMap | Callable[[], SourceMap]
    filename: str

    @property
    def positions(self) -> SourceMap:
        if not isinstance(self.located, SourceMap):
            self.located = self.located()
        return self.located

    def problem(self, path: YamlPath, message: str, hint: str = "", *, at_key: bool = False) -> Problem:
        """A problem at the value written at ``path`` (or at its key, with ``at_key``)."""
        line, col = self.positions.key(path) if at_key else self.positions.value(path)
        return Problem(self.filename, line, col, message, hint)


class _LimitPassed(Exception):
    """A file passed one of the limits above, at ``mark`` (a ruamel mark or None)."""

    def __init__(self, message: str, mark: Any = None, *, hint: str = _LIMIT_HINT,
                 position: Position | None = None) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint
        self.position: Position = position or ((mark.line + 1, mark.column + 1) if mark is not None else _START)


class _BoundedComposer(Composer):
    """ruamel's composer, stopped as soon as a list or the whole file passes its limit.

    Checking while composing, not after, is what keeps a 300,000-item list from costing a
    minute of parsing before it is refused.
    """

    def compose_document(self) -> Any:
        self.dialogkit_nodes = 0
        self.warn_double_anchors = False   # legal YAML (the later anchor wins); not worth a warning
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.dialogkit_nodes += 1
        if self.dialogkit_nodes > MAX_NODES:
            raise _LimitPassed(f"the file holds more than {MAX_NODES} values", self.parser.peek_event().start_mark)
        if isinstance(index, int) and index >= MAX_ITEMS:
            raise _LimitPassed(f"a list has more than {MAX_ITEMS} items", self.parser.peek_event().start_mark)
        return super().compose_node(parent, index)


class _BoundedConstructor(RoundTripConstructor):
    """ruamel's constructor, reporting a duplicate key without writing out its value: ruamel's own
    message shows both values, and the value of a key beside an alias bomb is a billion items."""

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
        if key in mapping:
            raise DuplicateKeyError("while constructing a mapping", node.start_mark, "found a duplicate key",
                                    key_node.start_mark)
        return True

    def check_set_key(self, node: Any, key_node: Any, setting: Any, key: Any) -> None:
        if key in setting:
            raise DuplicateKeyError("while constructing a set", node.start_mark, "found a duplicate key",
                                    key_node.start_mark)


class _Budget:
    """How many values ``_plain`` may still produce: each use of an alias counts its values again."""

    def __init__(self) -> None:
        self.left = MAX_NODES

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _LimitPassed(f"the file holds more than {MAX_NODES} values once its aliases (*name) "
                               f"are expanded")


def _plain(node: Any, path: YamlPath, positions: SourceMap, budget: _Budget) -> Any:
    """Turn ruamel's round-trip objects into plain Python while recording positions."""
    budget.spend()
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            child = (*path, key)
            key_line, key_col = node.lc.key(key)
            value_line, value_col = node.lc.value(key)
            positions.keys[child] = (key_line + 1, key_col + 1)
            positions.values[child] = (value_line + 1, value_col + 1)
            out[_text(key, positions.keys[child])] = _plain(value, child, positions, budget)
        return out
    if isinstance(node, CommentedSeq):
        items: list[Any] = []
        for index, value in enumerate(node):
            child = (*path, index)
            line, col = node.lc.item(index)
            positions.keys[child] = positions.values[child] = (line + 1, col + 1)
            items.append(_plain(value, child, positions, budget))
        return items
    return _text(node, positions.values.get(path, _START))


def _text(value: Any, position: Position) -> Any:
    """A scalar as plain Python; a string holding a lone surrogate (``"\\ud800"`` in double
    quotes) is refused here, since no text encoding can carry it into logs, hashes or the store."""
    plain = _scalar(value)
    if isinstance(plain, str) and _SURROGATE.search(plain):
        raise _LimitPassed("a value holds an unpaired surrogate (a \\ud800-\\udfff escape), which is no character",
                           hint="write the character itself, or a \\U0001xxxx escape for one outside the BMP",
                           position=position)
    return plain


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
    yaml.version = (1, 2)
    yaml.allow_duplicate_keys = False
    yaml.max_depth = MAX_DEPTH
    yaml.Composer = _BoundedComposer
    yaml.Constructor = _BoundedConstructor
    return yaml


def _mark_problem(filename: str, error: MarkedYAMLError, kind: FileKind) -> Problem:
    mark = error.problem_mark or error.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else _START
    what = (error.problem or str(error)).strip()
    context = (error.context or "").strip()
    message = f"{kind.syntax_error}: {what}" + (f" ({context})" if context else "")
    hint = "check indentation, quoting and the brackets around this spot"
    if "\\t" in what or "\t" in what:
        hint = "YAML indentation must use spaces, not tabs"
    elif "mapping values are not allowed" in what:
        hint = "a value containing ': ' must be quoted, e.g. ask: \"Note: ...\""
    elif "while parsing a flow" in context:
        hint = ("inside {...} or [...], a value holding ',', ':', brackets or braces must be quoted, "
                "e.g. {bot: '/order [0-9]{5}/'}")
    return Problem(filename, line, col, message, hint)


def _duplicate_problems(text: str, filename: str) -> list[Problem]:
    """Every duplicate key in the document (ruamel stops at the first; authors want them all).

    Each node is read once: an alias shares its anchor's node, so following it again would make
    an alias bomb cost exponential time.
    """
    problems: list[Problem] = []
    pending: list[Node | None] = [_new_yaml().compose(text)]
    done: set[int] = set()
    while pending:
        node = pending.pop()
        if node is None or id(node) in done:
            continue
        done.add(id(node))
        if isinstance(node, MappingNode):
            problems.extend(_duplicates_in(node, filename))
            pending.extend(value for _, value in reversed(node.value))
        elif isinstance(node, SequenceNode):
            pending.extend(reversed(node.value))
    return sorted(problems, key=lambda p: (p.line, p.col))


def _duplicates_in(node: MappingNode, filename: str) -> list[Problem]:
    seen: dict[Any, Node] = {}
    problems: list[Problem] = []
    for key_node, _ in node.value:
        key = key_node.value if isinstance(key_node, ScalarNode) else id(key_node)  # a list or map key
        if key not in seen:
            seen[key] = key_node
            continue
        first, mark = seen[key].start_mark, key_node.start_mark
        problems.append(Problem(
            filename, mark.line + 1, mark.column + 1,
            f"duplicate key '{key}' (first written at line {first.line + 1})",
            "each key may appear once per mapping; merge the two or rename one",
        ))
    return problems


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


@contextmanager
def _parsing(text: str, filename: str, kind: FileKind) -> Iterator[None]:
    """Turn what ruamel raises while parsing ``text`` into positioned problems."""
    try:
        yield
    except _LimitPassed as error:
        raise FlowError([Problem(filename, *error.position, error.message, error.hint)]) from None
    except MaxDepthExceededError as error:
        mark = error.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else _START
        raise FlowError([Problem(filename, line, col, f"the {kind.noun} nests deeper than {MAX_DEPTH} levels",
                                 "a bot file needs far fewer; look for unclosed [ or { brackets")]) from None
    except DuplicateKeyError as error:
        raise FlowError(_duplicate_problems(text, filename) or [_mark_problem(filename, error, kind)]) from None
    except MarkedYAMLError as error:
        raise FlowError([_mark_problem(filename, error, kind)]) from None
    except YAMLError as error:
        raise FlowError([Problem(filename, 1, 1, f"YAML error: {error}")]) from None
    except RecursionError:
        raise FlowError([Problem(filename, 1, 1, f"the {kind.noun} nests too deeply to read",
                                 f"keep nesting under {MAX_DEPTH} levels")]) from None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as error:
        # ruamel's constructors assume well-formed tagged values (``!!omap``, ``!!set``) and
        # fail on others with Python errors: the file is still the author's to fix.
        raise FlowError([Problem(filename, 1, 1, f"YAML error: cannot read a tagged or unusual value ({error})",
                                 "remove tags such as !!omap, !!set or !!binary; use plain lists and maps")]) from None


def _check_size(text: str, filename: str, kind: FileKind) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise FlowError([Problem(filename, 1, 1, f"the {kind.noun} has {len(text)} characters, more than the "
                                 f"{MAX_TEXT_CHARS} allowed", "split it up or move long data out of it")])


def _empty(filename: str, kind: FileKind) -> FlowError:
    return FlowError([Problem(filename, 1, 1, f"the {kind.noun} is empty", kind.empty_hint)])


def read_yaml(text: str, filename: str = "<string>", *, kind: FileKind = BOT_FILE) -> YamlDocument:
    """Parse ``text`` as a YAML 1.2 mapping; raise ``FlowError`` for anything a model cannot read.

    The fast reader goes first; what it refuses (and every position) is ruamel's to read."""
    _check_size(text, filename, kind)
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


def _careful_read(text: str, filename: str, kind: FileKind) -> YamlDocument:
    """ruamel's reading: every position, and every problem of the text worded and positioned."""
    with _parsing(text, filename, kind):
        loaded = _new_yaml().load(text)
    if loaded is None:
        raise _empty(filename, kind)
    if not isinstance(loaded, CommentedMap):
        found = "a list" if isinstance(loaded, CommentedSeq) else f"a single value ({loaded!r:.40})"
        raise FlowError([Problem(filename, 1, 1, f"the top level of the {kind.noun} must be a mapping, "
                                 f"found {found}", kind.top_hint)])
    positions = SourceMap()
    positions.values[()] = positions.keys[()] = _START
    with _parsing(text, filename, kind):   # keys and values built lazily can still fail here
        data = _plain(loaded, (), positions, _Budget())
    return YamlDocument(data, positions, filename)


def read_yaml_file(path: str | Path, *, kind: FileKind = BOT_FILE) -> YamlDocument:
    """Read and parse a file (see ``read_text_file`` and ``read_yaml``)."""
    return read_yaml(read_text_file(path, kind), str(path), kind=kind)


# -- the node tree, for readers that need each value as written ---------------------------------

def compose_yaml(text: str, filename: str, *, kind: FileKind) -> Node:
    """The YAML 1.2 node tree of ``text``: every scalar as written, with its tag and position.

    Syntax errors and an empty document raise ``FlowError`` like ``read_yaml``; duplicate keys
    and the shape of the tree are the caller's to check.
    """
    _check_size(text, filename, kind)
    with _parsing(text, filename, kind):
        root = _new_yaml().compose(text)
    if root is None:
        raise _empty(filename, kind)
    node: Node = root
    return node


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
    return isinstance(node, ScalarNode) and node_tag(node) == "null"
