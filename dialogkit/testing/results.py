"""What a conversation test leaves behind: the transcript's turns, where it stopped, and per-file results.

Plain data, below the driver, the runner and the reports, so each of them can use it without
importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialogkit.errors import Problem
from dialogkit.testing.expectations import Mismatch

__all__ = ["FileResult", "StepFailure", "TestResult", "Turn"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange of the transcript, with the state the bot reported after it."""

    index: int
    session: str
    user: str
    bot: str
    state: str | None
    flow: str | None
    slots: dict[str, Any]
    restarted: bool = False          # the bot was reloaded from the store before this turn
    reply: Any = None
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class StepFailure:
    """The step where a test stopped: its mismatches, or the error the bot raised."""

    step: int                        # 1-based; 0 when the bot could not even be loaded
    user: str
    line: int
    expect: dict[str, Any] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class TestResult:
    """The outcome of one test, with the transcript up to where it stopped."""

    __test__ = False  # not a pytest test class, despite the name

    file: Path
    name: str
    line: int
    transcript: list[Turn]
    failure: StepFailure | None = None
    duration: float = 0.0
    runs: tuple[bool, ...] = ()      # each run's outcome when the test was repeated; () for a single run
    min_pass: int = 1                # how many runs had to pass

    @property
    def outcomes(self) -> tuple[bool, ...]:
        """Each run's outcome, in order (a single run's is whether it stopped at a failure)."""
        return self.runs or (self.failure is None,)

    @property
    def passes(self) -> int:
        return sum(self.outcomes)

    @property
    def passed(self) -> bool:
        """At least ``min_pass`` runs passed; for a test run once, that it did not fail."""
        return self.passes >= self.min_pass

    @property
    def flaky(self) -> bool:
        """Some runs passed and some did not: the test's outcome depends on luck."""
        return 0 < self.passes < len(self.outcomes)


@dataclass(slots=True)
class FileResult:
    """The results of one test file; ``problems`` when the file itself did not load."""

    path: Path
    results: list[TestResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return sum(not r.passed for r in self.results) + (1 if self.problems else 0)

    @property
    def flaky(self) -> int:
        return sum(r.flaky for r in self.results)
