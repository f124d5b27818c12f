"""Users' data: export, forget and purge, through ``Bot`` and through ``engine.users`` on its own,
on memory, SQLite and Redis, in Chinese and English."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

import pytest

from dialogkit.actions.loading import parse_bot_text
from dialogkit.bot import Bot
from dialogkit.engine import users
from dialogkit.model.session import Message, PersistedValue, Session, user_scope
from dialogkit.store import SessionStore
from dialogkit.text.labels import Texts
from tests.engine._parts import ROOT, STUBS, SUPPORT
from tests.store.conftest import store, store_factory

__all__ = ["store", "store_factory"]          # the store fixtures: memory, SQLite, Redis

DAY = 86400.0
CONVERSATION = {
    "zh": ["我上周买的手机屏幕碎了", "123456", "确认"],
    "en": ["my laptop arrived broken", "order 67890", "yes"],
}
ORDER = {"zh": "123456", "en": "67890"}
LABEL = {"zh": "订单号", "en": "order number"}


class Clock:
    """The bot's clock: the wall clock moved forward by ``shift`` seconds (messages are stamped
    with the wall clock by the turn, so the clock only ever runs ahead of it)."""

    def __init__(self) -> None:
        self.shift = 0.0

    def __call__(self) -> float:
        return time.time() + self.shift


def support_bot(store: SessionStore, clock: Clock, retention: str | None = "90d") -> Bot:
    text = SUPPORT.read_text(encoding="utf-8")
    if retention is not None:
        text = text.replace("  session_timeout: 30m\n", f"  session_timeout: 30m\n  retention: {retention}\n")
    return Bot(parse_bot_text(text, filename=str(SUPPORT), base_dir=ROOT, actions=STUBS), store, clock=clock)


def talk(bot: Bot, session_id: str, user_id: str, language: str) -> None:
    for text in CONVERSATION[language]:
        bot.handle(session_id, text, user_id=user_id)


def iso_seconds(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


class TestExport:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_everything_about_the_user_in_one_json_document(self, store: SessionStore, language: str) -> None:
        clock = Clock()
        bot = support_bot(store, clock)
        talk(bot, "s1", "alice", language)
        bot.handle("s2", CONVERSATION[language][0], user_id="alice")     # a task still open
        talk(bot, "s3", "bob", language)
        doc = json.loads(json.dumps(bot.export_user("alice"), ensure_ascii=False))
        assert doc["format"] == users.EXPORT_FORMAT and doc["bot"] == "support" and doc["user_id"] == "alice"
        assert abs(iso_seconds(doc["exported_at"]) - clock()) < 5
        assert [s["id"] for s in doc["sessions"]] == ["s1", "s2"]
        done, open_ = doc["sessions"]
        assert [m["content"] for m in done["history"] if m["role"] == "user"] == CONVERSATION[language]
        assert all(abs(iso_seconds(m["at"]) - time.time()) < 60 for m in done["history"])
        assert done["summary"]["text"] and done["summary"]["confirmed"] and done["stack"] == []
        assert {"key", "zh", "en", "turn"} <= set(done["summary"]["confirmed"][0])
        assert any(e["value"] == ORDER[language] for e in done["entities"])
        assert open_["state"] != "IDLE" and open_["stack"][0]["flow"] == "report_issue"
        assert open_["stack"][0]["prefilled"] == ["order_id"]          # from the value s1 persisted
        assert open_["stack"][0]["slots"]["order_id"] == ORDER[language]
        stored = doc["values"]["order_id"]
        assert stored["value"] == ORDER[language] and stored["flow"] == "report_issue"
        assert stored["label"] == LABEL[language] and stored["history"] == []
        assert doc["legacy_values"] == {}

    def test_values_of_older_versions_are_exported_and_other_bots_values_are_not(
            self, store: SessionStore) -> None:
        bot = support_bot(store, Clock())
        with store.transaction("setup") as txn:
            txn.set_user_slot("alice", "order_id", PersistedValue(value="55555", flow="report_issue"))
            txn.set_user_slot(user_scope("hr", "alice"), "name", PersistedValue(value="张伟"))
        doc = bot.export_user("alice")
        assert doc["sessions"] == [] and doc["values"] == {}
        assert doc["legacy_values"]["order_id"]["value"] == "55555"
        assert "张伟" not in json.dumps(doc, ensure_ascii=False)

    def test_a_user_with_nothing_stored_exports_an_empty_document(self, store: SessionStore) -> None:
        doc = support_bot(store, Clock()).export_user("nobody")
        assert (doc["sessions"], doc["values"], doc["legacy_values"]) == ([], {}, {})


class TestForget:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_everything_goes_and_the_counts_say_what(self, store: SessionStore, language: str) -> None:
        bot = support_bot(store, Clock())
        talk(bot, "s1", "alice", language)
        bot.handle("s2", CONVERSATION[language][0], user_id="alice")
        talk(bot, "s3", "bob", language)
        with store.transaction("setup") as txn:
            txn.set_user_slot("alice", "product", PersistedValue(value="phone"))        # an older version's
            txn.set_user_slot(user_scope("hr", "alice"), "name", PersistedValue(value="张伟"))
        assert bot.forget_user("alice") == {"sessions": 2, "messages": 8, "values": 2}
        assert store.sessions_of("alice") == [] and store.load("s1") is None and store.history("s2") == []
        assert store.user_slots(user_scope("support", "alice")) == {} and store.user_slots("alice") == {}
        assert store.user_slots(user_scope("hr", "alice")) != {}        # another bot's: its own to forget
        assert store.sessions_of("bob") == ["s3"]
        assert bot.forget_user("alice") == {"sessions": 0, "messages": 0, "values": 0}

    def test_a_forgotten_user_starts_afresh(self, store: SessionStore) -> None:
        """The order number is asked again: nothing of the old task is prefilled."""
        bot = support_bot(store, Clock())
        talk(bot, "s1", "alice", "en")
        bot.forget_user("alice")
        reply = bot.handle("s1", "my phone arrived broken", user_id="alice")
        assert reply.text.endswith("What is your order number?")


class TestPurge:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_expired_sessions_go_and_user_values_wait_for_the_retention(
            self, store: SessionStore, language: str) -> None:
        clock = Clock()
        bot = support_bot(store, clock)
        talk(bot, "s1", "alice", language)
        clock.shift = 3600                                  # an hour idle: past session_timeout
        assert bot.purge() == {"sessions": 1, "messages": 0, "values": 0}
        assert store.load("s1") is None
        assert store.user_slots(user_scope("support", "alice"))["order_id"].value == ORDER[language]
        clock.shift = 91 * DAY
        assert bot.purge() == {"sessions": 0, "messages": 0, "values": 1}
        assert store.user_slots(user_scope("support", "alice")) == {}

    def test_old_messages_go_with_the_retention(self, store: SessionStore) -> None:
        clock = Clock()
        bot = support_bot(store, clock, retention="12h")
        talk(bot, "s1", "alice", "zh")
        clock.shift = 13 * 3600
        assert bot.purge() == {"sessions": 1, "messages": 6, "values": 1}

    def test_without_a_retention_only_expired_sessions_go(self, store: SessionStore) -> None:
        clock = Clock()
        bot = support_bot(store, clock, retention=None)
        talk(bot, "s1", "alice", "en")
        talk(bot, "s2", "bob", "en")
        clock.shift = 1000 * DAY
        assert bot.purge() == {"sessions": 2, "messages": 0, "values": 0}
        assert store.user_slots(user_scope("support", "alice")) != {}

    def test_the_purge_reads_the_bots_clock(self, store: SessionStore) -> None:
        """A session the wall clock calls idle is kept while the bot's clock says it is not."""
        clock = Clock()
        bot = support_bot(store, clock)
        talk(bot, "s1", "alice", "en")
        clock.shift = -3600                              # the bot's clock is an hour behind the wall
        assert bot.purge()["sessions"] == 0
        assert store.load("s1") is not None


def stored_session(store: SessionStore, session_id: str, user_id: str, times: list[float]) -> None:
    session = Session(id=session_id, user_id=user_id, language="zh", updated_at=max(times))
    session.history = [Message(role="user" if i % 2 == 0 else "assistant", content=f"第{i}条", turn=i // 2,
                               at=at, language="zh") for i, at in enumerate(times)]
    with store.transaction(session_id) as txn:
        txn.save(session)


class TestEngineOnItsOwn:
    """``engine.users`` over a store and a bot name, at a chosen ``now``: no bot, no wall clock."""

    NOW = 1_800_000_000.0

    def test_a_live_session_loses_only_its_old_messages(self, store: SessionStore) -> None:
        now = self.NOW
        stored_session(store, "s1", "alice", [now - 100 * DAY] * 4 + [now - 60] * 2)
        counts = users.purge(store, "support", retention_s=90 * DAY, timeout_s=1800, now=now)
        assert counts == {"sessions": 0, "messages": 4, "values": 0}
        assert [m.content for m in store.history("s1")] == ["第4条", "第5条"]

    def test_values_of_this_bot_and_of_older_versions_are_purged_not_other_bots(
            self, store: SessionStore) -> None:
        old = self.NOW - 100 * DAY
        with store.transaction("setup") as txn:
            for key in ("support/alice", "alice", "hr/alice"):
                txn.set_user_slot(key, "order_id", PersistedValue(value="12345", at=old))
            txn.set_user_slot("support/alice", "product", PersistedValue(value="手机", at=self.NOW - DAY))
        counts = users.purge(store, "support", retention_s=90 * DAY, timeout_s=1800, now=self.NOW)
        assert counts["values"] == 2
        assert list(store.user_slots("support/alice")) == ["product"]
        assert store.user_slots("alice") == {} and list(store.user_slots("hr/alice")) == ["order_id"]

    @pytest.mark.parametrize(("bot", "key", "owned"), [
        ("support", "support/alice", True), ("support", "alice", True), ("support", "hr/alice", False),
        ("support", "supportive/alice", False),
    ])
    def test_which_keys_a_bot_purges(self, bot: str, key: str, owned: bool) -> None:
        assert users.owns_key(bot, key) is owned

    def test_an_export_needs_only_a_store_and_the_texts(self, store: SessionStore) -> None:
        stored_session(store, "s1", "alice", [self.NOW - 60, self.NOW - 30])
        texts = Texts(support_bot(store, Clock()).spec)
        doc: dict[str, Any] = users.export_user(store, "support", texts, "alice", self.NOW)
        assert doc["exported_at"] == "2027-01-15T08:00:00+00:00"
        assert [m["content"] for m in doc["sessions"][0]["history"]] == ["第0条", "第1条"]
        assert doc["sessions"][0]["history"][1]["at"] == "2027-01-15T07:59:30+00:00"
