"""Catalogue-scale entities: load time and turn time of a bot whose `product` type has N values.

Each value has one Latin and one Chinese alias (made-up words, all different). The bot is
written to a temporary folder in two forms: the values inline in the bot file, and the values in
a CSV file beside it (`values_file:`). Each size and form runs in a fresh process, so load time,
first turn and RSS are a cold process's: the load is `Bot.from_file` (imports excluded) with the
build cache off, the first turn is the first `bot.handle` after it, and the turns are `--turns`
more of a three-turn order conversation alternating zh and en. The cached load is that of a
further fresh process once another one has written the bot's cache entry (docs/bot-file.md). Targets: 50,000 values load in <= 1 s and the turn p50
at 50,000 is at most 1.3x the one at 10. `dialogkit simulate` then runs on the bot (values file)
at --sim-sizes, and its conversations a second are reported (target: 50 at 10,000 values).

Inline values stop at the bot file's limits on its size (a YAML file of 50,000 values is
refused); a catalogue that big belongs in a values file.

    python bench/vocab.py [--sizes 10,1000,10000,50000] [--forms file,inline] [--turns 600] [--runs 1]
                          [--sim-sizes 10,10000] [--sim-conversations 200] [--no-record]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, percentile, report

SECTION = "Catalogue-scale entities (bench/vocab.py)"
TARGET_LOAD_S = 1.0
TARGET_RATIO = 1.3
TARGET_SIM = 50.0
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]          # 70
_HAN = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥鼠牛虎兔龙蛇马羊猴鸡狗猪琴棋书画梅兰竹菊松柏桃李杏"  # 52


def _spelled(i: int, alphabet: list[str] | str, length: int) -> str:
    """``i`` written with ``length`` digits of ``alphabet``: different for every i below len**length."""
    digits = []
    for _ in range(length):
        i, digit = divmod(i, len(alphabet))
        digits.append(alphabet[digit])
    return "".join(digits)


def latin_alias(i: int) -> str:
    """A made-up word of four syllables."""
    return _spelled(i, _SYLLABLES, 4)


def chinese_alias(i: int) -> str:
    """Three Han characters."""
    return _spelled(i, _HAN, 3)


FLOW = """\
flows:
  order:
    description: 下单购买商品 / Order a product
    trigger:
      examples: [我想买东西, 我要下单, I want to order something, I would like to buy]
      keywords: [买, 下单, buy, order]
    slots:
      - name: product
        entity: product
        ask: {zh: 您要买哪件商品？, en: Which product would you like?}
      - name: quantity
        entity: integer
        ask: {zh: 要几件？, en: How many?}
    confirm:
      ask: {zh: "确认购买 {quantity} 件 {product} 吗？", en: "Order {quantity} of {product}?"}
    execute:
      action: place_order
      say: {zh: "已下单 {order_id}。", en: "Order {order_id} placed."}
"""


def write_bot(folder: Path, size: int, form: str) -> Path:
    """The bot file (and its values file) for ``size`` values, in ``form`` inline or file."""
    head = "bot:\n  name: vocab\nentities:\n  product:\n    kind: thing\n"
    if form == "file":
        with (folder / "products.csv").open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["value", "aliases", "zh", "en"])
            for i in range(size):
                writer.writerow([f"p{i}", f"{latin_alias(i)}|{chinese_alias(i)}", chinese_alias(i), latin_alias(i)])
        body = "    values_file: products.csv\n"
    else:
        body = "    values:\n" + "".join(f"      p{i}: [{latin_alias(i)}, {chinese_alias(i)}]\n" for i in range(size))
    path = folder / "vocab.yaml"
    path.write_text(head + body + FLOW, encoding="utf-8")
    return path


def conversation(i: int) -> list[str]:
    """One order, in zh for even i and en for odd i, naming a value spread over the catalogue."""
    return [f"我想买{chinese_alias(i)}", "2", "确认"] if i % 2 == 0 else [f"I want to buy {latin_alias(i)}", "2", "yes"]


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure_cached(path: Path) -> dict[str, object]:
    """Runs in the child process: the load of a bot whose cache entry is written (``prime``) or
    read back (this), and that the bot understands its first turn."""
    from dialogkit import Bot

    started = time.perf_counter()
    bot = Bot.from_file(path, store="memory://", actions={"place_order": {"order_id": "A1"}})
    load = time.perf_counter() - started
    assert bot.handle("first", conversation(0)[0]).slots.get("product") == "p0"
    return {"cached_s": load}


def measure_one(size: int, form: str, turns: int, folder: Path) -> dict[str, object]:
    """Runs in the child process: load (cache off), first turn, then ``turns`` timed turns."""
    from dialogkit import Bot, FlowError

    path = write_bot(folder, size, form)
    started = time.perf_counter()
    try:
        bot = Bot.from_file(path, store="memory://", actions={"place_order": {"order_id": "A1"}}, cache=False)
    except FlowError as error:
        return {"size": size, "form": form, "refused": str(error.problems[0].message)}
    load = time.perf_counter() - started
    started = time.perf_counter()
    first = bot.handle("first", conversation(0)[0])
    first_turn = time.perf_counter() - started
    assert first.slots.get("product") == "p0", first.slots
    samples: list[float] = []
    done = 0
    while len(samples) < turns:
        lines = conversation(done * 7919 % size)
        for line in lines:
            started = time.perf_counter()
            bot.handle(f"s{done}", line)
            samples.append(time.perf_counter() - started)
        done += 1
    bot.close()
    return {"size": size, "form": form, "load_s": load, "first_ms": first_turn * 1e3,
            "p50_ms": median(samples) * 1e3, "p99_ms": percentile(samples, 99) * 1e3, "rss_mb": rss_mb()}


def run_child(size: int, form: str, turns: int, folder: str, mode: str = "cold") -> dict[str, object]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", f"{size}:{form}:{mode}", "--turns", str(turns),
            "--folder", folder]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stderr}")
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def measure(size: int, form: str, turns: int) -> dict[str, object]:
    """A cold process's figures, then (if the bot loads) the load of one reading the cache entry
    a second process wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        row = run_child(size, form, turns, tmp)
        if "refused" not in row:
            run_child(size, form, turns, tmp, "prime")
            row.update(run_child(size, form, turns, tmp, "cached"))
    return row


def simulated(size: int, conversations: int) -> float:
    """``dialogkit simulate`` on the bot of ``size`` values (values file): conversations a second,
    as the command reports them (its own clock, loading excluded)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_bot(Path(tmp), size, "file")
        argv = [sys.executable, "-m", "dialogkit.cli", "simulate", str(path), "-n", str(conversations)]
        result = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=tmp)
    found = re.search(r"\(([\d.]+) conversations/s", result.stdout)
    if found is None:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return float(found.group(1))


def table(rows: list[dict[str, object]]) -> list[str]:
    lines = ["| values | form | load s | cached load s | first turn ms | turn p50 ms | turn p99 ms | RSS MB |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "refused" in row:
            lines.append(f"| {row['size']:,} | {row['form']} | refused: {row['refused']} | | | | | |")
            continue
        lines.append(f"| {row['size']:,} | {row['form']} | {row['load_s']:.3f} | {row['cached_s']:.3f} | {row['first_ms']:.1f} | "
                     f"{row['p50_ms']:.3f} | {row['p99_ms']:.3f} | {row['rss_mb']:.0f} |")
    return lines


def verdicts(runs: list[list[dict[str, object]]], sizes: list[int]) -> list[str]:
    """The two targets per form, over the runs: the largest size's load, and p50 largest / smallest."""
    lines: list[str] = []
    small, large = min(sizes), max(sizes)
    for form in dict.fromkeys(str(r["form"]) for rows in runs for r in rows):
        loads, cached, ratios = [], [], []
        for rows in runs:
            by_size = {r["size"]: r for r in rows if r["form"] == form and "refused" not in r}
            if large in by_size and small in by_size:
                loads.append(float(by_size[large]["load_s"]))  # type: ignore[arg-type]
                cached.append(float(by_size[large]["cached_s"]))  # type: ignore[arg-type]
                ratios.append(float(by_size[large]["p50_ms"]) / float(by_size[small]["p50_ms"]))  # type: ignore[arg-type]
        if loads:
            lines.append(f"- {form}: load at {large:,} values = **{median(loads):.3f} s** (target <= {TARGET_LOAD_S} s); "
                         f"runs: {', '.join(f'{x:.3f}' for x in loads)}")
            lines.append(f"- {form}: load at {large:,} values from the build cache = **{median(cached):.3f} s** "
                         f"(target <= {TARGET_LOAD_S} s); runs: {', '.join(f'{x:.3f}' for x in cached)}")
            lines.append(f"- {form}: turn p50 at {large:,} / at {small:,} = **{median(ratios):.2f}x** "
                         f"(target <= {TARGET_RATIO}x); runs: {', '.join(f'{x:.2f}' for x in ratios)}")
    return lines


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,10000,50000", help="comma-separated numbers of values")
    parser.add_argument("--forms", default="file,inline", help="file (values_file: CSV), inline (values: in YAML)")
    parser.add_argument("--turns", type=int, default=600, help="timed turns per size, after the first")
    parser.add_argument("--runs", type=int, default=1, help="repeat every size and form this often")
    parser.add_argument("--sim-sizes", default="10,10000", help="sizes to run dialogkit simulate on ('' for none)")
    parser.add_argument("--sim-conversations", type=int, default=200, help="conversations per simulate run")
    parser.add_argument("--no-record", action="store_true", help="print only; leave bench/RESULTS.md alone")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        size, form, mode = args.child.split(":")
        folder = Path(args.folder)
        found = measure_one(int(size), form, args.turns, folder) if mode == "cold" else measure_cached(folder / "vocab.yaml")
        print(json.dumps(found))
        return {}
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    forms = [f.strip() for f in args.forms.split(",")]
    sim_sizes = [int(s.replace("_", "")) for s in args.sim_sizes.split(",") if s.strip()]
    runs: list[list[dict[str, object]]] = []
    sims: dict[int, list[float]] = {size: [] for size in sim_sizes}
    for run in range(args.runs):
        rows = []
        for form in forms:
            for size in sizes:
                print(f"run {run + 1}/{args.runs}: {size:,} values, {form}", file=sys.stderr, flush=True)
                rows.append(measure(size, form, args.turns))
        runs.append(rows)
        for size in sim_sizes:
            print(f"run {run + 1}/{args.runs}: simulate, {size:,} values", file=sys.stderr, flush=True)
            sims[size].append(simulated(size, args.sim_conversations))
    lines = [f"a `product` type of N values (one Latin and one Chinese alias each), a fresh process per size; "
             f"{args.turns} turns after the first; {args.runs} run(s); load average {os.getloadavg()[0]:.2f}"
             f"{f'; niceness {os.nice(0)}' if os.nice(0) else ''}", ""]
    for index, rows in enumerate(runs):
        lines += [f"run {index + 1}:", "", *table(rows), ""]
    lines += verdicts(runs, sizes)
    for size, rates in sims.items():
        lines.append(f"- dialogkit simulate -n {args.sim_conversations}, {size:,} values: **{median(rates):.1f} "
                     f"conversations/s** (target >= {TARGET_SIM:.0f} at 10,000); runs: {', '.join(f'{r:.1f}' for r in rates)}")
    if args.no_record:
        print("\n".join(lines))
    else:
        report(SECTION, lines)
    return {"runs": runs}


if __name__ == "__main__":
    main()
