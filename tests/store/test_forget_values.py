"""'忘记我的订单号' / 'forget my order number' deletes that one persisted value, on every store kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.model.session import user_scope
from dialogkit.store import SessionStore

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
TICKET = {"zh": ["我上周买的手机屏幕碎了", "123456", "确认"], "en": ["my phone arrived broken", "123456", "yes"]}
FORGET = {"zh": "忘记我的订单号", "en": "forget my order number"}
FORGOT = {"zh": "已忘记您的订单号", "en": "I've forgotten your order number"}
NOTHING = {"zh": "我没有记着您的订单号", "en": "I have no order number of yours on record"}
ASK = {"zh": "请提供您的订单号", "en": "What is your order number?"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_named_value_is_deleted_and_the_next_task_asks_for_it(
        store_factory: Callable[[], SessionStore], lang: str) -> None:
    bot = Bot.from_file(SUPPORT, store=store_factory(), actions=STUBS)
    for text in TICKET[lang]:
        bot.handle("s1", text, user_id="alice")
    assert "order_id" in bot.store.user_slots(user_scope("support", "alice"))
    reply = bot.handle("s1", FORGET[lang], user_id="alice")
    assert FORGOT[lang] in reply.text
    assert bot.store.user_slots(user_scope("support", "alice")) == {}
    again = bot.handle("s2", TICKET[lang][0], user_id="alice")
    assert ASK[lang] in again.text and "order_id" not in again.slots


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_forgetting_a_value_never_stored_says_so(store_factory: Callable[[], SessionStore], lang: str) -> None:
    bot = Bot.from_file(SUPPORT, store=store_factory(), actions=STUBS)
    assert NOTHING[lang] in bot.handle("s1", FORGET[lang], user_id="bob").text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_inside_a_task_the_pending_question_follows(store_factory: Callable[[], SessionStore], lang: str) -> None:
    bot = Bot.from_file(SUPPORT, store=store_factory(), actions=STUBS)
    bot.handle("s1", TICKET[lang][0], user_id="carol")
    reply = bot.handle("s1", FORGET[lang], user_id="carol")
    assert NOTHING[lang] in reply.text and ASK[lang] in reply.text and reply.state == "PARAM_COLLECT"
