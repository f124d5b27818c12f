"""Cold start: the whole process ``dialogkit validate flows/support_ticket.yaml``, start to exit.

This is what a user waits for in an editor hook or a CI step, so it is timed as a subprocess
(interpreter start, imports, loading and checking the file, exit), not in-process. Target: <= 0.3 s
of wall-clock time, median of ``--runs`` runs after one warm-up run that fills the OS file cache.

Two conditions are timed in the same rounds, whatever the caller's environment says:

- bytecode cached, as a user has it (pip writes the .pyc files at install; a checkout writes them
  on first run): the warm-up run writes them under a temporary ``PYTHONPYCACHEPREFIX``. This is
  the figure against the target;
- compiled from source on every run (``PYTHONDONTWRITEBYTECODE=1`` and no cache: what a sandbox
  that forbids writing bytecode gets), shown beside it.

Processes that stop after the interpreter starts and after the imports are timed in the same
rounds too, so the differences show where the time goes. CPU time (user + system) is shown beside
the wall clock: on a busy machine the wall clock also counts waiting for a core, CPU time does not.

    python bench/cold.py [--runs 10] [--file flows/support_ticket.yaml]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, percentile, progress, report

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.3
SECTION = "Cold start (bench/cold.py)"
CACHED = "whole command, bytecode cached"
FROM_SOURCE = "whole command, compiled from source"


def command(bot_file: Path) -> list[str]:
    """The installed console script next to this interpreter, else ``python -m dialogkit.cli``."""
    script = Path(sys.executable).with_name("dialogkit")
    if script.exists():
        return [str(script), "validate", str(bot_file)]
    return [sys.executable, "-m", "dialogkit.cli", "validate", str(bot_file)]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one process; a failing validate would time the wrong thing, so it stops the bench."""
    cpu = _children_cpu()
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return elapsed, _children_cpu() - cpu


def environments(cache: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(bytecode written to and read from ``cache``, bytecode never written nor read for dialogkit)."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {**base, "PYTHONPYCACHEPREFIX": str(cache)}, {**base, "PYTHONDONTWRITEBYTECODE": "1"}


def timed_rounds(cmd: list[str], runs: int, cache: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds per run of each stage and of the whole command in both conditions, interleaved."""
    cached, from_source = environments(cache)
    jobs = {label: ([sys.executable, "-c", code], cached) for label, code in STAGES.items()}
    jobs[CACHED] = (cmd, cached)
    jobs[FROM_SOURCE] = (cmd, from_source)
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in jobs}
    for argv, env in jobs.values():
        run_once(argv, env)   # warm-up: OS cache, and the .pyc files where they may be written
    for i in range(runs):
        for label, (argv, env) in jobs.items():
            elapsed, used = run_once(argv, env)
            times[label][0].append(elapsed)
            times[label][1].append(used)
        progress("cold", i + 1, runs)
    return times


STAGES = {
    "interpreter start": "pass",
    "+ imports of `dialogkit validate`": "import dialogkit.cli, dialogkit.cli.validate",
}
"""Processes that stop earlier, timed in the same rounds as the whole command (so machine noise hits
them alike), with the bytecode cached: their differences show where the time goes."""


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--file", type=Path, default=Path("flows/support_ticket.yaml"))
    args = parser.parse_args(argv)
    cmd = command(args.file)
    with tempfile.TemporaryDirectory(prefix="dialogkit-pyc-") as cache:
        times = timed_rounds(cmd, args.runs, Path(cache))
    wall, cpu = times[CACHED]
    mid, source = median(wall), median(times[FROM_SOURCE][0])
    shown = " ".join(["dialogkit", *cmd[-2:]])
    lines = [
        f"`{shown}` as a whole process, bytecode cached, median of {len(wall)} runs after one warm-up run "
        f"(load average {os.getloadavg()[0]:.1f} at the end)",
        "",
        "| | wall s | CPU s |",
        "|---|---|---|",
        f"| min | {min(wall):.3f} | {min(cpu):.3f} |",
        f"| median | {mid:.3f} | {median(cpu):.3f} |",
        f"| p90 | {percentile(wall, 90):.3f} | {percentile(cpu, 90):.3f} |",
        "",
        "where it goes (medians, same rounds; after the imports come typer's argument handling, reading",
        "and checking the file, and printing; compiled from source = `PYTHONDONTWRITEBYTECODE=1`):",
        "",
        "| process | wall s | CPU s |",
        "|---|---|---|",
        *(f"| {label} | {median(w):.3f} | {median(c):.3f} |" for label, (w, c) in times.items()),
        "",
        f"median = **{mid:.3f} s** (target <= {TARGET_S} s); {source:.3f} s compiling dialogkit from source",
    ]
    report(SECTION, lines)
    return {"median_s": mid, "min_s": min(wall), "cpu_median_s": median(cpu), "from_source_median_s": source}


if __name__ == "__main__":
    main()
