"""A long conversation keeps every confirmed value in the window while sending a fraction of it.

The ticket summary folds older tasks into one "earlier" item; these tests drive the shipped
support bot through many tasks of long messages, in both languages and with 1 or 3 verbatim
rounds, and check that nothing confirmed is lost on the way (docs/context-window.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
FILLER = {
    "zh": "我是你们店的老顾客了，平时经常在这里给家里人买礼物，包装盒子我都还留着，说明书和配件也都在。",
    "en": "I have been a loyal customer for years, and I still have the original box, the manual and the accessories.",
}
REPORT = {"zh": "我上周买的{product}{issue}", "en": "my {product} {issue}"}
ORDER = {"zh": "订单号是{order}，", "en": "The order number is {order}, "}
PRODUCTS = {"zh": ["手机", "耳机"], "en": ["phone", "headphones"]}
ISSUES = {"zh": ["屏幕碎了", "没收到"], "en": ["arrived broken", "never arrived"]}
CONFIRM = {"zh": "确认", "en": "yes"}


def bot_with(tmp_path: Path, keep: int) -> Bot:
    text = SUPPORT.read_text(encoding="utf-8")
    head, _, _ = text.partition("\ncontext:")
    path = tmp_path / "support.yaml"
    path.write_text(head + f"\ncontext:\n  model: gpt-4o-mini\n  preset: economy\n  keep_recent_rounds: {keep}\n",
                    encoding="utf-8")
    return Bot.from_file(path, store="memory://", actions=STUBS)


def conversation(lang: str, tasks: int) -> list[str]:
    """Per task: a report, its order number inside a long message, the confirmation, small talk."""
    out: list[str] = []
    for i in range(tasks):
        product, issue = PRODUCTS[lang][i % 2], ISSUES[lang][(i // 2) % 2]
        out += [REPORT[lang].format(product=product, issue=issue),
                ORDER[lang].format(order=30_000 + 7 * i) + FILLER[lang], CONFIRM[lang], FILLER[lang]]
    return out


def confirmed_forms(bot: Bot, run: Any) -> dict[str, set[str]]:
    """Each input of a ticket the bot created -> the forms it may take in the context."""
    flow = next(name for name, spec in bot.spec.flows.items() if spec.execute.action == run.name)
    out: dict[str, set[str]] = {}
    for name, value in run.inputs.items():
        slot = bot.spec.flows[flow].slot(name)
        if slot is not None and not slot.sensitive and value is not None:
            out[f"{name}={value}"] = {str(value)} | {bot.texts.value_label(slot, value, lang) for lang in ("zh", "en")}
    return out


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("keep", [1, 3])
def test_every_confirmed_value_stays_in_the_window(tmp_path: Path, lang: str, keep: int) -> None:
    bot = bot_with(tmp_path, keep)
    confirmed: dict[str, set[str]] = {}
    for text in conversation(lang, 16):
        for run in bot.handle("s", text).actions:
            confirmed.update(confirmed_forms(bot, run))
    built = bot.build_context("s")
    window = "\n".join(m.content for m in built.messages)
    assert len(confirmed) >= 16, "each task created a ticket"
    assert [k for k, forms in confirmed.items() if not any(f in window for f in forms)] == []
    assert built.sent_tokens < built.full_tokens / 4
    assert sum(1 for m in built.messages if m.part == "recent" and m.role == "user") == keep
