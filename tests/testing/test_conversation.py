"""The Python conversation driver and structlog capture, as a user of dialogkit.testing writes them."""

from __future__ import annotations

import pytest
import structlog

from dialogkit.model.reply import Reply
from dialogkit.testing import Conversation, ConversationFailure, capture_turn_logs, conversation
from dialogkit.testing.logs import events_named
from tests.testing.conftest import BOT_FILE
from tests.testing.fake_bot import FakeBot


class TestDriver:
    @pytest.mark.parametrize(("first", "yes", "done"), [
        ("我上周买的手机屏幕碎了", "确认", "T-1001"),
        ("my phone arrived broken", "yes", "Ticket T-1001"),
    ])
    def test_say_and_expect_chain(self, first: str, yes: str, done: str) -> None:
        """A whole conversation reads as a chain of say/expect, in either language."""
        with conversation(BOT_FILE, actions={"create_ticket": {"ticket_id": "T-1001"}},
                          factory=FakeBot.from_file) as convo:
            convo.say(first).expect(flow="report_issue", state="PARAM_COLLECT", slots={"product": "phone"})
            convo.say("123456").expect(state="CONFIRMATION", slots={"order_id": 123456})
            convo.say(yes).expect(state="IDLE", action="create_ticket", bot=done)
            assert convo.reply.actions[0].result == {"ticket_id": "T-1001"}

    @pytest.mark.parametrize("first", ["我的手机碎了", "my phone is broken"])
    def test_failed_expect_raises_with_the_transcript(self, first: str) -> None:
        """ConversationFailure is an AssertionError whose text shows expected, actual and the turns."""
        with conversation(BOT_FILE, factory=FakeBot.from_file) as convo:
            convo.say(first)
            with pytest.raises(ConversationFailure) as caught:
                convo.expect(state="IDLE")
        message = str(caught.value)
        assert isinstance(caught.value, AssertionError)
        assert 'state:\n    expected: "IDLE"\n    actual:   "PARAM_COLLECT"' in message
        assert f"1. user: {first}" in message
        assert [m.key for m in caught.value.mismatches] == ["state"]

    def test_restart_reloads_from_the_same_store(self) -> None:
        """restart() closes the bot and builds a new one that finds the session where it was."""
        with conversation(BOT_FILE, factory=FakeBot.from_file) as convo:
            first_bot = convo.say("订单 123456 的手机碎了").expect(state="CONFIRMATION").bot
            convo.restart()
            assert convo.bot is not first_bot and first_bot.closed
            convo.say("yes").expect(state="IDLE", action="create_ticket")

    def test_restart_needs_a_way_to_reopen(self) -> None:
        bot = FakeBot(BOT_FILE, "sqlite:///:memory:", {})
        with pytest.raises(RuntimeError, match="cannot restart"):
            Conversation(bot).restart()
        bot.close()

    def test_reply_before_any_turn_is_an_error(self) -> None:
        with conversation(BOT_FILE, factory=FakeBot.from_file) as convo, pytest.raises(RuntimeError):
            _ = convo.reply

    def test_temporary_store_is_removed_on_close(self) -> None:
        convo = Conversation.from_file(BOT_FILE, factory=FakeBot.from_file)
        store_file = convo.bot.db.execute("pragma database_list").fetchone()[2]
        convo.say("hello")
        convo.close()
        from pathlib import Path

        assert not Path(store_file).exists()


class TestLogs:
    @pytest.mark.parametrize("text", ["我的手机碎了", "my phone is broken"])
    def test_capture_turn_logs_records_structlog_events(self, text: str) -> None:
        """Events logged during the block are captured as dicts with their fields."""
        log = structlog.get_logger("dialogkit.test")
        with capture_turn_logs() as events:
            log.info("turn", text=text, dest="PARAM_COLLECT")
            log.warning("placeholder_missing", name="ticket_id")
        assert events_named(events, "turn") == [{"event": "turn", "text": text, "dest": "PARAM_COLLECT",
                                                 "log_level": "info"}]
        assert [e["event"] for e in events] == ["turn", "placeholder_missing"]

    def test_conversation_can_keep_each_turns_events(self) -> None:
        """With capture_logs=True every turn of the transcript carries the events it logged."""

        class LoggingBot(FakeBot):
            def handle(self, session_id: str, text: str, user_id: str | None = None) -> Reply:
                structlog.get_logger().info("turn", session_id=session_id, text=text)
                return super().handle(session_id, text, user_id)

        with conversation(BOT_FILE, factory=LoggingBot.from_file, capture_logs=True) as convo:
            convo.say("你好").say("hello")
            assert [e["text"] for e in convo.events] == ["hello"]
            assert [t.events[0]["text"] for t in convo.transcript] == ["你好", "hello"]
