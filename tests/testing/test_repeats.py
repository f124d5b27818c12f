"""``repeat``/``min_pass``: how they are read, refused, resolved and reported (docs/testing.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dialogkit.testing.cases import load_test_file
from dialogkit.testing.repeats import Repeat
from dialogkit.testing.report import format_failure, format_runs
from dialogkit.testing.runner import run_file
from tests.testing.conftest import BOT_FILE, WriteTests
from tests.testing.test_cases import problems_of
from tests.testing.test_pytest_plugin import CONFTEST

PAIRS = """
    bot: bot.yaml
    repeat: 4
    min_pass: 3
    tests:
      - name: own pair
        repeat: 3
        min_pass: 2
        steps:
          - user: 订单 123456 的手机碎了
            expect: {state: CONFIRMATION}
      - name: own repeat, all must pass
        repeat: 2
        steps:
          - user: my phone is broken
            expect: {state: IDLE}
      - name: the file's pair
        steps:
          - user: my phone is broken
            expect: {state: PARAM_COLLECT}
"""


class TestReading:
    def test_a_test_and_a_file_each_keep_their_pair(self, write_tests: WriteTests) -> None:
        test_file = load_test_file(write_tests(PAIRS))
        assert test_file.repeat == Repeat(4, 3)
        assert [case.repeat for case in test_file.tests] == [Repeat(3, 2), Repeat(2, 2), None]

    @pytest.mark.parametrize(("written", "line", "col", "message"), [
        ({"repeat": 3, "min_pass": 4}, 5, 15, "`min_pass` (4) is more than `repeat` (3): the test could never pass"),
        ({"repeat": 0}, 4, 13, "`repeat` must be from 1 to 1000, not 0"),
        ({"repeat": 5, "min_pass": 0}, 5, 15, "`min_pass` must be from 1 to 1000, not 0"),
        ({"repeat": "five"}, 4, 13, "`repeat` must be a whole number, not 'five'"),
        ({"repeat": "true"}, 4, 13, "`repeat` must be a whole number, not True"),
        ({"repeat": 2.5}, 4, 13, "`repeat` must be a whole number, not 2.5"),
        ({"min_pass": 2}, 4, 15, "`min_pass` needs `repeat` beside it"),
    ])
    def test_bad_values_are_problems_with_position_and_hint(self, write_tests: WriteTests, written: dict[str, object],
                                                             line: int, col: int, message: str) -> None:
        keys = "".join(f"    {key}: {value}\n" for key, value in written.items())
        path = write_tests(f"bot: bot.yaml\ntests:\n  - name: 订单\n{keys}    steps:\n      - user: 你好\n")
        (problem,) = problems_of(path)
        assert (problem.line, problem.col, problem.message) == (line, col, message)
        assert "repeat: 5" in problem.hint and "min_pass: 4" in problem.hint

    def test_the_file_level_pair_is_checked_too(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            repeat: 2
            min_pass: 3
            tests:
              - name: t
                steps:
                  - user: hello
        """)
        (problem,) = problems_of(path)
        assert (problem.line, problem.message.split(":")[0]) == (3, "`min_pass` (3) is more than `repeat` (2)")
        assert problem.hint.startswith("at most 2;")


@pytest.mark.usefixtures("use_fake_bot")
class TestRunning:
    def test_the_nearest_pair_decides(self, write_tests: WriteTests) -> None:
        """The test's pair, else the file's, else the command line's (which reaches neither here)."""
        result = run_file(write_tests(PAIRS), repeat=Repeat(7, 1))
        assert [(r.runs, r.min_pass, r.passed, r.flaky) for r in result.results] == [
            ((True,) * 3, 2, True, False), ((False,) * 2, 2, False, False), ((True,) * 4, 3, True, False)]
        assert (result.passed, result.failed, result.flaky) == (2, 1, 0)

    def test_the_command_lines_pair_reaches_tests_that_set_none(self, write_tests: WriteTests) -> None:
        path = write_tests(PAIRS.replace("    repeat: 4\n    min_pass: 3\n", ""))
        assert [r.runs for r in run_file(path, repeat=Repeat(2, 1)).results][2] == (True, True)
        assert [r.runs for r in run_file(path).results][2] == ()          # run once, as always

    def test_a_repeated_failure_tells_its_run_and_pass_count(self, write_tests: WriteTests) -> None:
        failed = run_file(write_tests(PAIRS)).results[1]
        assert format_runs(failed) == "own repeat, all must pass: 0/2 passed, 2 needed [FF]  FAILED"
        story = format_failure(failed).splitlines()
        assert story[0].endswith("::own repeat, all must pass (line 11): 0/2 runs passed, 2 needed")
        assert story[1:3] == ["  run 1 of 2:", "  step 1 (line 14): user: my phone is broken"]


def test_the_pytest_plugin_runs_k_of_n_and_sums_it_up(tmp_path: Path) -> None:
    """Under pytest a repeated test is one item; its pass count is in the k-of-n summary and in
    --junitxml's properties; the command line's repeat reaches the tests that set none."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST), encoding="utf-8")
    (tmp_path / "test_pairs.yaml").write_text(
        textwrap.dedent(PAIRS.replace("    repeat: 4\n    min_pass: 3\n", "")).lstrip().replace(
            "bot: bot.yaml", f"bot: {BOT_FILE}"),
        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    junit = tmp_path / "junit.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path), "--dialogkit-repeat", "3",
         f"--junitxml={junit}"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "conversation tests k-of-n" in out and "1 failed, 2 passed" in out
    assert "test_pairs.yaml::own pair: 3/3 passed, 2 needed [...]" in out
    assert "test_pairs.yaml::the file's pair: 3/3 passed, 3 needed [...]" in out
    assert "test_pairs.yaml::own repeat, all must pass (line 9): 0/2 runs passed, 2 needed" in out
    assert "none flaky" in out
    assert '<property name="passes" value="3/3"' in junit.read_text(encoding="utf-8")
    wrong = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path),
                            "--dialogkit-min-pass", "2"], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120, check=False)
    assert wrong.returncode == 4 and "--dialogkit-min-pass needs --dialogkit-repeat beside it" in wrong.stderr
