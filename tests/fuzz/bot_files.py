"""Hypothesis strategies for bot files: the shipped ones (flows/, examples/), mutated.

Mutations work on the text, so they reach what a model of the data never could: broken
indentation, stray brackets, tags (``!!omap``), anchors and aliases, retyped and odd keys, garbage,
and the structures built to exhaust a reader (deep nesting, long lists, alias bombs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*ROOT.glob("flows/*.yaml"), *ROOT.glob("examples/*/*.yaml")])

TOKENS = [
    ": ", "- ", "[", "]", "{", "}", ",", "? ", "|", ">", "#", "'", '"', "\t", "\n", "  ", "~", "&a ",
    "*a", "*undefined", "<<: *a", "!!omap ", "!!set ", "!!binary ", "!!python/object/apply:os.system ",
    "!custom ", "!!int ", "!!str ", "---\n", "...\n", "%YAML 1.1\n", "\x00", "\ud800", "\u202e", "\ufeff",
    "{zh: , en: }", "''", "null", "true", "0x1F", "1e999", ".nan", "@", "`", "%",
]
VALUES = [
    "[]", "{}", "~", "''", "123", "-1.5e9", "true", "!!omap [a: 1, b: 2]", "!!omap\n  - a", "!!set {a, b}",
    "!!binary aGk=", "*undefined", "&x [*x]", "[1, [2, [3]]]", "{a: {b: {c: d}}}", '"\\0\\ud800"', "'{slot}'",
    "'{0} %s ${x} {{x}}'", "!!float abc", "!!timestamp 2020-01-01", "? a\n: b", "'(a+)+$'", "'['",
]
KEYS = ["1", "~", "true", "[a, b]", "{a: 1}", "''", "<<", "? [a]\n  ", "flows", "bot", "0.5", "'\\u202e'", "'  '"]


def _position(draw: st.DrawFn, text: str) -> int:
    return draw(st.integers(0, len(text)))


def _delete(draw: st.DrawFn, text: str) -> str:
    at = _position(draw, text)
    return text[:at] + text[at + draw(st.integers(1, 120)):]


def _duplicate(draw: st.DrawFn, text: str) -> str:
    at = _position(draw, text)
    piece = text[at:at + draw(st.integers(1, 400))]
    to = _position(draw, text)
    return text[:to] + piece + text[to:]


def _insert(draw: st.DrawFn, text: str) -> str:
    token = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=12)))
    at = _position(draw, text)
    return text[:at] + token + text[at:]


def _line_op(draw: st.DrawFn, text: str, change: Callable[[str], str]) -> str:
    lines = text.split("\n")
    index = draw(st.integers(0, len(lines) - 1))
    lines[index] = change(lines[index])
    return "\n".join(lines)


def _swap_lines(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _reindent(draw: st.DrawFn, text: str) -> str:
    shift = draw(st.integers(-4, 4))
    return _line_op(draw, text, lambda line: " " * shift + line if shift > 0 else line[-shift:])


def _retype_value(draw: st.DrawFn, text: str) -> str:
    value = draw(st.sampled_from(VALUES))
    return _line_op(draw, text, lambda line: line.partition(": ")[0] + ": " + value if ": " in line else line)


def _retype_key(draw: st.DrawFn, text: str) -> str:
    key = draw(st.sampled_from(KEYS))

    def change(line: str) -> str:
        head, sep, rest = line.partition(":")
        return head[: len(head) - len(head.lstrip())] + key + sep + rest if sep else line
    return _line_op(draw, text, change)


def _exhausting(draw: st.DrawFn, text: str) -> str:
    """Replace a value with a structure built to exhaust a reader (kept small enough to fuzz fast)."""
    kind = draw(st.sampled_from(["deep", "long", "bomb", "wide"]))
    if kind == "deep":
        depth = draw(st.sampled_from([10, 63, 64, 65, 100]))
        value = "[" * depth + "]" * depth
    elif kind == "long":
        value = "[" + ", ".join(["x"] * draw(st.integers(0, 3000))) + "]"
    elif kind == "bomb":
        levels = draw(st.integers(2, 9))
        value = "\n".join([f"a{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)])
        return f"a0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n{value}\n" + text.replace(
            "flows:", f"x: *l{levels - 1}\nflows:", 1)
    else:
        value = "{" + ", ".join(f"k{i}: v" for i in range(draw(st.integers(0, 2000)))) + "}"
    return _line_op(draw, text, lambda line: line.partition(": ")[0] + ": " + value if ": " in line else line)


MUTATIONS = [_delete, _duplicate, _insert, _swap_lines, _reindent, _retype_value, _retype_key, _exhausting]


@st.composite
def mutated_bot_files(draw: st.DrawFn) -> tuple[Path, str]:
    """A shipped bot or test file and its text after one to four mutations."""
    path = draw(st.sampled_from(SHIPPED))
    text = path.read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 4))):
        text = draw(st.sampled_from(MUTATIONS))(draw, text)
    return path, text
