"""Sensitive values and PII, asserted where they could leak: logs, store rows (with a key),
exports and the bodies of LLM requests (docs/stores.md, "Sensitive values at rest").

One conversation per language types a sensitive note, a phone number and an e-mail address;
then each place is searched for them verbatim.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from cryptography.fernet import Fernet
from structlog.testing import capture_logs

from dialogkit import Bot
from dialogkit import logging as dialogkit_logging
from dialogkit.cli.context_export import render
from dialogkit.errors import StoreError
from dialogkit.llm.client import LLMClient
from dialogkit.logging import configure_logging
from dialogkit.spec.schema import LLMSpec
from dialogkit.store import open_store, secrets
from dialogkit.testing.llm_server import ScriptedLLMServer
from tests.store.factories import REDIS_URL, needs_redis, redis_text

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
NOTE = {"zh": "保险箱密码七三九一", "en": "safe code seven three nine one"}
PHONE, EMAIL = "13812345678", "amy.lee@example.com"
TURNS = {
    "zh": [f"我的手机碎了。备注：{NOTE['zh']}", "订单号 12345", f"我的手机号是{PHONE}，邮箱 {EMAIL}"],
    "en": [f"my phone arrived broken. note: {NOTE['en']}", "order 12345", f"my phone is {PHONE}, e-mail {EMAIL}"],
}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    value = Fernet.generate_key().decode()
    monkeypatch.setenv(secrets.ENV, value)
    secrets.reset()
    yield value
    monkeypatch.delenv(secrets.ENV)
    secrets.reset()


def talk(bot: Bot, lang: str, session: str = "s1") -> None:
    for text in TURNS[lang]:
        bot.handle(session, text, user_id="alice")


def raw_rows(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        rows = [r[0] for table in ("sessions", "messages", "user_slots")
                for r in conn.execute(f"SELECT data FROM {table}")]
    return "\n".join(r.decode("utf-8", "replace") if isinstance(r, bytes) else str(r) for r in rows)


@LANGS
def test_without_a_key_a_sensitive_value_leaves_the_store_when_its_task_ends(lang: str, tmp_path: Path) -> None:
    """In clear while the task runs; once it completes, masked in the history and in no row."""
    db = tmp_path / "s.db"
    bot = Bot.from_file(SUPPORT, store=f"sqlite:///{db}", actions=STUBS)
    bot.handle("s1", TURNS[lang][0], user_id="alice")
    assert NOTE[lang] in raw_rows(db)
    bot.handle("s1", TURNS[lang][1], user_id="alice")
    reply = bot.handle("s1", "确认" if lang == "zh" else "yes", user_id="alice")
    assert reply.state == "IDLE" and reply.slots["note"] == NOTE[lang]
    history = [m.content for m in bot.store.history("s1")]
    bot.close()
    assert NOTE[lang] not in raw_rows(db) and any("***" in c for c in history)


@LANGS
def test_with_a_key_no_row_holds_a_sensitive_value_and_sessions_still_load(key: str, lang: str,
                                                                           tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    bot = Bot.from_file(SUPPORT, store=f"sqlite:///{db}", actions=STUBS)
    talk(bot, lang)
    bot.close()
    stored = raw_rows(db)
    assert stored and NOTE[lang] not in stored and PHONE not in stored and EMAIL not in stored
    assert "12345" not in stored and "alice" not in stored                   # nothing a user said, in clear
    again = Bot.from_file(SUPPORT, store=f"sqlite:///{db}", actions=STUBS)   # another process, the same key
    assert again.session("s1").user_id == "alice" and len(again.session("s1").history) == 6
    again.close()


def test_sealed_rows_need_the_key_and_the_right_one(key: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    bot = Bot.from_file(SUPPORT, store=f"sqlite:///{db}", actions=STUBS)
    talk(bot, "en")
    bot.close()
    for value, message in (("", "set DIALOGKIT_SECRET_KEY"), (Fernet.generate_key().decode(), "another key")):
        if value:
            monkeypatch.setenv(secrets.ENV, value)
        else:
            monkeypatch.delenv(secrets.ENV)
        secrets.reset()
        store = open_store(f"sqlite:///{db}")
        with pytest.raises(StoreError, match=message):
            store.load("s1")
        store.close()
    monkeypatch.setenv(secrets.ENV, f"{Fernet.generate_key().decode()},{key}")   # rotation: old key listed second
    secrets.reset()
    store = open_store(f"sqlite:///{db}")
    assert store.load("s1") is not None
    store.close()


def test_a_bad_key_is_a_store_error_with_a_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(secrets.ENV, "not-a-key")
    secrets.reset()
    try:
        with pytest.raises(StoreError, match="Fernet"):
            Bot.from_file(SUPPORT, store=f"sqlite:///{tmp_path / 's.db'}", actions=STUBS).handle("s", "hi")
    finally:
        monkeypatch.delenv(secrets.ENV)
        secrets.reset()


def test_without_a_key_a_warning_once_at_start(tmp_path: Path) -> None:
    secrets.reset()
    with capture_logs() as logs:
        bot = Bot.from_file(SUPPORT, store=f"sqlite:///{tmp_path / 'w.db'}", actions=STUBS)
        for session in ("a", "b"):
            talk(bot, "en", session)
        bot.close()
    [warning] = [e for e in logs if e["event"] == "sensitive_values_in_plain_text"]
    # What to set, and how to make the key, in the warning itself (a JSON line on a Python user's console).
    assert warning["hint"].startswith("set DIALOGKIT_SECRET_KEY to encrypt what the store writes")
    assert "export DIALOGKIT_SECRET_KEY=$(python -c" in warning["hint"] and "Fernet.generate_key()" in warning["hint"]


@LANGS
@pytest.mark.parametrize("level", ["info", "debug"])
def test_logs_never_hold_a_sensitive_value_or_pii(lang: str, level: str, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The log lines as written (JSON on stderr, through the same processors as in production).
    The configuration before is put back after: its logger must not keep the captured stream."""
    monkeypatch.setattr(dialogkit_logging, "_configured", dialogkit_logging._configured)
    saved = structlog.get_config()
    configure_logging(level=level, json=True, force=True)
    try:
        bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
        talk(bot, lang)
    finally:
        structlog.configure(**saved)
    text = capsys.readouterr().err
    assert '"event": "turn"' in text
    assert PHONE not in text and EMAIL not in text
    assert NOTE[lang] not in text


@LANGS
def test_exports_mask_pii_unless_asked(lang: str) -> None:
    bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
    talk(bot, lang)
    built = bot.build_context("s1")
    for fmt in ("json", "csv", "txt"):
        masked = render(built, "s1", fmt, raw=False)
        assert PHONE not in masked and EMAIL not in masked
    assert EMAIL in render(built, "s1", "json", raw=True)


@LANGS
def test_llm_requests_never_carry_a_sensitive_value(lang: str) -> None:
    """Every request body the scripted server received, on every turn, the typing turn included."""
    with ScriptedLLMServer(lambda body: "{}") as server:
        spec = LLMSpec(model="scripted-model", timeout_s=2.0, max_retries=0, use_for=["understanding", "summaries"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client)
            talk(bot, lang)
            for _ in range(6):                                   # enough rounds to fold a summary
                bot.handle("s1", "谢谢" if lang == "zh" else "thanks", user_id="alice")
        finally:
            client.close()
        bodies = json.dumps(server.requests, ensure_ascii=False)
    assert server.requests, "the LLM was never asked"
    assert NOTE[lang] not in bodies


def test_a_typed_sensitive_value_never_reaches_the_llm_either() -> None:
    """A sensitive slot with an entity type (the flights bot's passport number), typed unasked,
    in either language: masked in every request body from the turn it is typed."""
    flights = ROOT / "examples" / "flights" / "flights.yaml"
    with ScriptedLLMServer(lambda body: "{}") as server:
        spec = LLMSpec(model="scripted-model", timeout_s=2.0, max_retries=0, use_for=["understanding", "summaries"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(flights, store="memory://", llm=client)
            for text in ["I need to change my flight, booking ABC123, passport E12345678", "护照号 G87654321", "thanks"]:
                bot.handle("s1", text, user_id="alice")
        finally:
            client.close()
        bodies = json.dumps(server.requests, ensure_ascii=False)
    assert server.requests and "ABC123" in bodies
    assert "E12345678" not in bodies and "G87654321" not in bodies


@needs_redis
def test_with_a_key_redis_holds_no_sensitive_value(key: str) -> None:
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    prefix = f"dkpii:{uuid.uuid4().hex[:8]}:"
    bot = Bot.from_file(SUPPORT, store=RedisStore(REDIS_URL, prefix=prefix), actions=STUBS)
    talk(bot, "zh")
    assert bot.session("s1").user_id == "alice"
    bot.close()
    stored = redis_text(prefix)
    assert stored and NOTE["zh"] not in stored and PHONE not in stored and EMAIL not in stored
