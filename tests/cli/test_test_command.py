"""`dialogkit test PATH...`: progress per file, failures, coverage, and the last line to parse."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import dialogkit.cli.test_cmd as test_cmd
from tests.testing.conftest import WriteTests

pytestmark = pytest.mark.usefixtures("use_fake_bot")

PASSING = """
    bot: bot.yaml
    actions:
      create_ticket: {ticket_id: T-1001}
    tests:
      - name: zh ticket
        steps:
          - user: 订单 123456 的手机碎了
            expect: {state: CONFIRMATION}
          - user: 确认
            expect: {bot: T-1001}
      - name: en ticket
        steps:
          - user: order 123456, my phone is broken
            expect: {state: CONFIRMATION}
"""
FAILING = """
    bot: ../bot.yaml
    tests:
      - name: zh wrong
        steps:
          - user: 我的手机碎了
            expect: {state: IDLE}
      - name: en right
        steps:
          - user: my phone is broken
            expect: {state: PARAM_COLLECT}
"""


def run(capsys: pytest.CaptureFixture[str], *paths: Path, junit: Path | None = None,
        keyword: str | None = None, coverage: bool = False) -> tuple[int, list[str]]:
    code = test_cmd.test_command(list(paths), junit, keyword, coverage)
    return code, capsys.readouterr().out.rstrip("\n").splitlines()


def test_all_passing_exits_zero(write_tests: WriteTests, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tests(PASSING, name="test_support.yaml")
    code, lines = run(capsys, tmp_path)
    assert code == 0
    assert lines[0].endswith("test_support.yaml .. 2 passed, 0 failed")
    assert lines[-1] == "2 passed, 0 failed"


def test_directories_recursive_with_failure_report(write_tests: WriteTests, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Files are found recursively; a failure prints its diff and transcript; exit code 1."""
    write_tests(PASSING, name="test_support.yaml")
    write_tests(FAILING, name="nested/test_more.yaml")
    code, lines = run(capsys, tmp_path)
    assert code == 1
    assert lines[0].endswith("nested/test_more.yaml F. 1 passed, 1 failed")
    assert lines[1].endswith("test_support.yaml .. 2 passed, 0 failed")
    text = "\n".join(lines)
    assert "FAILED " in text and "::zh wrong" in text
    assert 'expected: "IDLE"' in text and 'actual:   "PARAM_COLLECT"' in text
    assert "1. user: 我的手机碎了" in text
    assert lines[-1] == "3 passed, 1 failed"


def test_keyword_junit_and_coverage(write_tests: WriteTests, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write_tests(PASSING, name="test_support.yaml")
    junit = tmp_path / "out" / "junit.xml"
    code, lines = run(capsys, path, junit=junit, keyword="zh", coverage=True)
    assert code == 0 and lines[-1] == "1 passed, 0 failed"
    text = "\n".join(lines)
    assert "report_issue: deny never fired" in text
    assert [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")] == ["zh ticket"]


def test_invalid_test_file_counts_as_a_failure(write_tests: WriteTests, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    write_tests("bot: bot.yaml\ntests:\n  - name: t\n    steps:\n      - usr: 你好\n", name="test_bad.yaml")
    code, lines = run(capsys, tmp_path)
    assert code == 1
    assert lines[0].endswith("test_bad.yaml E 0 passed, 1 failed")
    assert any("test_bad.yaml:5:9: unknown key `usr` in a step" in line for line in lines)
    assert lines[-1] == "0 passed, 1 failed"


def test_missing_path_and_empty_selection_fail(tmp_path: Path, write_tests: WriteTests,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong path, or a -k that selects nothing, must not pass silently in CI."""
    code, lines = run(capsys, tmp_path / "nowhere")
    assert code == 1 and lines[-1] == "0 passed, 1 failed"
    write_tests(PASSING, name="test_support.yaml")
    code, lines = run(capsys, tmp_path, keyword="nothing_matches")
    assert code == 1 and lines[-1] == "0 passed, 0 failed"


def test_bad_keyword_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert test_cmd.test_command([tmp_path], None, "zh and", False) == 2
    assert "ends too early" in capsys.readouterr().err
