"""pytest plugin: conversation test files (``test_*.yaml``) become one pytest item per test.

Registered through the ``pytest11`` entry point, so installing dialogkit is enough: any
``test_*.yaml`` under a directory pytest collects is loaded, each test in it is an item named
after the test, ``tags:`` become markers (so ``-m`` and ``-k`` work), and a failure is reported
with the same text as ``dialogkit test``: the step, expected vs actual, and the transcript.

A test with ``repeat``/``min_pass`` is one item that runs N times and passes when K runs do; its
pass count is a report section and a ``user_properties`` entry (so ``--junitxml`` has it), and
the run ends with a "conversation tests k-of-n" summary flagging the flaky ones. The options of
``dialogkit test`` are here as ``--dialogkit-llm``, ``--dialogkit-base-url``, ``--dialogkit-model``,
``--dialogkit-repeat`` and ``--dialogkit-min-pass``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit.errors import FlowError
from dialogkit.testing.cases import TestCase, TestFile, load_test_file
from dialogkit.testing.factory import LLMOptions
from dialogkit.testing.repeats import Repeat, Spelling, repeat_problem
from dialogkit.testing.report import format_failure, format_runs, pass_count
from dialogkit.testing.results import TestResult
from dialogkit.testing.runner import run_test

_OPTIONS = Spelling("--dialogkit-repeat", "--dialogkit-min-pass", "--dialogkit-repeat 5 --dialogkit-min-pass 4")
_REPEATED = pytest.StashKey[list[TestResult]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dialogkit", "dialogkit conversation tests (test_*.yaml)")
    group.addoption("--dialogkit-llm", action="store_true", help="run the bots with their LLM (llm: block)")
    group.addoption("--dialogkit-base-url", metavar="URL", help="with --dialogkit-llm: the server's /v1 URL")
    group.addoption("--dialogkit-model", metavar="NAME", help="with --dialogkit-llm: the model to ask")
    group.addoption("--dialogkit-repeat", type=int, metavar="N", help="run each test N times (unless it says)")
    group.addoption("--dialogkit-min-pass", type=int, metavar="K", help="with --dialogkit-repeat: K runs must pass")


def pytest_configure(config: pytest.Config) -> None:
    wrong = repeat_problem(config.getoption("dialogkit_repeat"), config.getoption("dialogkit_min_pass"), _OPTIONS)
    if wrong is not None:
        raise pytest.UsageError(f"{wrong[1]} ({wrong[2]})")
    if not config.getoption("dialogkit_llm") and (config.getoption("dialogkit_base_url") or
                                                   config.getoption("dialogkit_model")):
        raise pytest.UsageError("--dialogkit-base-url and --dialogkit-model choose the LLM of --dialogkit-llm: add it")
    config.stash[_REPEATED] = []


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Every repeated test's pass count, the flaky ones flagged, in one section at the end."""
    repeated = config.stash.get(_REPEATED, [])
    if not repeated:
        return
    terminalreporter.section("conversation tests k-of-n")
    for result in repeated:
        terminalreporter.line(f"{result.file.name}::{format_runs(result)}")
    flaky = sum(r.flaky for r in repeated)
    terminalreporter.line(f"{flaky} flaky of {len(repeated)} repeated" if flaky else "none flaky")


def _run_settings(config: pytest.Config) -> tuple[Repeat | None, LLMOptions | None]:
    runs = config.getoption("dialogkit_repeat")
    times = Repeat.of(runs, config.getoption("dialogkit_min_pass")) if runs is not None else None
    llm = LLMOptions(config.getoption("dialogkit_base_url"), config.getoption("dialogkit_model")) \
        if config.getoption("dialogkit_llm") else None
    return times, llm


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Claim ``test_*.yaml`` / ``test_*.yml`` files; leave every other YAML file alone."""
    if file_path.suffix in (".yaml", ".yml") and file_path.name.startswith("test_"):
        collector: pytest.Collector = ConversationFile.from_parent(parent, path=file_path)
        return collector
    return None


class ConversationFailed(Exception):
    """Raised by an item whose conversation failed; carries the result for the report."""

    def __init__(self, result: TestResult) -> None:
        super().__init__(result.name)
        self.result = result


class ConversationFile(pytest.File):
    """A conversation test file; a file that does not load is a collection error with positions."""

    def collect(self) -> Iterator[ConversationItem]:
        try:
            test_file = load_test_file(self.path)
        except FlowError as exc:
            raise self.CollectError(str(exc)) from exc
        for case in test_file.tests:
            yield ConversationItem.from_parent(self, name=case.name, test_file=test_file, case=case)


class ConversationItem(pytest.Item):
    """One test of a conversation file, run on its own fresh store."""

    def __init__(self, *, test_file: TestFile, case: TestCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test_file = test_file
        self.case = case
        for tag in case.tags:
            # A test file's tags are declared by being written there: register each as a marker so
            # projects that turn warnings into errors need no conftest listing them.
            self.config.addinivalue_line("markers", f"{tag}: tag of a YAML conversation test")
            self.add_marker(tag)

    def runtest(self) -> None:
        times, llm = _run_settings(self.config)
        result = run_test(self.test_file, self.case, repeat=times, llm=llm)
        if result.runs:
            self.config.stash[_REPEATED].append(result)
            self.user_properties += [("passes", pass_count(result)), ("flaky", str(result.flaky).lower())]
            self.add_report_section("call", "k-of-n", format_runs(result))
        if not result.passed:
            raise ConversationFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, ConversationFailed):
            return format_failure(excinfo.value.result)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.case.line - 1, f"{self.path.name}::{self.case.name}"
