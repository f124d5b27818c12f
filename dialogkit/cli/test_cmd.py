"""``dialogkit test PATH...``: run conversation test files and report like a test runner.

Output: a progress line per file (with a line per repeated test: its pass count and whether it
is flaky), then every failure with its transcript, then coverage when asked, and ``N passed, M
failed`` alone on the last line so scripts and CI can read it (``, F flaky`` added when some
repeated test passed only some of its runs).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from dialogkit.cli.consoles import plain_console
from dialogkit.testing.cases import iter_test_files
from dialogkit.testing.coverage import CoverageTracker
from dialogkit.testing.factory import LLMOptions
from dialogkit.testing.repeats import OPTIONS, Repeat, repeat_problem
from dialogkit.testing.report import format_coverage, format_failure, format_problems, format_runs, write_junit
from dialogkit.testing.results import FileResult
from dialogkit.testing.runner import run_file
from dialogkit.testing.selection import KeywordError, compile_keyword


def test_command(paths: list[Path], junit: Path | None, keyword: str | None, coverage: bool, *,
                 llm: bool = False, base_url: str | None = None, model: str | None = None,
                 repeat: int | None = None, min_pass: int | None = None) -> int:
    """Run the tests under ``paths``; the exit code is 1 when anything failed, 2 when the options
    are wrong, else 0.

    ``llm`` runs the bots with their LLM (``base_url`` and ``model`` replace the bot file's);
    ``repeat``/``min_pass`` apply to the tests and files that set no ``repeat`` of their own.
    """
    console = plain_console(soft_wrap=True)
    err = plain_console(stderr=True, soft_wrap=True)
    wrong = _wrong_options(keyword, llm, base_url, model, repeat, min_pass)
    if wrong is not None:
        err.print(f"error: {wrong}", markup=False)
        return 2
    options = LLMOptions(base_url=base_url, model=model) if llm else None
    times = Repeat.of(repeat, min_pass) if repeat is not None else None
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        err.print(f"error: no such file or directory: {path}", markup=False)
    files = list(iter_test_files([p for p in paths if p.exists()]))
    tracker = CoverageTracker() if coverage else None
    results = _run_files(console, files, keyword, tracker, times, options)
    _print_details(console, results, tracker)
    if junit is not None:
        write_junit(results, junit)
    if not files and not missing:
        err.print("no test files found (looked for test_*.yaml)", markup=False)
    return _print_totals(console, err, results, len(missing), keyword)


def _print_totals(console: Console, err: Console, results: list[FileResult], missing: int,
                  keyword: str | None) -> int:
    """The last line, ``N passed, M failed`` (``, F flaky`` when some are), and the exit code."""
    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results) + missing
    if results and passed + failed == 0:
        err.print(f"no test matched -k {keyword!r}", markup=False)
    flaky = sum(r.flaky for r in results)
    console.print()
    console.print(f"{passed} passed, {failed} failed" + (f", {flaky} flaky" if flaky else ""),
                  style="red" if failed else "green", markup=False)
    # Nothing run is a failure too: a CI job pointed at the wrong folder must not pass silently.
    return 1 if failed or passed == 0 else 0


def _wrong_options(keyword: str | None, llm: bool, base_url: str | None, model: str | None,
                   repeat: int | None, min_pass: int | None) -> str | None:
    """What is wrong with the options, said as for the command line; None when nothing is."""
    if keyword:
        try:
            compile_keyword(keyword)
        except KeywordError as exc:
            return str(exc)
    if not llm and (base_url is not None or model is not None):
        return "--base-url and --model choose the LLM of --llm: add --llm"
    wrong = repeat_problem(repeat, min_pass, OPTIONS)
    return None if wrong is None else f"{wrong[1]} ({wrong[2]})"


def _run_files(console: Console, files: list[Path], keyword: str | None, tracker: CoverageTracker | None,
               times: Repeat | None, llm: LLMOptions | None) -> list[FileResult]:
    """Run each file, printing its progress line (``path ..F 2 passed, 1 failed``) as it ends,
    and under it a line per repeated test with its pass count."""
    results: list[FileResult] = []
    for path in files:
        result = run_file(path, keyword=keyword, coverage=tracker, repeat=times, llm=llm)
        results.append(result)
        if not result.results and not result.problems:
            continue   # -k selected nothing here
        marks = "E" if result.problems else "".join("." if r.passed else "F" for r in result.results)
        style = "red" if result.failed else "green"
        console.print(f"{_shown(path)} {marks} ", end="", markup=False)
        console.print(f"{result.passed} passed, {result.failed} failed", style=style, markup=False)
        for test in result.results:
            if test.runs:
                console.print("  " + format_runs(test), style="yellow" if test.flaky else None, markup=False)
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
