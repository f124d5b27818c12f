"""A YAML document read for a model: plain data, where each piece was written, and the limits of reading.

Shared by the two readers of ``yaml_source``: the fast C one (``yaml_fast``) and ruamel's careful
one (``yaml_careful``), which only a file that needs it, or a problem to position, imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dialogkit.errors import FlowError, Problem

__all__ = ["BOT_FILE", "MAX_DEPTH", "MAX_ITEMS", "MAX_NODES", "MAX_TEXT_CHARS", "START", "FileKind", "LimitPassed",
           "PathKey", "Position", "SourceMap", "YamlDocument", "YamlPath", "check_size", "empty_file"]

PathKey = str | int
YamlPath = tuple[PathKey, ...]
Position = tuple[int, int]

START: Position = (1, 1)

MAX_TEXT_CHARS = 1_000_000   # the shipped bot files are under 10,000 characters
MAX_DEPTH = 64               # a bot file nests about 8 deep
MAX_ITEMS = 10_000           # entries in one list
MAX_NODES = 50_000           # values in the whole file, each alias counted as what it expands to
_LIMIT_HINT = "split the file up, or keep long data (value lists, examples) shorter"


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
        return table.get((), START)


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


class LimitPassed(Exception):
    """A file passed one of the limits above, at ``mark`` (a ruamel mark or None)."""

    def __init__(self, message: str, mark: Any = None, *, hint: str = _LIMIT_HINT,
                 position: Position | None = None) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint
        self.position: Position = position or ((mark.line + 1, mark.column + 1) if mark is not None else START)


def check_size(text: str, filename: str, kind: FileKind) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise FlowError([Problem(filename, 1, 1, f"the {kind.noun} has {len(text)} characters, more than the "
                                 f"{MAX_TEXT_CHARS} allowed", "split it up or move long data out of it")])


def empty_file(filename: str, kind: FileKind) -> FlowError:
    return FlowError([Problem(filename, 1, 1, f"the {kind.noun} is empty", kind.empty_hint)])
