"""An 11-digit mobile number does not silently fill an order-id slot whose pattern it also fits:
the bot says what it looks like and asks again; the same value said again is taken. Offered to
replace a held value ("不对，订单号是138…"), it leaves that value rejected: nothing to confirm."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.engine import doubtful_values
from dialogkit.engine.doubtful_values import doubt
from dialogkit.spec.schema import SlotSpec
from dialogkit.strings.redaction import EMAIL
from dialogkit.text.labels import slot_name_label
from dialogkit.text.phrases import phrase

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


NO = {"zh": "不对，订单号是13446675995", "en": "no, the order number is 13446675995"}
PARTLY = {"zh": "订单00000的东西坏了", "en": "the item of order 00000 arrived broken"}
ASKS_PRODUCT = {"zh": "是哪件商品", "en": "Which product is it?"}


def conversation(lang: str, turns: list[str], start: str | None = None) -> list[Any]:
    bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
    return [bot.handle("s", text) for text in [start or START[lang], *turns]]


@LANGS
def test_a_rejection_whose_new_value_is_asked_about_leaves_nothing_to_confirm(lang: str) -> None:
    """"不对，订单号是<手机号>" at the confirmation: the old order number is rejected, the new one is
    asked about, so a bare yes runs nothing; the order number is asked for again."""
    said = conversation(lang, ["00000", NO[lang], YES[lang]])
    assert said[1].state == "CONFIRMATION"
    assert LOOKS[lang] in said[2].text and ASKS[lang] in said[2].text
    assert said[2].state == "PARAM_COLLECT" and said[2].slots.get("order_id") is None
    assert "00000" not in said[2].summary and "13446675995" not in said[2].summary     # neither holds
    assert said[3].actions == [] and said[3].state == "PARAM_COLLECT"


@LANGS
def test_the_number_said_again_after_the_rejection_is_taken_and_confirmed(lang: str) -> None:
    said = conversation(lang, ["00000", NO[lang], "13446675995", YES[lang]])
    assert said[3].state == "CONFIRMATION" and said[3].slots["order_id"] == "13446675995"
    assert [(a.name, a.inputs["order_id"]) for a in said[4].actions] == [("create_ticket", "13446675995")]


@LANGS
def test_a_correction_while_collecting_drops_the_value_it_replaces(lang: str) -> None:
    """The same correction before the confirmation: the held order number no longer holds either."""
    said = conversation(lang, [NO[lang]], start=PARTLY[lang])
    assert ASKS_PRODUCT[lang] in said[0].text and said[0].slots["order_id"] == "00000"
    assert LOOKS[lang] in said[1].text and said[1].slots.get("order_id") is None


_PLAIN_SHAPES = {"phone": re.compile(r"(?:\+?86[\s-]?)?1[3-9]\d{9}"), "email": EMAIL}


@pytest.mark.parametrize(("lang", "value"), [
    ("zh", "13812345678"), ("zh", "+86 13812345678"), ("zh", "张伟@例子.中国"), ("zh", "订单12345"),
    ("en", "joe@example.com"), ("en", "12345678901"), ("en", "a@b"), ("en", "damaged"), ("en", "  13812345678 ")])
def test_a_value_is_tried_against_the_one_shape_it_may_have_zh_en(lang: str, value: str) -> None:
    """An address holds an "@" and a mobile number none: the doubt is the one that trying every
    shape in turn finds."""
    slot = SlotSpec(name="order_id", entity="order_id")
    text = value.strip()
    kind = next((k for k, shape in _PLAIN_SHAPES.items() if shape.fullmatch(text)), None)
    said = doubt(slot, value, lang)
    assert (said is None) == (kind is None)
    if kind is not None:
        assert said == phrase("looks_like_another_type", lang, value=text, kind=phrase(f"kind_{kind}", lang),
                              label=slot_name_label(slot, lang))
    assert doubtful_values._MOBILE.pattern == _PLAIN_SHAPES["phone"].pattern
