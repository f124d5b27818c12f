"""Prints what the fuzz tests ran: examples per outcome, and the slowest example of each suite."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from tests.fuzz.harness import HANG_SECONDS, SLOWEST, SLOWEST_EXAMPLE, TALLY


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not TALLY:
        return
    terminalreporter.section("fuzz")
    for key in sorted(TALLY):
        terminalreporter.write_line(f"{key}: {TALLY[key]}")
    for suite, took in sorted(SLOWEST.items()):
        terminalreporter.write_line(f"{suite}: slowest example {took:.2f} s (hang guard {HANG_SECONDS:.0f} s)")
        example = SLOWEST_EXAMPLE.get(suite, "")
        if example:
            saved = Path(tempfile.gettempdir()) / f"dialogkit-fuzz-slowest-{suite.replace(' ', '-')}.txt"
            saved.write_text(example, encoding="utf-8", errors="surrogatepass")
            terminalreporter.write_line(f"{suite}: slowest input ({len(example)} chars) written to {saved}")
