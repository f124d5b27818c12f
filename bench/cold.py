"""Cold start: the whole process ``dialogkit validate flows/support_ticket.yaml``, start to exit.

This is what a user waits for in an editor hook or a CI step, so it is timed as a subprocess
(interpreter start, imports, loading and checking the file, exit), not in-process. One warm-up
run first fills the OS file cache and writes the .pyc files; then the median of ``--runs`` runs
is reported, beside processes that stop after the interpreter starts and after the imports. Target:
<= 0.3 s of wall-clock time. The process's CPU time (user + system) is shown
beside it: on a busy machine the wall clock also counts waiting for a core, the CPU time does not.

    python bench/cold.py [--runs 10] [--file flows/support_ticket.yaml]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, percentile, progress, report

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.3
SECTION = "Cold start (bench/cold.py)"


def command(bot_file: Path) -> list[str]:
    """The installed console script next to this interpreter, else ``python -m dialogkit.cli``."""
    script = Path(sys.executable).with_name("dialogkit")
    if script.exists():
        return [str(script), "validate", str(bot_file)]
    return [sys.executable, "-m", "dialogkit.cli", "validate", str(bot_file)]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one process; a failing validate would time the wrong thing, so it stops the bench."""
    cpu = _children_cpu()
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ), check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return elapsed, _children_cpu() - cpu


STAGES = {
    "interpreter start": "pass",
    "+ imports of `dialogkit validate`": "import dialogkit.cli, dialogkit.cli.validate",
}
"""Processes that stop earlier, timed in the same rounds as the whole command (so machine noise hits
them alike): their differences show where the time goes."""


def timed_rounds(cmd: list[str], runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds per run of each stage and of the whole command, interleaved."""
    argvs = {label: [sys.executable, "-c", code] for label, code in STAGES.items()}
    argvs["whole command"] = cmd
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in argvs}
    for argv in argvs.values():
        run_once(argv)   # warm-up: OS cache and .pyc files
    for i in range(runs):
        for label, argv in argvs.items():
            elapsed, used = run_once(argv)
            times[label][0].append(elapsed)
            times[label][1].append(used)
        progress("cold", i + 1, runs)
    return times


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--file", type=Path, default=Path("flows/support_ticket.yaml"))
    args = parser.parse_args(argv)
    cmd = command(args.file)
    times = timed_rounds(cmd, args.runs)
    wall, cpu = times["whole command"]
    mid = median(wall)
    shown = " ".join(["dialogkit", *cmd[-2:]])
    lines = [
        f"`{shown}` as a whole process, median of {len(wall)} runs after one warm-up run "
        f"(load average {os.getloadavg()[0]:.1f} at the end)",
        "",
        "| | wall s | CPU s |",
        "|---|---|---|",
        f"| min | {min(wall):.3f} | {min(cpu):.3f} |",
        f"| median | {mid:.3f} | {median(cpu):.3f} |",
        f"| p90 | {percentile(wall, 90):.3f} | {percentile(cpu, 90):.3f} |",
        "",
        "where it goes (medians of processes stopping earlier, in the same rounds; the rest is typer's",
        "argument handling, reading and checking the file, and printing):",
        "",
        "| process | wall s | CPU s |",
        "|---|---|---|",
        *(f"| {label} | {median(w):.3f} | {median(c):.3f} |" for label, (w, c) in times.items()),
        "",
        f"median = **{mid:.3f} s** (target <= {TARGET_S} s)",
    ]
    report(SECTION, lines)
    return {"median_s": mid, "min_s": min(wall), "cpu_median_s": median(cpu)}


if __name__ == "__main__":
    main()
