"""pytest plugin: conversation test files (``test_*.yaml``) become one pytest item per test.

Registered through the ``pytest11`` entry point, so installing dialogkit is enough: any
``test_*.yaml`` under a directory pytest collects is loaded, each test in it is an item named
after the test, ``tags:`` become markers (so ``-m`` and ``-k`` work), and a failure is reported
with the same text as ``dialogkit test``: the step, expected vs actual, and the transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit.errors import FlowError
from dialogkit.testing.cases import TestCase, TestFile, load_test_file
from dialogkit.testing.report import format_failure
from dialogkit.testing.results import TestResult
from dialogkit.testing.runner import run_test


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
        result = run_test(self.test_file, self.case)
        if not result.passed:
            raise ConversationFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, ConversationFailed):
            return format_failure(excinfo.value.result)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.case.line - 1, f"{self.path.name}::{self.case.name}"
