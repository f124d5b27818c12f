"""Words are data: a ratchet on the Chinese words still written in code.

The lexicon (``dialogkit/lexicon/<language>.yaml``) holds the words of a language; ``text/`` holds a
bot's phrases and ``spec/`` describes the bot file. Everywhere else a Chinese word list, a regular
expression alternating Chinese words, or a test for the language "zh" is language knowledge that
belongs in the lexicon. The figures below are what is left today: each may only go down.

Targets (issue 25): no Chinese word list and no Chinese word regex outside ``lexicon/`` and
``text/``, and the literal ``"zh"`` on at most 10 lines outside ``spec/``. When a figure drops,
lower its ceiling here to the new count, so it cannot creep back.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "dialogkit"
EXEMPT = ("lexicon", "text", "spec")

CEILINGS = {
    "word lists": 0,            # 58 before the lexicon, 22 before the dates, choices and slot words moved, 1
    "word regexes": 0,          # 57, 43, 2, 1
    "character classes": 0,     # 19, 11, 1
    "zh lines": 0,              # 118, 23, 19: code reading Han text asks the lexicon by script
}
"""The counts reached so far (see the module docstring for where they must end)."""

_HAN = re.compile(r"[\u4e00-\u9fff]")
_ALTERNATION = re.compile(r"[\u4e00-\u9fff][)?]*\||\|(?:\(\?:)?[\u4e00-\u9fff]")
_CLASS = re.compile(r"\[[^\]]*?(?:[\u4e00-\u9fff][^\]]*?){3,}\]")


def _modules() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        if path.relative_to(ROOT).parts[0] not in EXEMPT:
            yield path


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings or bare string statements (prose, not data)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}


def _han_strings(nodes: list[ast.expr | None]) -> int:
    return sum(1 for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and _HAN.search(n.value))


def _word_lists(tree: ast.AST) -> int:
    """List, tuple, set and dict literals holding two or more strings with Chinese in them."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            count += _han_strings(list(node.elts)) >= 2
        elif isinstance(node, ast.Dict):
            count += _han_strings(list(node.keys)) >= 2 or _han_strings(list(node.values)) >= 2
    return count


def _strings(tree: ast.AST) -> Iterator[str]:
    prose = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield node.value


def _zh_lines(source: str) -> int:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return len({t.start[0] for t in tokens if t.type == tokenize.STRING and t.string in ('"zh"', "'zh'")})


def module_counts(source: str) -> dict[str, int]:
    """The four figures of one module's source."""
    tree = ast.parse(source)
    strings = list(_strings(tree))
    return {"word lists": _word_lists(tree),
            "word regexes": sum(1 for s in strings if _ALTERNATION.search(s)),
            "character classes": sum(1 for s in strings if _CLASS.search(s)),
            "zh lines": _zh_lines(source)}


def per_module() -> dict[str, dict[str, int]]:
    return {str(p.relative_to(ROOT.parent)): module_counts(p.read_text(encoding="utf-8")) for p in _modules()}


def counts() -> dict[str, int]:
    found = dict.fromkeys(CEILINGS, 0)
    for figures in per_module().values():
        for kind, n in figures.items():
            found[kind] += n
    return found


def test_language_knowledge_in_code_only_shrinks() -> None:
    found = counts()
    grown = {k: (v, CEILINGS[k]) for k, v in found.items() if v > CEILINGS[k]}
    modules = per_module()
    assert not grown, "words moved back into code (count, ceiling): " + repr(grown) + "\n" + "\n".join(
        f"{kind}: {name} {figures[kind]}" for kind in grown for name, figures in modules.items() if figures[kind])


def test_the_scan_sees_each_kind() -> None:
    """The scan counts what it claims to: one of each in a made-up module."""
    source = ('WORDS = ("算了", "取消")\nPAT = r"改成|改为"\nNUM = "[一二三]"\n'
              'def f(lang):\n    """A docstring: "算了|取消" is prose."""\n    return lang == "zh"\n')
    assert module_counts(source) == dict.fromkeys(CEILINGS, 1)
