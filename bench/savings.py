"""Token savings of the context window over 100 rounds of ~200 tokens, zh and en mixed.

Drives the shipped support bot (rule understanding, in-memory store) through tasks of both
flows whose long user messages carry the slot values, and sums over turns:

- sent: the built context's ``sent_tokens`` (what an LLM would receive for that turn);
- full: the same context's ``full_tokens`` (sending the whole history instead).

It prints the sent tokens per part of the window (system prompt, flow state, ticket summary,
entity memory, recent rounds, round summaries, current message) so a regression shows where, and
the ceiling: what would be saved sending only the system prompt, the verbatim rounds and the
current message, which no compression of the other parts can beat. The same conversation then
runs with 1, 2 and 3 recent rounds, each word for word and without filler (copies of the bot file
differing only in ``keep_recent_rounds`` and ``drop_filler``), so the price of each round and of
its filler shows in the same run.

Target: >= 92% saved, with the bot's own ``context:`` settings (three recent rounds, without filler). Every value of a task that reached
CONFIRMATION or EXECUTION must still be in the final context (as its canonical value or a label):
the bench fails when one is missing.

    python bench/savings.py [--rounds 100] [--bot flows/support_ticket.yaml]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import progress, report

from dialogkit import Bot
from dialogkit.context.parts import BuiltContext
from dialogkit.context.tokens import REPLY_PRIMING_TOKENS

ROOT = Path(__file__).resolve().parent.parent
TARGET_PCT = 92.0
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}

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


@dataclass
class Run:
    """One bot driven through the script: totals over turns, per part, and the final context."""

    keep: int
    drop_filler: bool
    turns: int
    seconds: float = 0.0
    sent: int = 0
    full: int = 0
    user_tokens: int = 0
    parts: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, set[str]] = field(default_factory=dict)
    states: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    final: BuiltContext = field(init=False)

    @property
    def pct(self) -> float:
        return 100.0 * (self.full - self.sent) / self.full if self.full else 0.0

    @property
    def floor(self) -> int:
        """What no compression of the other parts can beat: the pinned parts, the verbatim rounds, the priming."""
        return sum(self.parts.get(p, 0) for p in ("system", "recent", "current")) + REPLY_PRIMING_TOKENS * self.turns

    @property
    def ceiling(self) -> float:
        return 100.0 * (self.full - self.floor) / self.full if self.full else 0.0


def drive(bot_file: Path, rounds: int) -> Run:
    """Run the script through a fresh bot, building the context after every turn."""
    bot = Bot.from_file(bot_file, store="memory://", actions=STUBS)
    turns = script(rounds)
    started = time.perf_counter()
    run = Run(bot.spec.context.effective_keep_recent_rounds, bot.spec.context.drop_filler, len(turns))
    for i, text in enumerate(turns):
        reply = bot.handle("savings", text)
        run.user_tokens += bot.view.counter.count_message("user", text)
        built = bot.build_context("savings")
        run.sent += built.sent_tokens
        run.full += built.full_tokens
        for part, tokens in built.breakdown.items():
            run.parts[part] = run.parts.get(part, 0) + tokens
        run.states[reply.state] = run.states.get(reply.state, 0) + 1
        if reply.state in ("CONFIRMATION", "EXECUTION") and reply.flow:
            run.confirmed.update(labels(bot, reply.flow, reply.slots))
        for action in reply.actions:
            flow = reply.flow or (next(n for n, f in bot.spec.flows.items() if f.execute.action == action.name))
            run.confirmed.update(labels(bot, flow, action.inputs))
        progress(f"rounds (keep {run.keep})", i + 1, len(turns))
    run.seconds = time.perf_counter() - started
    run.final = bot.build_context("savings")
    text = "\n".join(m.content for m in run.final.messages)
    run.missing = sorted(k for k, forms in run.confirmed.items() if not any(f and f in text for f in forms))
    bot.close()
    return run


def with_context(bot_file: Path, keep: int, drop_filler: bool, folder: Path) -> Path:
    """A copy of the bot file whose ``context:`` keeps ``keep`` recent rounds, with or without
    their filler (nothing else changes)."""
    text = bot_file.read_text(encoding="utf-8")
    for key, value in (("keep_recent_rounds", str(keep)), ("drop_filler", str(drop_filler).lower())):
        if re.search(rf"(?m)^  {key}: *\S+", text):
            text = re.sub(rf"(?m)^(  {key}: *)\S+", rf"\g<1>{value}", text)
        elif re.search(r"(?m)^context:\n", text):
            text = re.sub(r"(?m)^context:\n", f"context:\n  {key}: {value}\n", text)
        else:
            text += f"\ncontext:\n  {key}: {value}\n"
    copy = folder / f"keep{keep}_{'trimmed' if drop_filler else 'whole'}_{bot_file.name}"
    copy.write_text(text, encoding="utf-8")
    return copy


def main_lines(run: Run) -> list[str]:
    """The bot's own setting: totals, the ceiling, each part, and whether every confirmed value survived."""
    final, per_turn = run.final, max(run.turns, 1)
    return [
        f"rounds: {run.turns} (support bot, zh/en alternating tasks; user messages avg "
        f"{run.user_tokens / per_turn:.0f} tokens, encoding {final.encoding}), {run.seconds:.1f} s",
        f"context: budget {final.budget}, keep_recent_rounds {run.keep}, drop_filler {str(run.drop_filler).lower()} "
        "(the bot file's own settings)",
        "",
        "| | tokens |",
        "|---|---|",
        f"| full history, summed over turns | {run.full:,} |",
        f"| sent (built context), summed over turns | {run.sent:,} |",
        f"| saved | {run.full - run.sent:,} (**{run.pct:.1f}%**, target >= {TARGET_PCT:.0f}%) |",
        f"| last turn: full / sent | {final.full_tokens:,} / {final.sent_tokens:,} |",
        f"| ceiling: system prompt + recent rounds as sent + current message only | {run.floor:,} ({run.ceiling:.1f}% saved) |",
        "",
        "sent per part (average per turn / last turn; the rest is the reply priming):",
        "",
        "| part | avg tokens | last turn |",
        "|---|---|---|",
        *(f"| {part} | {tokens / per_turn:.0f} | {final.breakdown.get(part, 0)} |"
          for part, tokens in sorted(run.parts.items(), key=lambda kv: -kv[1])),
        "",
        f"confirmed slot values still in the final context: **{'yes' if not run.missing else 'no'}** "
        f"({len(run.confirmed) - len(run.missing)}/{len(run.confirmed)})"
        + (f"; missing: {', '.join(run.missing)}" if run.missing else ""),
    ]


def comparison_lines(runs: list[Run]) -> list[str]:
    """The same conversation with 1, 2 and 3 recent rounds, whole and without filler: what each
    costs, part by part."""
    names = sorted({p for r in runs for p in r.parts}, key=lambda p: -runs[0].parts.get(p, 0))
    return [
        "the same conversation with other `keep_recent_rounds` and `drop_filler` (average tokens per turn;",
        "the ceiling sends nothing but the system prompt, the recent rounds as sent and the current message):",
        "",
        f"| keep | drop_filler | saved | ceiling | values kept | {' | '.join(names)} |",
        "|---" * (5 + len(names)) + "|",
        *(f"| {r.keep} | {str(r.drop_filler).lower()} | {r.pct:.1f}% | {r.ceiling:.1f}% | "
          f"{len(r.confirmed) - len(r.missing)}/{len(r.confirmed)} | "
          + " | ".join(f"{r.parts.get(p, 0) / max(r.turns, 1):.0f}" for p in names) + " |" for r in runs),
    ]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--bot", type=Path, default=ROOT / "flows" / "support_ticket.yaml")
    args = parser.parse_args(argv)
    own = drive(args.bot, args.rounds)
    variants = [(keep, drop) for drop in (False, True) for keep in (1, 2, 3) if (keep, drop) != (own.keep, own.drop_filler)]
    with tempfile.TemporaryDirectory() as folder:
        others = [drive(with_context(args.bot, keep, drop, Path(folder)), args.rounds) for keep, drop in variants]
    runs = sorted([own, *others], key=lambda r: (r.drop_filler, r.keep))
    report("Context savings (bench/savings.py)", [*main_lines(own), "", *comparison_lines(runs)])
    missing = sorted({m for r in runs for m in r.missing})
    if missing:     # a saving that loses what the user confirmed is no saving
        raise SystemExit(f"confirmed slot values missing from the final context: {', '.join(missing)}")
    return {"saved_pct": own.pct, "sent": own.sent, "full": own.full, "missing": own.missing,
            "states": own.states, "parts": own.parts,
            "by_keep": {(r.keep, r.drop_filler): r.pct for r in runs}}


if __name__ == "__main__":
    main()
