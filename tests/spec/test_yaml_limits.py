"""Files built to exhaust the reader are refused with a FlowError, quickly (issue 15, item 13)."""

from __future__ import annotations

import pytest

from dialogkit.actions.loading import parse_bot_text
from dialogkit.errors import FlowError
from dialogkit.spec.yaml_source import MAX_DEPTH, MAX_ITEMS, MAX_NODES, MAX_TEXT_CHARS

FLOW = "flows:\n  f:\n    trigger: {keywords: [x]}\n"


def _problem(text: str) -> str:
    with pytest.raises(FlowError) as caught:
        parse_bot_text(text)
    return "\n".join(str(p) for p in caught.value.problems)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 50_000])
def test_deep_nesting_is_refused_not_a_recursion_error(depth: int) -> None:
    text = FLOW + "x: " + "[" * depth + "]" * depth + "\n"
    assert f"nests deeper than {MAX_DEPTH} levels" in _problem(text)


def test_a_mapping_nested_deeply_is_refused() -> None:
    assert "nests deeper" in _problem(FLOW + "x: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n")


@pytest.mark.parametrize("size", [MAX_ITEMS + 1, 300_000])
def test_a_long_list_is_refused_while_parsing(size: int) -> None:
    text = FLOW + "x: [" + ",".join(["k"] * size) + "]\n"
    assert f"a list has more than {MAX_ITEMS} items" in _problem(text[:MAX_TEXT_CHARS])


def test_a_billion_laughs_bomb_is_refused() -> None:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    assert f"more than {MAX_NODES} values once its aliases" in _problem("\n".join(lines) + "\n" + FLOW)


def test_a_file_over_the_size_limit_is_refused() -> None:
    assert "characters, more than" in _problem(FLOW + "# " + "x" * MAX_TEXT_CHARS + "\n")


@pytest.mark.parametrize("tagged", ["flows: !!omap\n  - a: 1\n", "flows: !!omap\n  - a\n", "x: !!set {a: 1}\n" + FLOW])
def test_unusual_tags_are_a_flow_error(tagged: str) -> None:
    with pytest.raises(FlowError):
        parse_bot_text(tagged)


def test_a_repeated_anchor_is_no_warning() -> None:
    with pytest.raises(FlowError, match="unknown key 'a'"):
        parse_bot_text("a: &x 1\nb: &x 2\n" + FLOW)


@pytest.mark.parametrize("key", ["A clinic front desk", "Main", "1", "~", "[a, b]"])
def test_odd_top_level_keys_are_problems_not_crashes(key: str) -> None:
    with pytest.raises(FlowError):
        parse_bot_text(f"{key}: some text\n" + FLOW)


def test_a_flow_named_with_a_capital_is_checked_like_any_other() -> None:
    with pytest.raises(FlowError, match=r"flows\.Main"):
        parse_bot_text("flows:\n  Main:\n    trigger: {keywords: 3}\n")


def test_a_repeated_anchor_beside_a_duplicate_key_is_no_warning() -> None:
    with pytest.raises(FlowError, match="duplicate key 'a'"):
        parse_bot_text("a: &x 1\na: &x 2\n" + FLOW)


def test_an_alias_bomb_beside_a_duplicate_key_is_reported_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The duplicate-key report reads each node once: following the bomb's aliases would visit
    9**9 nodes (the fuzz run's 57 s example); the nodes visited stay under the nodes written."""
    from dialogkit.spec import yaml_careful

    visited: list[int] = []
    real = yaml_careful._duplicates_in
    monkeypatch.setattr(yaml_careful, "_duplicates_in", lambda node, name: visited.append(1) or real(node, name))
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = "\n".join(lines) + "\nx: {b: *a8, c: *a8}\n" + FLOW + "x: 2\n"
    problem = _problem(text)
    assert "duplicate key 'x'" in problem and len(visited) <= 5   # root, x, flows, f, trigger


def test_a_duplicate_key_is_never_written_out_whole() -> None:
    """ruamel's own message shows the duplicated values: beside an alias bomb, a billion items."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    assert "duplicate key 'x'" in _problem("\n".join(lines) + "\nx: *a8\nx: *a8\n" + FLOW)
    with pytest.raises(FlowError):
        parse_bot_text("\n".join(lines) + "\n? [*a8]\n: 1\n? [*a8]\n: 2\n" + FLOW)


@pytest.mark.parametrize("key", ["[a, b]", "{a: 1}"])
def test_a_list_or_map_key_beside_a_duplicate_key_is_a_flow_error(key: str) -> None:
    assert "duplicate key 'x'" in _problem(f"{key}: 1\nx: 1\nx: 2\n" + FLOW)


@pytest.mark.parametrize("escaped", ['"\\ud800"', '"\\0\\ud800"', '{"\\udfff": 1}'])
def test_a_lone_surrogate_escape_is_a_flow_error_at_its_place(escaped: str) -> None:
    """No text encoding carries it (the file's version hash would raise UnicodeEncodeError)."""
    with pytest.raises(FlowError) as caught:
        parse_bot_text(FLOW + f"description: {escaped}\n")
    problem = caught.value.problems[0]
    assert "unpaired surrogate" in problem.message and problem.line == 4
