"""Rendering results as plain text (terminals and CI logs alike) and as JUnit XML.

Plain text on purpose: a CI log shows it as is, and the CLI adds colour only around it. A
failure shows the step, expected vs actual for each key that broke, and the transcript so far,
so the reader sees what the bot said, how its state moved and why (each turn's ``reply.explain``)
without re-running anything.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dialogkit.testing.coverage import BotCoverage
from dialogkit.testing.expectations import Mismatch
from dialogkit.testing.results import FileResult, StepFailure, TestResult, Turn


def show(value: Any) -> str:
    """A value as it would be written in a test file (JSON-like, CJK kept readable)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def format_mismatches(mismatches: Sequence[Mismatch], indent: str = "  ") -> str:
    lines: list[str] = []
    for m in mismatches:
        lines.append(f"{indent}{m.key}:")
        lines.append(f"{indent}  expected: {show(m.expected)}")
        if not m.unsupported:
            lines.append(f"{indent}  actual:   {show(m.actual)}")
        if m.note:
            lines.append(f"{indent}  note:     {m.note}")
    return "\n".join(lines)


def format_transcript(transcript: Sequence[Turn], indent: str = "  ") -> str:
    if not transcript:
        return f"{indent}(no turns)"
    lines: list[str] = []
    for turn in transcript:
        marks = []
        if turn.restarted:
            marks.append("after restart")
        if turn.session != "default":
            marks.append(f"session {turn.session}")
        prefix = f"{indent}{turn.index}. "
        pad = " " * len(prefix)
        lines.append(prefix + (f"[{', '.join(marks)}] " if marks else "") + "user: " + _hang(turn.user, pad + "      "))
        lines.append(f"{pad}bot:  " + _hang(turn.bot, pad + "      "))
        lines.append(f"{pad}state: {turn.state}  flow: {turn.flow}  slots: {show(turn.slots)}")
        lines.extend(f"{pad}why:  {record.line()}" for record in getattr(turn.reply, "explain", None) or ())
    return "\n".join(lines)


def _hang(text: str, indent: str) -> str:
    """Multi-line text with its continuation lines indented under the first."""
    return text.replace("\n", "\n" + indent)


def node_id(result: TestResult) -> str:
    return f"{result.file}::{result.name}"


def pass_count(result: TestResult) -> str:
    """``3/5``: how many of a test's runs passed."""
    return f"{result.passes}/{len(result.outcomes)}"


def format_runs(result: TestResult) -> str:
    """One line on a repeated test: its name, passes out of runs, how many were needed, each
    run's mark in order, and whether it is flaky."""
    marks = "".join("." if ok else "F" for ok in result.outcomes)
    flag = ("flaky" if result.passed else "FAILED, flaky") if result.flaky else ("" if result.passed else "FAILED")
    line = f"{result.name}: {pass_count(result)} passed, {result.min_pass} needed [{marks}]"
    return f"{line}  {flag}" if flag else line


def format_failure(result: TestResult) -> str:
    """The full story of one failed test (of its first failed run, when it ran more than once)."""
    failure = result.failure
    if failure is None or result.passed:
        return f"PASSED {node_id(result)}"
    lines = [f"FAILED {node_id(result)} (line {result.line})"]
    if result.runs:
        lines[0] += f": {pass_count(result)} runs passed, {result.min_pass} needed"
        lines.append(f"  run {result.outcomes.index(False) + 1} of {len(result.runs)}:")
    if failure.step == 0:
        lines.append("  " + (failure.error or "the bot could not be loaded").replace("\n", "\n  "))
        return "\n".join(lines)
    lines.append(f"  step {failure.step} (line {failure.line}): user: {failure.user}")
    if failure.error is not None:
        lines.append("  the bot raised:")
        lines.append("    " + failure.error.replace("\n", "\n    "))
    else:
        lines.append(format_mismatches(failure.mismatches, indent="    "))
    lines.append("  transcript:")
    lines.append(format_transcript(result.transcript, indent="    "))
    return "\n".join(lines)


def format_problems(file_result: FileResult) -> str:
    head = f"ERROR {file_result.path}: the test file did not load"
    return "\n".join([head, *("  " + str(p).replace("\n", "\n  ") for p in file_result.problems)])


def format_coverage(reports: Iterable[BotCoverage]) -> str:
    """Per bot and flow: what was exercised (n/total) and every gap, one per line."""
    lines: list[str] = []
    for bot in reports:
        lines.append(f"coverage of {bot.bot}")
        if not bot.available:
            lines.append("  not available: the bot exposes no `spec` to measure against")
            continue
        gaps: list[str] = []
        for flow in bot.flows.values():
            lines.append(f"  {flow.flow}")
            rows = (
                ("states", [s for s in flow.all_states if s in flow.states], len(flow.all_states)),
                ("transitions", [t for t in flow.all_triggers if t in flow.triggers], len(flow.all_triggers)),
                ("slots", [s for s in flow.all_slots if s in flow.slots], len(flow.all_slots)),
                ("memory actions", [f"{t}:{a}" for t, a in flow.all_memory if (t, a) in flow.memory],
                 len(flow.all_memory)),
            )
            for label, hit, total in rows:
                lines.append(f"    {label:<15}{len(hit)}/{total}  {' '.join(hit)}".rstrip())
            gaps += flow.never_reached()
        if bot.every_turn:
            ran = [a for a in bot.every_turn if a in bot.every_turn_ran]
            lines.append(f"  every turn       {len(ran)}/{len(bot.every_turn)}  {' '.join(ran)}".rstrip())
            gaps += [f"every_turn: memory action {a} never ran" for a in bot.every_turn if a not in bot.every_turn_ran]
        lines.append("  never reached:" if gaps else "  never reached: nothing")
        lines += [f"    {gap}" for gap in gaps]
    return "\n".join(lines)


def _junit_runs(case: ET.Element, result: TestResult) -> None:
    """A repeated test's pass count, needed passes and flakiness, as JUnit properties."""
    properties = ET.SubElement(case, "properties")
    for name, value in (("passes", pass_count(result)), ("min_pass", str(result.min_pass)),
                        ("flaky", str(result.flaky).lower())):
        ET.SubElement(properties, "property", name=name, value=value)


def _junit_message(result: TestResult, failure: StepFailure) -> str:
    message = failure.error.splitlines()[0] if failure.error else (
        f"step {failure.step}: " + ", ".join(m.key for m in failure.mismatches))
    return f"{pass_count(result)} runs passed, {result.min_pass} needed; {message}" if result.runs else message


def write_junit(results: Sequence[FileResult], path: Path) -> None:
    """JUnit XML: one testsuite per file, one testcase per test; load problems as errors."""
    root = ET.Element("testsuites", name="dialogkit")
    total = failures = errors = 0
    for file_result in results:
        suite = ET.SubElement(root, "testsuite", name=str(file_result.path))
        suite_failures = sum(not r.passed for r in file_result.results)
        suite_time = sum(r.duration for r in file_result.results)
        if file_result.problems:
            case = ET.SubElement(suite, "testcase", classname=str(file_result.path), name="(load)")
            error = ET.SubElement(case, "error", message="the test file did not load")
            error.text = format_problems(file_result)
        for result in file_result.results:
            case = ET.SubElement(suite, "testcase", classname=str(file_result.path), name=result.name,
                                 time=f"{result.duration:.3f}", line=str(result.line))
            if result.runs:
                _junit_runs(case, result)
            if result.failure is not None and not result.passed:
                failure = ET.SubElement(case, "failure", message=_junit_message(result, result.failure))
                failure.text = format_failure(result)
        count = len(file_result.results) + (1 if file_result.problems else 0)
        suite.set("tests", str(count))
        suite.set("failures", str(suite_failures))
        suite.set("errors", "1" if file_result.problems else "0")
        suite.set("time", f"{suite_time:.3f}")
        total += count
        failures += suite_failures
        errors += 1 if file_result.problems else 0
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
