"""An alias claimed by two values of one type is an error naming both places; shared by two types,
a warning saying which type wins (issue 27 item 4)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dialogkit.spec.loader import check_bot_file, check_bot_text

FLOW = """\
flows:
  buy:
    trigger: {keywords: [买, buy]}
    slots:
      - {name: product, entity: product}
"""
LANGS = pytest.mark.parametrize("alias", ["手机", "Mobile"])


@LANGS
def test_an_alias_of_two_values_of_one_type_fails_with_both_lines(alias: str) -> None:
    text = textwrap.dedent(f"""\
        entities:
          product:
            values:
              phone: [电话, {alias}]
              tablet: [平板]
              laptop: [{alias.lower()}, 电脑]
        """) + FLOW
    checked = check_bot_text(text, "shop.yaml")
    [problem] = checked.problems
    assert (problem.file, problem.line) == ("shop.yaml", 6)
    assert problem.message == (f"alias '{alias.lower()}' of value 'laptop' is also an alias of value 'phone' of "
                               f"entity type 'product' (shop.yaml:4)")


@LANGS
def test_a_values_file_row_claiming_an_inline_alias_fails_at_its_row(tmp_path: Path, alias: str) -> None:
    (tmp_path / "products.csv").write_text(f"value,aliases\ntablet,平板\nlaptop,{alias}|电脑\n", encoding="utf-8")
    (tmp_path / "shop.yaml").write_text(
        f"entities:\n  product:\n    values_file: products.csv\n    values:\n      phone: [电话, {alias}]\n" + FLOW,
        encoding="utf-8")
    [problem] = check_bot_file(tmp_path / "shop.yaml").problems
    assert (Path(problem.file).name, problem.line) == ("products.csv", 3)
    assert f"is also an alias of value 'phone' of entity type 'product' ({tmp_path / 'shop.yaml'}:5)" in problem.message


def test_the_canonical_value_of_one_is_the_alias_of_another() -> None:
    text = "entities:\n  product:\n    values:\n      phone: [手机]\n      mobile: [phone]\n" + FLOW
    [problem] = check_bot_text(text, "shop.yaml").problems
    assert problem.line == 5 and "alias 'phone' of value 'mobile' is also an alias of value 'phone'" in problem.message


def test_one_value_naming_an_alias_twice_is_no_collision() -> None:
    text = "entities:\n  product:\n    values:\n      phone: [手机, Phone, phone]\n" + FLOW
    assert check_bot_text(text, "shop.yaml").problems == []


@LANGS
def test_an_alias_of_two_types_is_a_warning_naming_the_winner(alias: str) -> None:
    text = textwrap.dedent(f"""\
        entities:
          product:
            values:
              phone: [{alias}]
          gift:
            values:
              handset: [{alias}, 礼物]
        """) + FLOW
    checked = check_bot_text(text, "shop.yaml")
    assert checked.problems == []
    [warning] = checked.warnings()
    assert warning.line == 7
    assert warning.message == (
        f"warning: alias '{alias.lower()}' means value 'handset' of entity type 'gift' and value 'phone' of entity "
        f"type 'product' (shop.yaml:4); in running text 'product' wins, being declared first, while a slot of "
        f"type 'gift' that asks for its value reads it as 'handset'")


def test_many_values_shared_by_two_types_make_one_warning() -> None:
    values = "".join(f"      v{i}: [名{i}号]\n" for i in range(5))
    text = "entities:\n  product:\n    values:\n" + values + "  place:\n    values:\n" + values + FLOW
    [warning] = check_bot_text(text, "shop.yaml").warnings()
    assert warning.message.startswith("warning: 5 values of entity type 'place' share aliases with values of "
                                      "entity type 'product' ('v0', 'v1', 'v2', ...)")
