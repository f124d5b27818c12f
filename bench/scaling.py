"""Does a turn cost the same at 2,000 stored messages as at 20? (SQLite store, same run.)

Two sessions of the support bot are filled to 20 and to 2,000 stored messages (10 and 1,000
rounds); then one more turn plus ``bot.context()`` is timed on each, alternating, many times.
Every timed turn adds two messages, so the sizes drift by at most 2 per rep. Target: the median
at 2,000 is at most 1.5x the median at 20.

    python bench/scaling.py [--reps 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, progress, report

from dialogkit import Bot

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.5
SCRIPT = [
    "我上周买的手机屏幕碎了", "123456", "确认", "查看订单 12345 的状态", "谢谢，顺便问一下周末发货吗",
    "my laptop arrived broken", "order 67890", "yes", "where is my order 24680", "thanks, that helps a lot",
]
PROBE = ["查看订单 12345 的状态", "where is my order 24680"]


def fill(bot: Bot, sid: str, messages: int) -> None:
    rounds = messages // 2
    for i in range(rounds):
        bot.handle(sid, SCRIPT[i % len(SCRIPT)])
        if i % 50 == 0:
            progress(f"filling {sid}", i, rounds)
    progress(f"filling {sid}", rounds, rounds)


def one(bot: Bot, sid: str, text: str) -> float:
    t0 = time.perf_counter()
    bot.handle(sid, text)
    bot.context(sid)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--large", type=int, default=2000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        bot = Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store=f"sqlite:///{Path(tmp) / 'scaling.db'}")
        fill(bot, "small", args.small)
        fill(bot, "large", args.large)
        stored = {sid: len(bot.session(sid).history) for sid in ("small", "large")}
        for _ in range(10):  # warm both paths (caches, SQLite pages)
            one(bot, "small", PROBE[0])
            one(bot, "large", PROBE[0])
        small: list[float] = []
        large: list[float] = []
        for i in range(args.reps):
            text = PROBE[i % len(PROBE)]
            order = (("small", small), ("large", large)) if i % 2 == 0 else (("large", large), ("small", small))
            for sid, samples in order:
                samples.append(one(bot, sid, text))
            progress("reps", i + 1, args.reps)
        bot.close()
    s50, l50 = median(small) * 1e3, median(large) * 1e3
    ratio = l50 / s50 if s50 else float("inf")
    lines = [
        f"support bot, SQLite store; sessions holding {stored['small']} and {stored['large']} messages; "
        f"median of {args.reps} reps of one turn + bot.context()",
        "",
        "| stored messages | median ms |",
        "|---|---|",
        f"| {stored['small']} | {s50:.3f} |",
        f"| {stored['large']} | {l50:.3f} |",
        "",
        f"ratio = **{ratio:.2f}x** (target <= {TARGET_RATIO}x)",
    ]
    report("Scaling with history length (bench/scaling.py)", lines)
    return {"small_ms": s50, "large_ms": l50, "ratio": ratio}


if __name__ == "__main__":
    main()
