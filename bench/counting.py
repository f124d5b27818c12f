"""Token-count throughput of the context window's counter vs raw ``tiktoken`` encoding.

Both count the same corpus (zh and en messages, each distinct, so the counter's cache never
answers): the counter through ``count_message`` (its adapter, role overhead and cache upkeep
included), the baseline through ``len(encoding.encode_ordinary(text))`` on the very encoding the
counter uses. Target: counter throughput >= 0.8x raw tiktoken.

    python bench/counting.py [--messages 4000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, report

from dialogkit.context.tokens import TokenCounter

TARGET_RATIO = 0.8
TEXTS = [
    "我上周买的手机屏幕碎了，订单号是{n}，希望尽快帮我处理一下，谢谢。",
    "My laptop arrived broken, the order number is {n}; could you open a ticket for me please?",
    "查看订单 {n} 的状态，顺便问一下这周末能不能送到，我下周要出差。",
    "Where is my order {n}? It has been more than a week and the tracking page has not changed.",
]


def corpus(n: int) -> list[str]:
    return [TEXTS[i % len(TEXTS)].format(n=100_000 + i) * (1 + i % 3) for i in range(n)]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    texts = corpus(args.messages)
    probe = TokenCounter("gpt-4o-mini")
    encoding_name = probe.encoding_name
    raw_encode = None
    if not probe.is_estimate:
        import tiktoken

        raw_encode = tiktoken.get_encoding(encoding_name).encode_ordinary
    counter_s: list[float] = []
    raw_s: list[float] = []
    tokens = 0
    for _ in range(args.rounds):
        counter = TokenCounter("gpt-4o-mini", cache_size=len(texts) + 1)   # fresh: every count is a miss
        t0 = time.perf_counter()
        for text in texts:
            counter.count_message("user", text)
        counter_s.append(time.perf_counter() - t0)
        if raw_encode is not None:
            t0 = time.perf_counter()
            tokens = sum(len(raw_encode(text)) for text in texts)
            raw_s.append(time.perf_counter() - t0)
    counter_rate = len(texts) / median(counter_s)
    if raw_encode is None:
        lines = [f"encoding: {encoding_name} (no tiktoken encoding offline: nothing to compare with)",
                 f"counter: {counter_rate:,.0f} messages/s"]
        report("Token counting (bench/counting.py)", lines)
        return {"counter_rate": counter_rate, "ratio": float("nan")}
    raw_rate = len(texts) / median(raw_s)
    ratio = counter_rate / raw_rate
    lines = [
        f"{len(texts)} distinct zh/en messages ({tokens:,} tokens), encoding {encoding_name}, "
        f"median of {args.rounds} rounds; cache cold for the counter",
        "",
        "| | messages/s |",
        "|---|---|",
        f"| TokenCounter.count_message | {counter_rate:,.0f} |",
        f"| tiktoken encode_ordinary | {raw_rate:,.0f} |",
        "",
        f"counter / raw = **{ratio:.2f}x** (target >= {TARGET_RATIO}x)",
    ]
    report("Token counting (bench/counting.py)", lines)
    return {"counter_rate": counter_rate, "raw_rate": raw_rate, "ratio": ratio}


if __name__ == "__main__":
    main()
