"""Runs conversation tests: one file, one test, each on a fresh store, with results to report.

Every test gets its own temporary folder holding a SQLite store, so tests never see each
other's sessions, and ``restart: true`` closes the bot and builds a new one on that same file:
persistence is proved through the store, not assumed from an object kept in memory. Every test
also gets its own ``TestClock``, started at the same local time whatever day it runs.

A test with ``repeat: N`` runs N times, each run from scratch as above, and passes when
``min_pass`` of them do (``repeats.py``); its result keeps every run's outcome and the story of
the first failed run (the last run when none failed).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path

from dialogkit.errors import DialogkitError, FlowError
from dialogkit.testing.cases import TestCase, TestFile, load_test_file
from dialogkit.testing.clock import TestClock, zone_of
from dialogkit.testing.conversation import Conversation
from dialogkit.testing.coverage import CoverageTracker
from dialogkit.testing.factory import LLMOptions, llm_bot_factory, open_bot
from dialogkit.testing.protocols import BotFactory
from dialogkit.testing.repeats import ONCE, Repeat
from dialogkit.testing.results import FileResult, StepFailure, TestResult
from dialogkit.testing.selection import compile_keyword

__all__ = ["open_bot", "run_file", "run_test"]


def run_file(
    path: Path,
    *,
    keyword: str | None = None,
    factory: BotFactory | None = None,
    coverage: CoverageTracker | None = None,
    repeat: Repeat | None = None,
    llm: LLMOptions | None = None,
) -> FileResult:
    """Load a test file and run its tests (those ``keyword`` selects, when given).

    ``repeat`` is the command line's, for tests and files that set none; ``llm`` turns the bots'
    LLM on (``factory.LLMOptions``).
    """
    try:
        test_file = load_test_file(path)
    except FlowError as exc:
        return FileResult(path=path, problems=list(exc.problems))
    selected = compile_keyword(keyword) if keyword else None
    result = FileResult(path=path)
    for case in test_file.tests:
        if selected is not None and not selected(f"{path.name} {case.name}"):
            continue
        result.results.append(run_test(test_file, case, factory=factory, coverage=coverage, repeat=repeat, llm=llm))
    return result


def run_test(
    test_file: TestFile,
    case: TestCase,
    *,
    factory: BotFactory | None = None,
    coverage: CoverageTracker | None = None,
    repeat: Repeat | None = None,
    llm: LLMOptions | None = None,
) -> TestResult:
    """Run one test (as often as its ``repeat`` says) on empty stores; never raises for a failure
    of the bot under test.

    ``open_bot`` is looked up when the test runs, so a test of the harness can replace it here.
    """
    build = factory or (llm_bot_factory(llm) if llm is not None else open_bot)
    times = case.repeat or test_file.repeat or repeat or ONCE
    if times == ONCE:
        return _run_once(test_file, case, build, coverage)
    results = [_run_once(test_file, case, build, coverage) for _ in range(times.runs)]
    story = next((r for r in results if not r.passed), results[-1])
    return replace(story, duration=sum(r.duration for r in results), runs=tuple(r.passed for r in results),
                   min_pass=times.min_pass)


def _run_once(test_file: TestFile, case: TestCase, build: BotFactory, coverage: CoverageTracker | None) -> TestResult:
    """One run of a test, on a store and clock of its own."""
    started = time.perf_counter()
    clock = TestClock()
    with tempfile.TemporaryDirectory(prefix="dialogkit-test-", ignore_cleanup_errors=True) as folder:
        store = f"sqlite:///{Path(folder) / 'sessions.db'}"
        try:
            bot = build(test_file.bot, store, test_file.actions, clock)
        except Exception as exc:  # a bot that fails to load fails the test, with why
            failure = StepFailure(step=0, user="", line=case.line, error=_load_error(test_file.bot, exc))
            return TestResult(test_file.path, case.name, case.line, [], failure, time.perf_counter() - started)
        clock.start(zone_of(bot))
        convo = Conversation(bot, user_id=case.user_id, session_id="test-session",
                             reopen=lambda: build(test_file.bot, store, test_file.actions, clock), clock=clock)
        if coverage is not None:
            convo.observers.append(coverage.observer(test_file.bot))
        try:
            stopped = _run_steps(convo, case)
        finally:
            _close_quietly(convo)
    return TestResult(test_file.path, case.name, case.line, list(convo.transcript), stopped,
                      time.perf_counter() - started)


def _run_steps(convo: Conversation, case: TestCase) -> StepFailure | None:
    for number, step in enumerate(case.steps, start=1):
        try:
            if step.restart:
                convo.restart()
            convo.say(step.user, session=step.session, now=step.now, wait=step.wait)
            mismatches = convo.check(step.expect)
        except Exception as exc:  # the bot's crash is this step's failure
            error = "".join(traceback.format_exception(exc, limit=-8)).rstrip()
            return StepFailure(number, step.user, step.line, dict(step.expect), error=error)
        if mismatches:
            return StepFailure(number, step.user, step.line, dict(step.expect), mismatches)
    return None


def _load_error(bot_path: Path, exc: Exception) -> str:
    if isinstance(exc, FlowError):
        return f"the bot file {bot_path} did not load:\n" + "\n".join(str(p) for p in exc.problems)
    if isinstance(exc, DialogkitError):
        return f"the bot {bot_path} could not be built: {exc}"
    detail = "".join(traceback.format_exception(exc, limit=-8)).rstrip()
    return f"the bot {bot_path} could not be built:\n{detail}"


def _close_quietly(convo: Conversation) -> None:
    """Close the bot so its SQLite file is released before the folder is removed; a failing
    close must not hide the test's outcome."""
    with contextlib.suppress(Exception):
        convo.close()
