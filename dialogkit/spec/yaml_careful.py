"""ruamel.yaml's reading of a YAML file: every position, and every problem worded and positioned.

Split from ``yaml_source`` so that a process whose files all pass the fast reader (``yaml_fast``)
never imports ruamel.yaml (some 3 MB of a serving process): ``yaml_source`` imports this module
only when a file needs ruamel's reading, a position is asked for, or a node tree is composed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.constructor import DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.yaml_document import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_NODES,
    START,
    FileKind,
    LimitPassed,
    Position,
    SourceMap,
    YamlDocument,
    YamlPath,
    check_size,
    empty_file,
)

__all__ = ["careful_read", "compose"]

_SURROGATE = re.compile("[\ud800-\udfff]")


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
            raise LimitPassed(f"the file holds more than {MAX_NODES} values", self.parser.peek_event().start_mark)
        if isinstance(index, int) and index >= MAX_ITEMS:
            raise LimitPassed(f"a list has more than {MAX_ITEMS} items", self.parser.peek_event().start_mark)
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
            raise LimitPassed(f"the file holds more than {MAX_NODES} values once its aliases (*name) "
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
    return _text(node, positions.values.get(path, START))


def _text(value: Any, position: Position) -> Any:
    """A scalar as plain Python; a string holding a lone surrogate (``"\\ud800"`` in double
    quotes) is refused here, since no text encoding can carry it into logs, hashes or the store."""
    plain = _scalar(value)
    if isinstance(plain, str) and _SURROGATE.search(plain):
        raise LimitPassed("a value holds an unpaired surrogate (a \\ud800-\\udfff escape), which is no character",
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
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else START
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


@contextmanager
def _parsing(text: str, filename: str, kind: FileKind) -> Iterator[None]:
    """Turn what ruamel raises while parsing ``text`` into positioned problems."""
    try:
        yield
    except LimitPassed as error:
        raise FlowError([Problem(filename, *error.position, error.message, error.hint)]) from None
    except MaxDepthExceededError as error:
        mark = error.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else START
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


def careful_read(text: str, filename: str, kind: FileKind) -> YamlDocument:
    """ruamel's reading: every position, and every problem of the text worded and positioned."""
    with _parsing(text, filename, kind):
        loaded = _new_yaml().load(text)
    if loaded is None:
        raise empty_file(filename, kind)
    if not isinstance(loaded, CommentedMap):
        found = "a list" if isinstance(loaded, CommentedSeq) else f"a single value ({loaded!r:.40})"
        raise FlowError([Problem(filename, 1, 1, f"the top level of the {kind.noun} must be a mapping, "
                                 f"found {found}", kind.top_hint)])
    positions = SourceMap()
    positions.values[()] = positions.keys[()] = START
    with _parsing(text, filename, kind):   # keys and values built lazily can still fail here
        data = _plain(loaded, (), positions, _Budget())
    return YamlDocument(data, positions, filename)


def compose(text: str, filename: str, *, kind: FileKind) -> Node:
    """The YAML 1.2 node tree of ``text``: every scalar as written, with its tag and position.

    Syntax errors and an empty document raise ``FlowError`` like ``read_yaml``; duplicate keys
    and the shape of the tree are the caller's to check.
    """
    check_size(text, filename, kind)
    with _parsing(text, filename, kind):
        root = _new_yaml().compose(text)
    if root is None:
        raise empty_file(filename, kind)
    node: Node = root
    return node


