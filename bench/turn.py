"""Per-turn latency of a rule-based bot on the SQLite store, beside the floor measured in the same run.

Floor: one bare ``transitions`` trigger plus one SQLite commit of a session row (same pragmas as
the store: WAL, synchronous=NORMAL). Target: turn p50 <= 10x the floor's p50. Both are sampled
in alternating blocks over the same stretch of time, so the ratio does not depend on what else
the machine happened to be doing during one of them.

    python bench/turn.py [--turns 2000]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from transitions import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, percentile, progress, report

from dialogkit import Bot
from dialogkit.store.codec import encode_session

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = [
    "我上周买的手机屏幕碎了", "123456", "确认",
    "查看订单 12345 的状态",
    "my laptop arrived broken", "order 67890", "yes",
    "where is my order 24680",
    "你好", "我的包裹没收到", "不对，订单号是 12345", "算了",
]


class Floor:
    """One bare ``transitions`` trigger plus one SQLite commit of the session row, per sample.

    Same pragmas as the store (WAL, synchronous=NORMAL) and the very bytes the store commits for a
    full session of the script; rows rotate over 200 ids as the bot's sessions do.
    """

    def __init__(self, blob: bytes, workdir: Path) -> None:
        class Model:
            state = "IDLE"

        self._model = Model
        self._blob = blob
        self._machine = Machine(model=None, states=["IDLE", "PARAM_COLLECT"], initial="IDLE",
                                auto_transitions=False,
                                transitions=[{"trigger": "go", "source": ["IDLE", "PARAM_COLLECT"],
                                              "dest": "PARAM_COLLECT"}])
        self._conn = sqlite3.connect(workdir / "floor.db", isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, data TEXT NOT NULL)")
        self._count = 0

    def sample(self) -> float:
        conn, self._count = self._conn, self._count + 1
        model = self._model()
        t0 = time.perf_counter()
        self._machine.events["go"].trigger(model)
        conn.execute("BEGIN")
        conn.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?)", (f"s{self._count % 200}", self._blob))
        conn.execute("COMMIT")
        return time.perf_counter() - t0

    def close(self) -> None:
        self._conn.close()


def measure(n: int, workdir: Path) -> tuple[list[float], list[float], bytes]:
    """Turns and floor samples, taken in alternating blocks of one session (12 turns, then 12
    floor samples), so a burst of noise on the machine hits both sides of the ratio alike.

    One unmeasured session first: it loads the token encoding (a second, once per process) and
    gives the floor its row.
    """
    bot = Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store=f"sqlite:///{workdir / 'turns.db'}")
    for text in SCRIPT:
        bot.handle("warm-up", text)
    data = bot.store.load("warm-up")
    blob = encode_session(data) if data else b"{}"
    floor = Floor(blob, workdir)
    turns: list[float] = []
    floors: list[float] = []
    try:
        for block in range(-(-n // len(SCRIPT))):
            for text in SCRIPT:
                t0 = time.perf_counter()
                bot.handle(f"bench-{block}", text)
                turns.append(time.perf_counter() - t0)
            floors.extend(floor.sample() for _ in SCRIPT)
            if block % 20 == 0:
                progress("turns", len(turns), n)
        progress("turns", len(turns), len(turns))
    finally:
        floor.close()
        bot.close()
    return turns, floors, blob


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2400, help="turns per run")
    parser.add_argument("--runs", type=int, default=3, help="runs, each with its own bot and floor")
    args = parser.parse_args(argv)
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(measure(args.turns, Path(tmp)))
    turns = [t for run in runs for t in run[0]]
    floor = [f for run in runs for f in run[1]]
    blob = runs[-1][2]
    t50, t99 = median(turns) * 1e3, percentile(turns, 99) * 1e3
    f50, f99 = median(floor) * 1e3, percentile(floor, 99) * 1e3
    ratios = sorted(median(t) / median(f) for t, f, _ in runs)
    tails = sorted(percentile(t, 99) / median(t) for t, _, _ in runs)
    ratio, tail = ratios[len(ratios) // 2], tails[len(tails) // 2]
    lines = [
        f"turns: {args.runs} runs of {args.turns} (support bot, rule understanding, SQLite store); "
        f"session row {len(blob)} bytes; figures below pool the runs, the ratios are the runs' medians; "
        f"load average {Path('/proc/loadavg').read_text().split()[0] if Path('/proc/loadavg').exists() else '?'}",
        "",
        "| | p50 ms | p99 ms |",
        "|---|---|---|",
        f"| dialogkit turn | {t50:.3f} | {t99:.3f} |",
        f"| floor (1 trigger + 1 SQLite commit) | {f50:.3f} | {f99:.3f} |",
        "",
        f"turn p50 / floor p50 = **{ratio:.1f}x** (target <= 10x); runs: {', '.join(f'{r:.1f}x' for r in ratios)}",
        f"tail, turn p99 / p50 = **{tail:.2f}** (target <= 3); runs: {', '.join(f'{r:.2f}' for r in tails)}",
    ]
    report("Turn latency (bench/turn.py)", lines)
    return {"turn_p50_ms": t50, "turn_p99_ms": t99, "floor_p50_ms": f50, "ratio": ratio, "tail": tail}


if __name__ == "__main__":
    main()
