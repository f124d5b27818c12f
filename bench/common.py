"""Shared helpers for the benchmarks: percentiles, a results file, a progress line."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(samples: list[float]) -> float:
    return statistics.median(samples) if samples else 0.0


def progress(label: str, done: int, total: int) -> None:
    """One overwritten status line on a terminal; nothing in a log."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{label}: {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def record(section: str, lines: list[str]) -> None:
    """Replace ``section`` in bench/RESULTS.md with ``lines`` (other sections are kept)."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    head = f"## {section}"
    parts = text.split("\n## ")
    kept = [p for p in parts[1:] if not p.startswith(section)]
    stamp = time.strftime("%Y-%m-%d %H:%M")
    body = "\n".join([head, f"_measured {stamp}_", "", *lines, ""])
    out = parts[0].rstrip() + "\n\n" + "\n\n".join(["## " + p.strip() for p in kept] + [body])
    RESULTS.write_text(out.rstrip() + "\n", encoding="utf-8")


def report(section: str, lines: list[str]) -> None:
    """Print a benchmark's figures and keep them in bench/RESULTS.md under ``section``."""
    print("\n".join(lines))
    record(section, lines)
