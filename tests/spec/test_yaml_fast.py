"""The fast reader (libyaml under YAML 1.2 rules) gives what ruamel's reading gives, or stands aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.spec import yaml_careful
from dialogkit.spec.yaml_fast import Refused, fast_read
from dialogkit.spec.yaml_source import BOT_FILE, MAX_DEPTH, MAX_ITEMS, MAX_NODES, read_yaml

ROOT = Path(__file__).resolve().parents[2]
LIMITS = {"max_nodes": MAX_NODES, "max_depth": MAX_DEPTH, "max_items": MAX_ITEMS}


def careful(text: str) -> object:
    return yaml_careful.careful_read(text, "x.yaml", BOT_FILE).data


def shipped_yaml() -> list[Path]:
    return sorted(p for folder in ("flows", "examples", "tests") for p in (ROOT / folder).rglob("*.yaml"))


def test_every_shipped_yaml_file_reads_the_same_either_way() -> None:
    read = 0
    for path in shipped_yaml():
        text = path.read_text(encoding="utf-8")
        try:
            fast = fast_read(text, **LIMITS)
        except Refused:
            continue
        read += 1
        assert repr(fast) == repr(careful(text)), path
    assert read > 50


@pytest.mark.parametrize("scalar", [
    "0123", "0o17", "0x1F", "1_000", "-7", "+3", "1.5", "1e3", ".5", "-.inf", ".NaN", "true", "False", "yes",
    "no", "on", "~", "null", "", "'0123'", '"\\u624b\\u673a"', "手机", "12:30", "1:30:00", "0b101", "3.",
])
def test_a_scalar_reads_as_ruamel_reads_it_under_yaml_1_2(scalar: str) -> None:
    text = f"a: {scalar}\nb: [{scalar}]\n"
    assert repr(fast_read(text, **LIMITS)) == repr(careful(text))


@pytest.mark.parametrize("text", [
    "%YAML 1.1\n---\na: yes\n", "a: 2026-12-24\n", "a: !!set {x: 1}\n", "a: !!binary aGk=\n", "a: 1\na: 2\n",
    "a: &x {b: 1}\nc: *x\n", "<<: {a: 1}\n", "? [a, b]\n: 1\n", 'a: "\\ud800"\n', "a: [b\n", "a: =\n",
])
def test_what_it_might_read_otherwise_is_left_to_ruamel(text: str) -> None:
    with pytest.raises(Refused):
        fast_read(text, **LIMITS)


def test_a_clean_file_is_read_by_ruamel_only_when_a_position_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = yaml_careful.careful_read
    monkeypatch.setattr(yaml_careful, "careful_read", lambda *a: calls.append("ruamel") or real(*a))
    document = read_yaml("flows:\n  f:\n    trigger: {keywords: [x]}\n", "bot.yaml")
    assert calls == [] and document.data == {"flows": {"f": {"trigger": {"keywords": ["x"]}}}}
    assert document.problem(("flows", "f", "trigger"), "m").line == 3 and calls == ["ruamel"]
