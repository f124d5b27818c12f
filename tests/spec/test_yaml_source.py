"""The positioned YAML reader shared by bot files and test files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml.nodes import MappingNode

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.yaml_source import (
    BOT_FILE,
    FileKind,
    compose_yaml,
    is_null,
    node_position,
    node_value,
    read_text_file,
    read_yaml,
)

OTHER = FileKind("test file", "give it `bot:` and `tests:`", "start with `bot:`", syntax_error="invalid YAML")


def _only_problem(call: Any, *args: Any, **kwargs: Any) -> Problem:
    with pytest.raises(FlowError) as caught:
        call(*args, **kwargs)
    (problem,) = caught.value.problems
    return problem


class TestReadYaml:
    def test_plain_data_and_where_each_piece_was_written(self) -> None:
        document = read_yaml("bot:\n  name: 客服\nflows:\n  - a\n  - b\n", "bot.yaml")
        assert document.data == {"bot": {"name": "客服"}, "flows": ["a", "b"]}
        assert document.positions.key(("bot", "name")) == (2, 3)
        assert document.positions.value(("bot", "name")) == (2, 9)
        assert document.positions.value(("flows", 1)) == (5, 5)

    def test_a_problem_at_a_value_or_at_its_key(self) -> None:
        document = read_yaml("bot:\n  name: support\n", "bot.yaml")
        at_value = document.problem(("bot", "name"), "bad name", "rename it")
        at_key = document.problem(("bot", "name"), "bad key", at_key=True)
        assert (at_value.file, at_value.line, at_value.col, at_value.hint) == ("bot.yaml", 2, 9, "rename it")
        assert (at_key.line, at_key.col, at_key.hint) == (2, 3, "")

    def test_a_missing_path_falls_back_to_its_nearest_ancestor(self) -> None:
        document = read_yaml("bot:\n  name: support\n", "bot.yaml")
        assert document.positions.value(("bot", "name", "zh")) == (2, 9)
        assert document.positions.value(("nothing",)) == (1, 1)

    @pytest.mark.parametrize(("kind", "start"), [(BOT_FILE, "YAML syntax error"), (OTHER, "invalid YAML")])
    def test_the_kind_names_the_document_in_its_problems(self, kind: FileKind, start: str) -> None:
        assert _only_problem(read_yaml, "a: [1\n", "f.yaml", kind=kind).message.startswith(start)
        empty = _only_problem(read_yaml, "# 只有注释\n", "f.yaml", kind=kind)
        assert (empty.message, empty.hint) == (f"the {kind.noun} is empty", kind.empty_hint)


class TestReadTextFile:
    def test_text_with_a_bom(self, tmp_path: Path) -> None:
        path = tmp_path / "bot.yaml"
        path.write_bytes("\ufeffflows: {}\n".encode())
        assert read_text_file(path) == "flows: {}\n"

    @pytest.mark.parametrize(("content", "message"), [
        (b"\x89PNG\x00", "this is not a text file (it contains binary data)"),
        (b"a: 1\nb: \xff\n", "this file is not valid UTF-8 text"),
    ])
    def test_unreadable_text_is_a_problem(self, tmp_path: Path, content: bytes, message: str) -> None:
        path = tmp_path / "bot.yaml"
        path.write_bytes(content)
        assert _only_problem(read_text_file, path, OTHER).message == message

    def test_a_missing_file_and_a_directory(self, tmp_path: Path) -> None:
        assert _only_problem(read_text_file, tmp_path / "nope.yaml").message == "no such file"
        assert _only_problem(read_text_file, tmp_path, OTHER).message == "this is a directory, not a test file"


class TestNodeTree:
    def test_scalars_keep_their_written_text(self) -> None:
        """YAML 1.2: yes/no/on/off are text; numbers keep their form when asked."""
        root = compose_yaml("a: 0123\nb: yes\nc: 1.50\nd: ~\ne: true\nf: 0x1F\n", "t.yaml", kind=OTHER)
        assert isinstance(root, MappingNode)
        values = {key.value: value for key, value in root.value}
        assert node_value(root) == {"a": 123, "b": "yes", "c": 1.5, "d": None, "e": True, "f": 31}
        assert node_value(root, keep_numbers=True) == {"a": "0123", "b": "yes", "c": "1.50", "d": None,
                                                       "e": True, "f": "0x1F"}
        assert is_null(values["d"]) and not is_null(values["b"])
        assert node_position(values["c"]) == (3, 4)

    def test_special_floats(self) -> None:
        root = compose_yaml("[.inf, -.inf]\n", "t.yaml", kind=OTHER)
        assert node_value(root) == [float("inf"), float("-inf")]

    def test_syntax_errors_and_empty_documents_are_problems(self) -> None:
        problem = _only_problem(compose_yaml, "tests:\n  - name: [unclosed\n", "t.yaml", kind=OTHER)
        assert problem.message.startswith("invalid YAML") and problem.line == 3
        assert _only_problem(compose_yaml, "", "t.yaml", kind=OTHER).message == "the test file is empty"

    def test_duplicate_keys_are_left_to_the_reader(self) -> None:
        """The node tree keeps both: a test-file reader reports them in its own words."""
        root = compose_yaml("a: 1\na: 2\n", "t.yaml", kind=OTHER)
        assert [key.value for key, _ in root.value] == ["a", "a"]


@pytest.mark.parametrize("line", ["expect: {bot: /订单号|order [0-9]{5}/}", "expect: {bot: /T-[0-9]+/, state: IDLE}"])
def test_an_unquoted_regex_inside_braces_gets_the_quoting_hint(line: str) -> None:
    """A /regex/ written inside {...} ends at its first comma or bracket: the hint says to quote it."""
    problem = _only_problem(read_yaml, f"steps:\n  - user: hi\n    {line}\n", "t.yaml", kind=OTHER)
    assert problem.hint is not None and "must be quoted" in problem.hint and "{bot: '/" in problem.hint
