"""A value the user typed wins over the LLM's: when the rules read a valid value for a slot from
the user's own words, a different value the model proposes for that slot is dropped, and a
``set_slot`` never changes a value the task holds (a change is a ``correct_slot``).

The model here always proposes order id 24680; the user says 12345; "yes" confirms 12345.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.llm.client import LLMClient
from dialogkit.spec.schema import LLMSpec
from dialogkit.testing.llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
STUBBORN = {"commands": [{"command": "set_slot", "slot": "order_id", "value": "24680"}]}
TURNS = {
    "zh": ["我的手机碎了，我的订单号是 12345", "是的"],
    "en": ["my phone arrived broken, my order number is 12345", "yes"],
}
SEPARATE = {
    "zh": ["我的手机碎了", "我的订单号是 12345", "是的"],
    "en": ["my phone arrived broken", "my order number is 12345", "yes"],
}


def converse(turns: list[str], proposal: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """The replies to ``turns`` against a model that always answers ``proposal``, and the actions' order ids."""
    ran: list[Any] = []

    def create_ticket(ctx: Any) -> dict[str, str]:
        ran.append(ctx.slots["order_id"])
        return {"ticket_id": "T-1001"}

    with ScriptedLLMServer(lambda body: proposal) as server:
        spec = LLMSpec(model="scripted-model", timeout_s=5.0, max_retries=0, use_for=["understanding"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(SUPPORT, store="memory://", llm=client,
                                actions={"create_ticket": create_ticket, "order_status": {"status": "shipped"}})
            replies = [bot.handle("s1", text).text for text in turns]
        finally:
            client.close()
    return replies, ran


@LANGS
@pytest.mark.parametrize("script", [TURNS, SEPARATE], ids=["one_message", "asked"])
def test_the_users_order_id_beats_the_models(lang: str, script: dict[str, list[str]]) -> None:
    replies, ran = converse(script[lang], STUBBORN)
    assert "12345" in replies[-2] and "24680" not in replies[-2]      # the confirmation names the user's value
    assert [str(v) for v in ran] == ["12345"]
    assert "T-1001" in replies[-1]
