"""``dialogkit store purge``: expired sessions, and messages and values past bot.retention, zh and en."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dialogkit.bot import Bot
from dialogkit.model.session import Message, PersistedValue, Session, user_scope
from dialogkit.store import open_store
from tests.cli.test_user_commands import BOT, SAID, logging_put_back, run, store_url

__all__ = ["logging_put_back", "store_url"]

DAY = 86400.0


def bot_file(tmp_path: Path, retention: bool = True) -> Path:
    path = tmp_path / "desk.yaml"
    text = BOT if retention else BOT.replace("  retention: 90d\n", "")
    path.write_text(text, encoding="utf-8")
    return path


def idle_chat(path: Path, url: str, session_id: str, language: str, idle_s: float) -> None:
    """One turn, stamped ``idle_s`` ago by the bot's clock."""
    with Bot.from_file(path, store=url, clock=lambda: time.time() - idle_s) as bot:
        bot.handle(session_id, SAID[language], user_id="alice")


def old_messages(url: str, session_id: str, language: str, ages_s: list[float]) -> None:
    """A live session whose history was written ``ages_s`` ago, and old values of this bot's user."""
    now = time.time()
    store = open_store(url)
    try:
        session = Session(id=session_id, user_id="bob", language=language, updated_at=now)
        session.history = [Message(role="user", content=f"{SAID[language]} {i}", turn=i, at=now - age,
                                   language=language) for i, age in enumerate(ages_s)]
        with store.transaction(session_id) as txn:
            txn.save(session)
            txn.set_user_slot(user_scope("desk", "bob"), "city", PersistedValue(value="shanghai", at=now - 100 * DAY))
    finally:
        store.close()


class TestPurge:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_it_deletes_and_prints_the_counts(self, tmp_path: Path, store_url: str, language: str) -> None:
        path = bot_file(tmp_path)
        idle_chat(path, store_url, "idle", language, idle_s=3600)
        idle_chat(path, store_url, "recent", language, idle_s=60)
        old_messages(store_url, "live", language, [100 * DAY, 100 * DAY, DAY])
        result = run("store", "purge", str(path), "--store", store_url)
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[0] == f"purged {store_url} for bot 'desk':"
        assert lines[1:] == ["  sessions: 1 (idle over 30m)", "  messages: 2 (older than 90d)",
                             "  values:   1 (older than 90d)"]
        with Bot.from_file(path, store=store_url) as bot:
            assert bot.store.load("idle") is None and bot.store.load("recent") is not None
            assert [m.turn for m in bot.store.history("live")] == [2]
            assert bot.store.user_slots(user_scope("desk", "alice"))["city"].value == "beijing"

    def test_without_retention_messages_and_values_are_kept(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'sessions.db'}"
        path = bot_file(tmp_path, retention=False)
        idle_chat(path, url, "idle", "en", idle_s=3600)
        old_messages(url, "live", "zh", [100 * DAY])
        result = run("store", "purge", str(path), "--store", url)
        assert result.exit_code == 0
        assert result.stdout.splitlines()[1:] == ["  sessions: 1 (idle over 30m)",
                                                  "  messages: 0 (kept: no bot.retention)",
                                                  "  values:   0 (kept: no bot.retention)"]

    def test_a_broken_bot_file_is_a_message_and_exit_1(self, tmp_path: Path) -> None:
        broken = tmp_path / "broken.yaml"
        broken.write_text("bot: {retention: soon}\nflows: {}\n", encoding="utf-8")
        result = run("store", "purge", str(broken), "--store", "memory://")
        assert result.exit_code == 1
        assert "broken.yaml:1:" in result.stderr and "not a duration" in result.stderr
