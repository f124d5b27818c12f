"""Understanding measured on public corpora: CamRest676 (GECOR) and CrossWOZ, replayed through bot
files written for them from the docs (examples/camrest/, examples/crosswoz/).

The corpora are not in the repository; ``--data`` names the folder holding ``camrest676/`` and
``crosswoz/`` (default: ``../shared/corpora`` beside the checkout). A missing folder or corpus is
said and skipped: the command still exits 0, with nothing measured for it.

    python bench/corpus.py [--data DIR] [--only camrest|crosswoz] [--subset N] [--dump FILE]
    python bench/corpus.py --write-floor      # the ratchet's floor: bench/corpus_floor.json

``--write-floor`` measures the ratchet's dialogues (``FLOOR_SUBSET`` of each corpus: today the whole
development portions, some 30 s) and writes the figures and missed turns that tests/bench/test_corpus_floor.py holds the code to.
Commit the new file with the change that earned it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import record
from corpus_common import Dump, Measured

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DATA = ROOT.parent / "shared" / "corpora"
FLOOR_FILE = HERE / "corpus_floor.json"
SECTION = "Corpora (bench/corpus.py)"
# corpus name on the command line -> (folder under --data, module measuring it)
CORPORA = {"camrest": ("camrest676", "corpus_camrest"), "crosswoz": ("crosswoz", "corpus_crosswoz")}
FLOOR_SUBSET = {"camrest": 540, "crosswoz": 500}   # every dialogue of both development portions
TIMING_UNITS = ("s", "ms")
TOLERANCE = 0.3                 # points a figure may fall below its floor (a turn or two of noise)

Measure = Callable[..., Measured]


def is_timing(figure: str) -> bool:
    """Timings (``bot load s``, ``turn p50 ms``) vary with the machine; the ratchet skips them."""
    return figure.rsplit(" ", 1)[-1].strip("()") in TIMING_UNITS


def measurer(name: str) -> Measure | None:
    """The corpus module's ``measure``, or None when that module is not written yet."""
    module = CORPORA[name][1]
    if not (HERE / f"{module}.py").exists():
        return None
    measure: Measure = importlib.import_module(module).measure
    return measure


def run(data: Path, names: list[str], subset: int | dict[str, int] | None = None,
        dump: Dump | None = None) -> tuple[dict[str, Measured], list[str]]:
    """Measure each named corpus found under ``data``; the second list says what was skipped and why."""
    results: dict[str, Measured] = {}
    skipped: list[str] = []
    if not data.is_dir():
        return results, [f"no corpora at {data}: nothing measured (give --data DIR)"]
    for name in names:
        folder, measure = data / CORPORA[name][0], measurer(name)
        if not folder.is_dir():
            skipped.append(f"{name}: no {folder}; not measured")
        elif measure is None:
            skipped.append(f"{name}: bench/{CORPORA[name][1]}.py is not there; not measured")
        else:
            size = subset.get(name) if isinstance(subset, dict) else subset
            results[name] = measure(folder, subset=size, dump=dump)
    return results, skipped


def lines(results: dict[str, Measured], skipped: list[str], command: str) -> list[str]:
    out = [f"`{command}`", ""]
    for measured in results.values():
        out.append(f"- **{measured.corpus}**: " + ", ".join(f"{k} {v:g}" for k, v in measured.figures.items()))
        out.extend(f"  - {note}" for note in measured.notes)
    out.extend(f"- {reason}" for reason in skipped)
    return out


def read_floor() -> dict[str, Any]:
    return dict(json.loads(FLOOR_FILE.read_text(encoding="utf-8"))) if FLOOR_FILE.exists() else {}


def floor(results: dict[str, Measured]) -> dict[str, Any]:
    """The floor file: per corpus the subset, the figures the ratchet holds, the missed turns.

    A corpus not measured this time keeps its entry."""
    new = {name: {"subset": FLOOR_SUBSET[name],
                  "figures": {k: v for k, v in m.figures.items() if not is_timing(k)},
                  "missed": sorted(m.missed)}
           for name, m in results.items()}
    return {**read_floor(), **new}


def drops(entry: dict[str, Any], measured: Measured, tolerance: float = TOLERANCE) -> list[str]:
    """What fell below the floor ``entry``: each figure down by more than ``tolerance`` points,
    then the turns missed now that the floor got right (and those it missed that pass now)."""
    fallen = [f"{name}: {measured.figures.get(name, 0.0):g} < floor {value:g} (-{value - measured.figures.get(name, 0.0):.2f} points)"
              for name, value in entry["figures"].items()
              if measured.figures.get(name, 0.0) < value - tolerance]
    if not fallen:
        return []
    before, now = set(entry["missed"]), set(measured.missed)
    return [*fallen,
            f"newly missed ({len(now - before)}): " + " ".join(sorted(now - before)),
            f"newly right ({len(before - now)}): " + " ".join(sorted(before - now))]


@contextmanager
def dump_to(path: Path | None) -> Iterator[Dump | None]:
    if path is None:
        yield None
        return
    with path.open("w", encoding="utf-8") as out:
        yield _writer(out)


def _writer(out: TextIO) -> Dump:
    def write(miss: dict[str, Any]) -> None:
        out.write(json.dumps(miss, ensure_ascii=False) + "\n")
    return write


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/corpus.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder holding camrest676/ and crosswoz/ (default: %(default)s)")
    parser.add_argument("--only", choices=sorted(CORPORA), help="measure this corpus only")
    parser.add_argument("--subset", type=int, metavar="N", help="the first N dialogues of each corpus")
    parser.add_argument("--dump", type=Path, metavar="FILE",
                        help="write every miss, one JSON line per turn (dialogue, turn, text, gold, predicted, measure)")
    parser.add_argument("--write-floor", action="store_true",
                        help=f"measure the ratchet's subset {FLOOR_SUBSET} and write {FLOOR_FILE.name}")
    args = parser.parse_args(argv)
    if args.subset is not None and args.subset < 1:
        parser.error("--subset takes a number of dialogues, 1 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    from dialogkit.logging import configure_logging

    configure_logging(level="ERROR", force=True)     # a replayed action's warnings are no figures
    names = [args.only] if args.only else list(CORPORA)
    subset: int | dict[str, int] | None = FLOOR_SUBSET if args.write_floor else args.subset
    with dump_to(args.dump) as dump:
        results, skipped = run(args.data, names, subset, dump)
    for reason in skipped:
        print(reason)
    if not results:
        return 0
    command = "python bench/corpus.py " + " ".join(argv if argv is not None else sys.argv[1:])
    report = lines(results, skipped, command.strip())
    print("\n".join(report))
    if args.write_floor:
        FLOOR_FILE.write_text(json.dumps(floor(results), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"floor written to {FLOOR_FILE}")
    elif args.subset is None and args.only is None:
        record(SECTION, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
