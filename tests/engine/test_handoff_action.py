"""bot.handoff: {action: NAME}: a give-up hands the conversation to a person, informed and masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dialogkit import ActionContext, Bot

BOT = """\
bot:
  name: shop
  max_reprompts: 1
  handoff: {action: notify_agent, messages: 2}
entities:
  order_id: {pattern: '(?<!\\d)\\d{5}(?!\\d)', kind: thing}
flows:
  report:
    description: 报告问题 / Report a problem
    trigger: {keywords: [报告问题, report a problem]}
    slots:
      - {name: card, required: false, sensitive: true, label: {zh: 卡号, en: card}}
      - name: order_id
        entity: order_id
        ask: {zh: 请提供订单号。, en: What is your order number?}
"""

TURNS = {
    "zh": (["报告问题 卡号: 4111111111111111", "不知道", "还是不知道"], "转给人工客服"),
    "en": (["report a problem card: 4111111111111111", "no idea", "still no idea"], "a person, who will take over"),
}


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_action_gets_the_summary_slots_and_messages_masked(tmp_path: Path, language: str) -> None:
    seen: list[Any] = []

    def notify_agent(ctx: ActionContext) -> dict[str, str]:
        seen.append(ctx.value)
        return {}

    path = tmp_path / "shop.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"notify_agent": notify_agent})
    turns, taken_over = TURNS[language]
    reply = None
    for text in turns:
        reply = bot.handle("s", text)
    assert reply is not None and reply.state == "IDLE" and reply.flow is None
    assert taken_over in reply.text
    assert [run.name for run in reply.actions] == ["notify_agent"]
    (context,) = seen
    assert set(context["summary"]) == {"stated", "confirmed", "pending"}
    assert context["slots"] == {"card": "***"}
    assert len(context["messages"]) == 2 and context["messages"][-1] == turns[-1]
    assert "4111111111111111" not in str(context)
    bot.close()


def test_a_failing_handoff_action_apologises_as_without_one(tmp_path: Path) -> None:
    def notify_agent(ctx: ActionContext) -> None:
        raise RuntimeError("agent desk closed")

    path = tmp_path / "shop.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"notify_agent": notify_agent})
    for text in TURNS["en"][0]:
        reply = bot.handle("s", text)
    assert reply.state == "IDLE" and "take over" not in reply.text and "Sorry" in reply.text
    bot.close()
