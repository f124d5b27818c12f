"""Token savings of the context window over 100 rounds of ~200 tokens, zh and en mixed.

Drives the shipped support bot (rule understanding, in-memory store) through tasks of both
flows whose long user messages carry the slot values, and sums over turns:

- sent: the built context's ``sent_tokens`` (what an LLM would receive for that turn);
- full: the same context's ``full_tokens`` (sending the whole history instead).

It prints the sent tokens per part of the window (system prompt, flow state, ticket summary,
entity memory, recent rounds, round summaries, current message) so a regression shows where.

Target: >= 92% saved, with the bot's own ``context:`` settings. Every value of a task that reached
CONFIRMATION or EXECUTION must still be in the final context (as its canonical value or a label):
the bench fails when one is missing.

    python bench/savings.py [--rounds 100] [--bot flows/support_ticket.yaml]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import progress, report

from dialogkit import Bot
from dialogkit.context.tokens import REPLY_PRIMING_TOKENS

ROOT = Path(__file__).resolve().parent.parent
TARGET_PCT = 92.0

FILLER = {
    "zh": [
        "我是你们店的老顾客了，平时经常在这里给家里人买礼物，也推荐过好几个朋友来买东西",
        "这次的情况让我有点着急，因为下周我要去外地出差，希望能在周末之前把事情处理妥当",
        "客服之前的态度一直很好，所以我相信这次也能顺利解决，麻烦你们多费心帮我看一看",
        "包装盒子我都还留着，说明书和配件也都在，如果需要寄回去的话我随时可以安排快递上门",
        "另外我想顺便说一下，你们的网站最近改版以后找东西方便多了，页面也比以前清楚",
        "家里老人也在用你们家的东西，他们一直说质量不错，所以这次遇到问题我也挺意外的",
    ],
    "en": [
        "I have been a loyal customer of your shop for several years and I often buy gifts here for my family and friends",
        "the timing is a little stressful for me because I am travelling next week and would like to sort this out before the weekend",
        "your support team has always been kind and patient with me so I am confident we can settle this quickly together",
        "I still have the original box, the manual and all the accessories, so sending it back would be easy if that is needed",
        "by the way the new version of your website is much easier to use and I found my purchase history in seconds",
        "my parents also use products from your shop and they are usually very happy with the quality, so this surprised me",
    ],
}
REPORT = {"zh": "我上周买的{product}{issue}", "en": "my {product} {issue}"}
ORDER = {"zh": "订单号是{order_id}，", "en": "The order number is {order_id}, "}
STATUS = {"zh": "查看订单 {order_id} 的状态", "en": "where is my order {order_id}"}
LONG = {"zh": 6, "en": 11}
"""Filler sentences per long message: about 280 tokens in either language."""
PRODUCTS = {"zh": ["手机", "笔记本", "耳机", "平板"], "en": ["phone", "laptop", "headphones", "tablet"]}
ISSUES = {"zh": ["屏幕碎了", "没收到"], "en": ["arrived broken", "never arrived"]}
CONFIRM = {"zh": "确认", "en": "yes"}


def filler(language: str, i: int, sentences: int) -> str:
    parts = FILLER[language]
    chosen = [parts[(i + k) % len(parts)] for k in range(sentences)]
    return ("，".join(chosen) + "。") if language == "zh" else (", and ".join(chosen) + ".")


def script(rounds: int) -> list[str]:
    """Cycles of six rounds, alternating languages: a report (its order number in a long message),
    its confirmation, a status check, and two long messages of plain conversation.

    Requests are short and the long messages answer the bot's question: rule understanding reads
    a request's intent from the share of the message the flow's vocabulary explains.
    """
    out: list[str] = []
    cycle = 0
    while len(out) < rounds:
        lang = "zh" if cycle % 2 == 0 else "en"
        order, other = str(10_000 + 7_919 * cycle), str(500_000 + 3_571 * cycle)
        product, issue = PRODUCTS[lang][cycle % 4], ISSUES[lang][cycle % 2]
        out.append(REPORT[lang].format(product=product, issue=issue))
        out.append(ORDER[lang].format(order_id=order) + filler(lang, cycle, LONG[lang]))
        out.append(CONFIRM[lang])
        out.append(STATUS[lang].format(order_id=other))
        out.append(filler(lang, cycle + 2, LONG[lang]))
        out.append(filler(lang, cycle + 4, LONG[lang]))
        cycle += 1
    return out[:rounds]


def labels(bot: Bot, flow: str, slots: dict[str, Any]) -> dict[str, set[str]]:
    """slot value -> the forms it may take in the context (canonical value, labels per language)."""
    spec = bot.spec.flows[flow]
    out: dict[str, set[str]] = {}
    for name, value in slots.items():
        slot = spec.slot(name)
        if slot is None or slot.sensitive or value is None:
            continue
        forms = {str(value)} | {bot.texts.value_label(slot, value, lang) for lang in ("zh", "en")}
        out[f"{flow}.{name}={value}"] = forms
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--bot", default=str(ROOT / "flows" / "support_ticket.yaml"))
    args = parser.parse_args(argv)
    stubs = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
    bot = Bot.from_file(args.bot, store="memory://", actions=stubs)
    sid = "savings"
    sent = full = user_tokens = 0
    parts: dict[str, int] = {}
    confirmed: dict[str, set[str]] = {}
    states: dict[str, int] = {}
    started = time.perf_counter()
    turns = script(args.rounds)
    for i, text in enumerate(turns):
        reply = bot.handle(sid, text)
        user_tokens += bot.view.counter.count_message("user", text)
        built = bot.build_context(sid)
        sent += built.sent_tokens
        full += built.full_tokens
        for part, tokens in built.breakdown.items():
            parts[part] = parts.get(part, 0) + tokens
        states[reply.state] = states.get(reply.state, 0) + 1
        if reply.state in ("CONFIRMATION", "EXECUTION") and reply.flow:
            confirmed.update(labels(bot, reply.flow, reply.slots))
        for run in reply.actions:
            flow = reply.flow or (next(n for n, f in bot.spec.flows.items() if f.execute.action == run.name))
            confirmed.update(labels(bot, flow, run.inputs))
        progress("rounds", i + 1, len(turns))
    seconds = time.perf_counter() - started
    final = bot.build_context(sid)
    text = "\n".join(m.content for m in final.messages)
    missing = sorted(key for key, forms in confirmed.items() if not any(f and f in text for f in forms))
    bot.close()
    saved = full - sent
    pct = 100.0 * saved / full if full else 0.0
    # What no compression of the other parts can beat: the pinned parts, the verbatim rounds, the priming.
    floor = sum(parts.get(p, 0) for p in ("system", "recent", "current")) + REPLY_PRIMING_TOKENS * len(turns)
    ceiling = 100.0 * (full - floor) / full if full else 0.0
    lines = [
        f"rounds: {len(turns)} (support bot, zh/en alternating tasks; user messages avg "
        f"{user_tokens / max(len(turns), 1):.0f} tokens, encoding {final.encoding}), {seconds:.1f} s",
        f"context: budget {final.budget}, keep_recent_rounds {bot.spec.context.effective_keep_recent_rounds}",
        "",
        "| | tokens |",
        "|---|---|",
        f"| full history, summed over turns | {full:,} |",
        f"| sent (built context), summed over turns | {sent:,} |",
        f"| saved | {saved:,} (**{pct:.1f}%**, target >= {TARGET_PCT:.0f}%) |",
        f"| last turn: full / sent | {final.full_tokens:,} / {final.sent_tokens:,} |",
        f"| ceiling: system prompt + verbatim rounds + current message only | {floor:,} ({ceiling:.1f}% saved) |",
        "",
        "sent per part (average per turn / last turn; the rest is the reply priming):",
        "",
        "| part | avg tokens | last turn |",
        "|---|---|---|",
        *(f"| {part} | {tokens / max(len(turns), 1):.0f} | {final.breakdown.get(part, 0)} |"
          for part, tokens in sorted(parts.items(), key=lambda kv: -kv[1])),
        "",
        f"confirmed slot values still in the final context: **{'yes' if not missing else 'no'}** "
        f"({len(confirmed) - len(missing)}/{len(confirmed)})" + (f"; missing: {', '.join(missing)}" if missing else ""),
    ]
    report("Context savings (bench/savings.py)", lines)
    if missing:     # a saving that loses what the user confirmed is no saving
        raise SystemExit(f"confirmed slot values missing from the final context: {', '.join(missing)}")
    return {"saved_pct": pct, "sent": sent, "full": full, "missing": missing, "states": states, "parts": parts}


if __name__ == "__main__":
    main()
