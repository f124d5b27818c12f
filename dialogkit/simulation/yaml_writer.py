"""A violation written as a conversation test (docs/testing.md): the minimal conversation's
turns, with the step that broke the behaviour expecting the correct one.

The file fails while the defect is there and passes once it is fixed; ``dialogkit test`` and
pytest run it like any other conversation test. Text is written as JSON-style double-quoted
YAML scalars, so "yes", "no" and "0123" reach the bot exactly as the simulator typed them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dialogkit.simulation.harness import Violation


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _flow_map(values: Mapping[str, Any]) -> str:
    """A one-line YAML mapping, nested mappings included: ``{slots: {order_id: "12345"}}``."""
    items = []
    for key, value in values.items():
        rendered = _flow_map(value) if isinstance(value, Mapping) else _scalar(value)
        items.append(f"{key}: {rendered}")
    return "{" + ", ".join(items) + "}"


def test_lines(violation: Violation) -> list[str]:
    """One test: each turn's text, the last one with the expectation the violation broke."""
    name = f"{violation.key}: {violation.invariant.title}"
    lines = [f"  - name: {_scalar(name)}", f"    # {violation.finding.message}", "    steps:"]
    for turn in violation.turns:
        lines.append(f"      - user: {_scalar(turn.utterance.text)}")
    if violation.finding.expect and violation.turns:
        lines.append(f"        expect: {_flow_map(violation.finding.expect)}")
    return lines


def conversation_test(violations: list[Violation], bot_path: Path, directory: Path,
                      stubs: Mapping[str, Mapping[str, Any]], header: str) -> str:
    """The text of a test file holding one test per violation."""
    bot = Path(os.path.relpath(bot_path.resolve(), directory.resolve())).as_posix()
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines += [f"bot: {_scalar(bot)}"]
    if stubs:
        lines.append("actions:")
        lines += [f"  {name}: {_flow_map(values)}" for name, values in stubs.items()]
    lines.append("tests:")
    for violation in violations:
        lines += test_lines(violation)
    return "\n".join(lines) + "\n"


def write_conversation_test(violations: list[Violation], bot_path: Path, directory: Path,
                            stubs: Mapping[str, Mapping[str, Any]], bot_name: str, header: str) -> Path:
    """Write ``test_simulated_<bot>.yaml`` in ``directory`` (created if missing); returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"test_simulated_{bot_name}.yaml"
    path.write_text(conversation_test(violations, bot_path, directory, stubs, header), encoding="utf-8")
    return path
