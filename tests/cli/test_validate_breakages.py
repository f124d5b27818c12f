"""`dialogkit validate` catches the breakages new users hit (issue 28): an empty list of questions
and an alias claimed by two values of one type are errors at their line; two types reading the
same words are a warning, which fails the run only with --strict."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from dialogkit.cli.validate import validate_command

FLOW = """\
flows:
  order:
    description: 点饮品 / order a drink
    trigger: {examples: [来杯拿铁, a latte please], keywords: [来杯, order]}
    slots:
      - name: drink
        entity: drink
        ask: %s
    execute: {say: {zh: 好的。, en: OK.}}
"""


def _run(tmp_path: Path, text: str, *, strict: bool = False) -> tuple[int, str]:
    path = tmp_path / "cafe.yaml"
    path.write_text(text, encoding="utf-8")
    console = Console(record=True, width=200, force_terminal=False, color_system=None)
    code = validate_command([path], console=console, strict=strict)
    return code, console.export_text()


def test_an_empty_list_of_questions_fails_at_its_line(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "entities:\n  drink: {values: {latte: [拿铁, latte]}}\n" + FLOW % "[]")
    assert code == 1
    assert "cafe.yaml:10:14: slot 'drink' has an empty list of questions (ask: [])" in out
    assert "hint: write its question" in out


@pytest.mark.parametrize("alias", ["拿铁", "Latte"])
def test_an_alias_claimed_by_two_values_fails_at_its_line(tmp_path: Path, alias: str) -> None:
    entities = f"entities:\n  drink:\n    values:\n      latte: [{alias}]\n      flat_white: [{alias.lower()}]\n"
    code, out = _run(tmp_path, entities + FLOW % "{zh: 喝什么？, en: What drink?}")
    assert code == 1
    assert f"cafe.yaml:5:7: alias '{alias.lower()}' of value 'flat_white' is also an alias of value 'latte'" in out


@pytest.mark.parametrize(("inner", "outer"), [("拿铁", "燕麦拿铁"), ("latte", "oat latte")])
def test_an_alias_inside_another_types_alias_warns_and_fails_only_when_strict(
        tmp_path: Path, inner: str, outer: str) -> None:
    entities = f"entities:\n  drink: {{values: {{latte: [{inner}]}}}}\n  milk: {{values: {{oat: [{outer}]}}}}\n"
    text = entities + FLOW % "{zh: 喝什么？, en: What drink?}"
    code, out = _run(tmp_path, text)
    assert code == 0 and f"warning: alias '{inner}' of entity type 'drink' is written inside alias '{outer}'" in out
    assert _run(tmp_path, text, strict=True)[0] == 1
