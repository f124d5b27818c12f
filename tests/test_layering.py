"""Dependencies point one way: every import inside dialogkit goes to a lower layer or stays in its
own package, and no modules import each other in a circle.

The layers, lowest first, are drawn in README.md ("Architecture"). A module may import a module of
a lower layer, or of its own package; never one of a higher layer or of another package on its own
layer. Every import counts: module level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "dialogkit"

# Package (or top-level module) -> layer. Lower numbers lie below higher ones.
LAYERS: dict[str, int] = {
    "errors": 0,
    "strings": 1,
    "model": 1,
    "lexicon": 1,
    "logging": 2,
    "tracing": 2,
    "spec": 3,
    "actions": 4,
    "text": 4,
    "understanding": 5,
    "memory": 5,
    "context": 5,
    "store": 5,
    "llm": 5,
    "engine": 6,
    "bot": 7,
    "service": 8,
    "testing": 8,
    "simulation": 8,
    "cli": 9,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def imports_of(name: str) -> Iterator[tuple[str, int]]:
    """(imported dialogkit module, line) for every import statement in module ``name``."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dialogkit"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("dialogkit"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in MODULES else base), node.lineno


def layer_of(module: str) -> tuple[str, int | None]:
    parts = module.split(".")
    if len(parts) == 1:
        return "dialogkit", None          # the front door: nothing inside imports it
    top = parts[1]
    return top, LAYERS.get(top)


def edges() -> Iterator[tuple[str, str, int]]:
    for name in sorted(MODULES):
        for target, line in sorted(set(imports_of(name))):
            if target != name:
                yield name, target, line


def upward_edges() -> list[str]:
    found = []
    for source, target, line in edges():
        src_pkg, src_layer = layer_of(source)
        dst_pkg, dst_layer = layer_of(target)
        if src_pkg == "dialogkit" or src_pkg == dst_pkg:
            continue
        where = f"{MODULES[source].relative_to(ROOT.parent)}:{line}: {source} -> {target}"
        if dst_layer is None:
            found.append(f"{where} (imports the package root, which only users may import)")
        elif src_layer is None:
            found.append(f"{where} ({src_pkg} has no layer: add it to LAYERS)")
        elif dst_layer >= src_layer:
            kind = "sideways" if dst_layer == src_layer else "upward"
            found.append(f"{where} ({kind}: {src_pkg} is layer {src_layer}, {dst_pkg} is layer {dst_layer})")
    return found


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for source, target, _ in edges():
        if target in graph:
            graph[source].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def test_every_package_has_a_layer() -> None:
    tops = {layer_of(name)[0] for name in MODULES} - {"dialogkit"}
    assert sorted(tops - set(LAYERS)) == []


def test_no_import_points_up_or_sideways() -> None:
    bad = upward_edges()
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("module", ["dialogkit.model.session", "dialogkit.model.reply", "dialogkit.errors"])
def test_leaves_import_nothing_of_dialogkit(module: str) -> None:
    assert [t for t, _ in imports_of(module)] == []
