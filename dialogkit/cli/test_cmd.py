"""``dialogkit test PATH...``: run conversation test files and report like a test runner.

Output: a progress line per file, then every failure with its transcript, then coverage when
asked, and ``N passed, M failed`` alone on the last line so scripts and CI can read it.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from dialogkit.testing.cases import iter_test_files
from dialogkit.testing.coverage import CoverageTracker
from dialogkit.testing.report import format_coverage, format_failure, format_problems, write_junit
from dialogkit.testing.results import FileResult
from dialogkit.testing.runner import run_file
from dialogkit.testing.selection import KeywordError, compile_keyword


def test_command(paths: list[Path], junit: Path | None, keyword: str | None, coverage: bool) -> int:
    """Run the tests under ``paths``; the exit code is 1 when anything failed, else 0."""
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if keyword:
        try:
            compile_keyword(keyword)
        except KeywordError as exc:
            err.print(f"error: {exc}", markup=False)
            return 2
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        err.print(f"error: no such file or directory: {path}", markup=False)
    files = list(iter_test_files([p for p in paths if p.exists()]))
    tracker = CoverageTracker() if coverage else None
    results = _run_files(console, files, keyword, tracker)
    _print_details(console, results, tracker)
    if junit is not None:
        write_junit(results, junit)
    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results) + len(missing)
    if not files and not missing:
        err.print("no test files found (looked for test_*.yaml)", markup=False)
    elif passed + failed == 0:
        err.print(f"no test matched -k {keyword!r}", markup=False)
    console.print()
    console.print(f"{passed} passed, {failed} failed", style="red" if failed else "green", markup=False)
    # Nothing run is a failure too: a CI job pointed at the wrong folder must not pass silently.
    return 1 if failed or passed == 0 else 0


def _run_files(console: Console, files: list[Path], keyword: str | None,
               tracker: CoverageTracker | None) -> list[FileResult]:
    """Run each file, printing its progress line (``path ..F 2 passed, 1 failed``) as it ends."""
    results: list[FileResult] = []
    for path in files:
        result = run_file(path, keyword=keyword, coverage=tracker)
        results.append(result)
        if not result.results and not result.problems:
            continue   # -k selected nothing here
        marks = "E" if result.problems else "".join("." if r.passed else "F" for r in result.results)
        style = "red" if result.failed else "green"
        console.print(f"{_shown(path)} {marks} ", end="", markup=False)
        console.print(f"{result.passed} passed, {result.failed} failed", style=style, markup=False)
    return results


def _print_details(console: Console, results: list[FileResult], tracker: CoverageTracker | None) -> None:
    """Every file problem and failed test with its transcript, then coverage when it was tracked."""
    for result in results:
        if result.problems:
            console.print()
            console.print(format_problems(result), markup=False)
        for test in result.results:
            if not test.passed:
                console.print()
                console.print(format_failure(test), markup=False)
    if tracker is not None:
        console.print()
        console.print(format_coverage(tracker.reports()), markup=False)


test_command.__test__ = False  # type: ignore[attr-defined]  # a command, not a pytest test


def _shown(path: Path) -> str:
    """The path relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
