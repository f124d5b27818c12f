"""Logging: one event per turn and per transition, PII and sensitive slots masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.logging import redact_pii
from dialogkit.strings.redaction import MASK
from dialogkit.testing.logs import capture_turn_logs, events_named

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"


class TestMasking:
    @pytest.mark.parametrize("text, secret", [
        ("我的手机号是13812345678，邮箱 li@example.com", ["13812345678", "li@example.com"]),
        ("call me at +1 415-555-0100 or mail joe.brown@example.org", ["415-555-0100", "joe.brown@example.org"]),
    ], ids=["zh", "en"])
    def test_phones_and_emails_are_masked_in_every_field(self, text: str, secret: list[str]) -> None:
        """Top-level text, nested dicts, lists and tuples alike; the event name is left alone."""
        event = {"event": "turn", "text": text, "slots": {"note": text}, "said": [text], "pair": (text, 1)}
        masked = redact_pii(None, "info", dict(event))
        assert masked["event"] == "turn" and masked["pair"][1] == 1
        assert isinstance(masked["pair"], tuple)
        assert all(s not in repr(masked) for s in secret)
        assert repr(masked).count(MASK) == 8

    def test_text_without_pii_is_unchanged(self) -> None:
        event = {"event": "turn", "text": "订单 12345 / order 67890", "latency_ms": 0.4}
        assert redact_pii(None, "info", dict(event)) == event


class TestTurnEvents:
    @pytest.mark.parametrize("lines", [["我的手机碎了，订单号 12345", "确认"], ["my phone arrived broken, order 12345", "yes"]],
                             ids=["zh", "en"])
    def test_one_event_per_turn_and_per_transition(self, lines: list[str]) -> None:
        bot = Bot.from_file(SUPPORT, store="memory://")
        with capture_turn_logs() as events:
            replies = [bot.handle("s", line) for line in lines]
        turns = events_named(events, "turn")
        assert len(turns) == len(lines)
        fired = [t for r in replies for t in r.transitions]
        assert [e["trigger"] for e in events_named(events, "transition")] == fired
        assert turns[-1]["dest"] == "IDLE" and turns[-1]["session_id"] == "s"
        assert all("latency_ms" in e for e in turns)
        bot.close()

    @pytest.mark.parametrize("line", ["我的手机碎了，订单号 12345，备注：我的密码是hunter2",
                                      "my phone arrived broken, order 12345, note: my password is hunter2"],
                             ids=["zh", "en"])
    def test_sensitive_slot_values_never_reach_the_log(self, line: str) -> None:
        bot = Bot.from_file(SUPPORT, store="memory://")
        with capture_turn_logs() as events:
            reply = bot.handle("s", line)
        assert "hunter2" in reply.slots["note"]
        assert not any("hunter2" in repr(e) for e in events)
        bot.close()

    @pytest.mark.parametrize("lines", [["我的手机碎了，订单号 12345，备注：我的密码是hunter2", "确认"],
                                       ["my phone arrived broken, order 12345, note: my password is hunter2", "yes"]],
                             ids=["zh", "en"])
    def test_sensitive_values_of_a_task_that_just_ended_stay_masked(self, lines: list[str]) -> None:
        """The turn that completes a task reports that task's slots with no flow on the stack:
        they are masked by the flow they belong to."""
        bot = Bot.from_file(SUPPORT, store="memory://")
        with capture_turn_logs() as events:
            replies = [bot.handle("s", line) for line in lines]
        assert replies[-1].flow is None and "hunter2" in replies[-1].slots["note"]
        assert events_named(events, "turn")[-1]["slots"]["note"] == MASK
        assert not any("hunter2" in repr(e) for e in events)
        bot.close()
