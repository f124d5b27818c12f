"""A session belongs to the user who started it (docs/stores.md): another user on it, or a turn
naming no user, gets a ``SessionOwnerError`` from the API, never the owner's values, and the
session is left unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.engine.ownership import SessionOwnerError
from dialogkit.errors import DialogkitError

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
SAY = {"zh": ("我的手机碎了，订单号 12345", "确认", "我的笔记本坏了"),
       "en": ("my phone arrived broken, order 12345", "yes", "my laptop is broken")}


@pytest.fixture
def bot() -> Bot:
    return Bot.from_file(SUPPORT, store="memory://", actions={"create_ticket": {"ticket_id": "T-1"}})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_another_user_cannot_take_over_a_session(bot: Bot, lang: str) -> None:
    start, yes, report = SAY[lang]
    bot.handle("a1", start, user_id="alice")
    before = bot.session("a1")
    with pytest.raises(SessionOwnerError) as caught:
        bot.handle("a1", yes, user_id="bob")
    assert isinstance(caught.value, DialogkitError) and "a1" in str(caught.value)
    after = bot.session("a1")
    assert (after.user_id, len(after.history), after.state) == ("alice", len(before.history), before.state)
    bob = bot.handle("b1", report, user_id="bob")            # Bob's own session knows nothing of hers
    assert "12345" not in bob.text and bob.slots.get("order_id") != "12345"


def test_the_owner_goes_on_and_an_unnamed_caller_is_refused(bot: Bot) -> None:
    bot.handle("a1", SAY["en"][0], user_id="alice")
    with pytest.raises(SessionOwnerError) as caught:
        bot.handle("a1", SAY["en"][1])                       # no user_id: anonymous, not alice
    assert caught.value.anonymous
    bot.handle("a1", SAY["en"][1], user_id="alice")
    assert bot.session("a1").user_id == "alice"
