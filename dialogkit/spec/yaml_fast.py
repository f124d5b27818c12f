"""The fast first read of a bot file: libyaml's C parser (PyYAML's ``CSafeLoader``) under YAML 1.2 rules.

ruamel.yaml reads a bot file with every position but in pure Python: a file listing 10,000
aliases took about 6 s. Positions are needed only to report a problem, so a bot file is first
read here, in C, into the same plain data ruamel's reading gives; ruamel reads it again only
when a problem is to be positioned (``yaml_source.SourceMap`` is then built on demand).

The two readers must agree, so this one refuses — and ruamel's reading decides — anything it
might read otherwise: a ``%YAML`` directive, a tag or a scalar outside the YAML 1.2 core schema
(timestamps, ``!!set``, ``!!binary``, ``=``), a merge key ``<<``, a duplicate key, a key that is a
list or a map, an anchor used twice for a list or a map, a lone surrogate, and a file past one of
``yaml_source``'s limits. A syntax error is refused too: ruamel words and positions it.
"""

from __future__ import annotations

import math
import re
from typing import Any

try:  # PyYAML built without libyaml has no CSafeLoader: every file then takes ruamel's path
    import yaml
    from yaml import CSafeLoader as _CLoader
except ImportError:  # pragma: no cover - the wheel we depend on ships libyaml
    _CLoader = None

_SURROGATE = re.compile("[\ud800-\udfff]")
_TAG = "tag:yaml.org,2002:"
_REFUSE = "tag:dialogkit,2026:refuse"

# The YAML 1.2 core schema as ruamel.yaml resolves it (ruamel/yaml/resolver.py, version (1, 2));
# what it resolves that a bot file never needs is marked to refuse.
_RESOLVERS: list[tuple[str, str, list[str]]] = [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("float", r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", list("-+0123456789.")),
    ("int", r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""", list("-+0123456789")),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("refuse", r"^(?:<<)$", ["<"]),
    ("refuse", r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+|$).*)$", list("0123456789")),
    ("refuse", r"^(?:=)$", ["="]),
    ("refuse", r"^(?:!|&|\*)$", list("!&*")),
]


class Refused(Exception):
    """Something this reader might read otherwise than ruamel: ruamel's reading decides."""


def _refuse(loader: Any, node: Any) -> Any:
    raise Refused(node.tag)


def _int(loader: Any, node: Any) -> int:
    text = str(node.value).replace("_", "")
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("+-")
    for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
        if text.startswith(prefix):
            return sign * int(text[2:], base)
    return sign * int(text)


def _float(loader: Any, node: Any) -> float:
    text = str(node.value).replace("_", "").lower()
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


def _str(loader: Any, node: Any) -> str:
    text = str(node.value)
    if _SURROGATE.search(text):
        raise Refused("surrogate")
    return text


if _CLoader is not None:

    class _Loader(_CLoader):  # type: ignore[misc]
        yaml_implicit_resolvers: dict[Any, Any] = {}   # noqa: RUF012 - PyYAML's class-level tables
        yaml_constructors: dict[Any, Any] = {}          # noqa: RUF012

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            if not isinstance(node, yaml.MappingNode):
                raise Refused("mapping")
            mapping: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, (list, dict)) or key in mapping or key == "<<":
                    raise Refused("key")
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

    for _name, _pattern, _first in _RESOLVERS:
        _Loader.add_implicit_resolver(_REFUSE if _name == "refuse" else _TAG + _name,
                                      re.compile(_pattern, re.X), _first)
    _Loader.add_constructor(_TAG + "null", lambda loader, node: None)
    _Loader.add_constructor(_TAG + "bool", lambda loader, node: str(node.value).lower() == "true")
    _Loader.add_constructor(_TAG + "int", _int)
    _Loader.add_constructor(_TAG + "float", _float)
    _Loader.add_constructor(_TAG + "str", _str)
    _Loader.add_constructor(_TAG + "seq", _CLoader.construct_yaml_seq)
    _Loader.add_constructor(_TAG + "map", _CLoader.construct_yaml_map)
    _Loader.add_constructor(None, _refuse)


def fast_read(text: str, *, max_nodes: int, max_depth: int, max_items: int) -> Any:
    """The plain data of ``text`` as ruamel's reading gives it; raises ``Refused`` when unsure,
    or when the data passes one of the limits (ruamel's reading then reports which)."""
    if _CLoader is None or "%YAML" in text:
        raise Refused("no fast reader")
    try:
        data = yaml.load(text, Loader=_Loader)
    except Refused:
        raise
    except Exception as error:   # syntax errors, and anything else libyaml or PyYAML raise
        raise Refused(type(error).__name__) from None
    _check_limits(data, max_nodes, max_depth, max_items)
    return data


def _check_limits(data: Any, max_nodes: int, max_depth: int, max_items: int) -> None:
    """The limits ruamel's reading enforces, on the data; a list or map read twice is refused."""
    seen: set[int] = set()
    nodes = 0
    pending: list[tuple[Any, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        nodes += 1
        if nodes > max_nodes or depth > max_depth:
            raise Refused("limit")
        if isinstance(value, dict):
            children: Any = value.values()
            nodes += len(value)              # ruamel counts each key as a value too
        elif isinstance(value, list):
            if len(value) > max_items:
                raise Refused("limit")
            children = value
        else:
            continue
        if id(value) in seen:
            raise Refused("alias")
        seen.add(id(value))
        pending.extend((child, depth + 1) for child in children)
