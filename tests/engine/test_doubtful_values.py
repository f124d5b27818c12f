"""An 11-digit mobile number does not silently fill an order-id slot whose pattern it also fits:
the bot says what it looks like and asks again; the same value said again is taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit import Bot

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
START = {"zh": "我的手机碎了", "en": "my phone arrived broken"}
YES = {"zh": "是的", "en": "yes"}
LOOKS = {"zh": "看起来像手机号", "en": "looks like a phone number"}
ASKS = {"zh": "请提供您的订单号", "en": "What is your order number?"}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def replies(lang: str, turns: list[str]) -> list[str]:
    bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
    return [bot.handle("s", text).text for text in [START[lang], *turns]]


@LANGS
def test_a_mobile_number_is_asked_about_and_a_real_order_id_taken(lang: str) -> None:
    said = replies(lang, ["13812345678", "12345", YES[lang]])
    assert LOOKS[lang] in said[1] and ASKS[lang] in said[1] and "13812345678" not in said[2]
    assert "12345" in said[2] and "T-1001" in said[3]


@LANGS
def test_the_same_number_said_again_is_taken(lang: str) -> None:
    said = replies(lang, ["13812345678", "13812345678"])
    assert LOOKS[lang] in said[1] and "13812345678" in said[2] and LOOKS[lang] not in said[2]


@LANGS
def test_an_order_id_of_another_shape_is_taken_at_once(lang: str) -> None:
    said = replies(lang, ["23812345678"])                 # 11 digits, not a mobile number
    assert LOOKS[lang] not in said[1] and "23812345678" in said[1]
