"""execute.returns: a stub missing a promised key is an error; a real action's, a warning."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from dialogkit import ActionContext, Bot
from dialogkit.errors import ActionError

BOT = """\
flows:
  make_return:
    trigger: {keywords: [退货, return]}
    execute:
      action: create_return
      returns: [rma_number]
      say: {zh: "退货申请 {rma_number} 已创建。", en: "Return {rma_number} has been created."}
"""


@pytest.mark.parametrize(("language", "text"), [("zh", "我要退货"), ("en", "return please")])
def test_a_stub_missing_a_promised_key_is_an_error(tmp_path: Path, language: str, text: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"create_return": {"rma": "R-1"}})
    with pytest.raises(ActionError, match="returned no rma_number"):
        bot.handle("s", text)
    bot.close()


def test_a_real_action_missing_a_promised_key_warns(tmp_path: Path) -> None:
    def create_return(ctx: ActionContext) -> dict[str, str]:
        return {"rma": "R-1"}

    path = tmp_path / "bot.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"create_return": create_return})
    with structlog.testing.capture_logs() as logs:
        reply = bot.handle("s", "return please")
    assert reply.state == "IDLE" and reply.actions[0].name == "create_return"
    assert any(e["event"] == "action_result_incomplete" and e["missing"] == ["rma_number"] for e in logs)
    bot.close()


def test_an_empty_stub_only_says_the_action_ran(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"create_return": {}})
    assert bot.handle("s", "return please").state == "IDLE"
    bot.close()


def test_a_stub_keeping_the_promise_runs(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(BOT, encoding="utf-8")
    bot = Bot.from_file(path, store="memory://", actions={"create_return": {"rma_number": "R-7"}})
    assert bot.handle("s", "我要退货").text == "退货申请 R-7 已创建。"
    bot.close()
