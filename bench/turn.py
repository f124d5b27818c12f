"""Per-turn latency of a rule-based bot on the SQLite store, beside the floor measured in the same run.

Floor: one bare ``transitions`` trigger plus one SQLite commit of a session row (same pragmas as
the store: WAL, synchronous=NORMAL). Target: turn p50 <= 10x the floor's p50.

    python bench/turn.py [--turns 2000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from transitions import Machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, percentile, progress, report  # noqa: E402

from dialogkit import Bot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = [
    "我上周买的手机屏幕碎了", "123456", "确认",
    "查看订单 12345 的状态",
    "my laptop arrived broken", "order 67890", "yes",
    "where is my order 24680",
    "你好", "我的包裹没收到", "不对，订单号是 12345", "算了",
]


def measure_floor(n: int, blob: str, workdir: Path) -> list[float]:
    class Model:
        state = "IDLE"

    machine = Machine(model=None, states=["IDLE", "PARAM_COLLECT"], initial="IDLE", auto_transitions=False,
                      transitions=[{"trigger": "go", "source": ["IDLE", "PARAM_COLLECT"], "dest": "PARAM_COLLECT"}])
    conn = sqlite3.connect(workdir / "floor.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, data TEXT NOT NULL)")
    samples = []
    for i in range(n):
        model = Model()
        t0 = time.perf_counter()
        machine.events["go"].trigger(model)
        conn.execute("BEGIN")
        conn.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?)", (f"s{i % 200}", blob))
        conn.execute("COMMIT")
        samples.append(time.perf_counter() - t0)
    conn.close()
    return samples


def measure_turns(n: int, workdir: Path) -> tuple[list[float], str]:
    bot = Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store=f"sqlite:///{workdir / 'turns.db'}")
    samples = []
    sessions = max(1, n // len(SCRIPT))
    for i in range(n):
        sid = f"bench-{i // len(SCRIPT) % sessions}-{i // (len(SCRIPT) * sessions)}"
        text = SCRIPT[i % len(SCRIPT)]
        t0 = time.perf_counter()
        bot.handle(sid, text)
        samples.append(time.perf_counter() - t0)
        if i % 200 == 0:
            progress("turns", i, n)
    progress("turns", n, n)
    data = bot.store.load(sid)
    blob = data.model_dump_json(exclude={"history"}) if data else json.dumps({})
    bot.close()
    return samples, blob


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2400)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        turns, blob = measure_turns(args.turns, work)
        floor = measure_floor(args.turns, blob, work)
    t50, t99 = median(turns) * 1e3, percentile(turns, 99) * 1e3
    f50, f99 = median(floor) * 1e3, percentile(floor, 99) * 1e3
    ratio = t50 / f50 if f50 else float("inf")
    lines = [
        f"turns: {len(turns)} (support bot, rule understanding, SQLite store); session row {len(blob)} bytes",
        "",
        "| | p50 ms | p99 ms |",
        "|---|---|---|",
        f"| dialogkit turn | {t50:.3f} | {t99:.3f} |",
        f"| floor (1 trigger + 1 SQLite commit) | {f50:.3f} | {f99:.3f} |",
        "",
        f"turn p50 / floor p50 = **{ratio:.1f}x** (target <= 10x)",
    ]
    report("Turn latency (bench/turn.py)", lines)
    return {"turn_p50_ms": t50, "turn_p99_ms": t99, "floor_p50_ms": f50, "ratio": ratio}


if __name__ == "__main__":
    main()
