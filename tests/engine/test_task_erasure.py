"""A finished task's sensitive values erased at rest: once its task completes or is cancelled, a
sensitive slot's value is in no stored row, its history shows the mask, and later windows still
mask it; the reply of the turn that ended it still carries the real value
(docs/stores.md, "Sensitive values at rest")."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.store import SessionStore
from dialogkit.strings.redaction import MASK
from tests.store.factories import REDIS_URL, needs_redis, redis_text

ACCOUNT = Path(__file__).parent / "bots" / "account.yaml"
PHONE = "13812345678"
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
CHANGE = {"zh": ["修改手机号", f"新号码是{PHONE}"], "en": ["change my phone number", f"it is {PHONE}"]}
YES = {"zh": "确认", "en": "yes"}
CANCEL = {"zh": "取消", "en": "cancel"}
UNCLEAR = {"zh": "嗯……让我想想", "en": "hmm, let me think"}
CHAT = {"zh": "谢谢，我之后再来。", "en": "thanks, see you later."}


def sqlite_rows(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        rows = [r[0] for table in ("sessions", "messages", "user_slots") for r in conn.execute(f"SELECT data FROM {table}")]
    return "\n".join(r.decode("utf-8", "replace") if isinstance(r, bytes) else str(r) for r in rows)


def stored_results(bot: Bot) -> list[dict[str, Any]]:
    session = bot.store.load("s")
    assert session is not None
    return list(session.executed.values())


def assert_masked(bot: Bot) -> None:
    """The stored history shows the mask, and a window built later masks the value too."""
    history = [m.content for m in bot.store.history("s")]
    assert not any(PHONE in c for c in history) and any(MASK in c for c in history)
    assert not any(PHONE in m.content for m in bot.context("s"))


@LANGS
@pytest.mark.parametrize("ending", [YES, CANCEL], ids=["completed", "cancelled"])
def test_an_ended_tasks_value_is_in_no_sqlite_row(lang: str, ending: dict[str, str], tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    with Bot.from_file(ACCOUNT, store=f"sqlite:///{db}") as bot:
        for text in CHANGE[lang]:
            bot.handle("s", text)
        assert PHONE in sqlite_rows(db)           # in clear while its task runs (no key set)
        reply = bot.handle("s", ending[lang])
        assert reply.flow is None
        if ending is YES:                          # the turn that ended the task saw the real value
            assert reply.slots["new_phone"] == PHONE
        bot.handle("s", CHAT[lang])
        assert_masked(bot)
    assert PHONE not in sqlite_rows(db)


@LANGS
def test_a_memory_store_keeps_the_value_only_to_mask_later_windows(lang: str) -> None:
    """Nothing of ``memory://`` is at rest: the session still remembers the value, so a later
    window masks it even when it is typed again."""
    with Bot.from_file(ACCOUNT, store="memory://") as bot:
        for text in [*CHANGE[lang], YES[lang]]:
            bot.handle("s", text)
        bot.handle("s", PHONE)
        assert not any(PHONE in m.content for m in bot.context("s"))


@needs_redis
@LANGS
def test_a_completed_tasks_value_is_in_no_redis_key(lang: str) -> None:
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    prefix = f"dkerase:{uuid.uuid4().hex[:8]}:"
    with Bot.from_file(ACCOUNT, store=RedisStore(REDIS_URL, prefix=prefix)) as bot:
        for text in [*CHANGE[lang], YES[lang], CHAT[lang]]:
            bot.handle("s", text)
        assert_masked(bot)
    assert PHONE not in redis_text(prefix)


@needs_redis
@LANGS
def test_an_awaited_turn_erases_on_redis_too(lang: str) -> None:
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    prefix = f"dkerase:{uuid.uuid4().hex[:8]}:"
    store: SessionStore = RedisStore(REDIS_URL, prefix=prefix)
    with Bot.from_file(ACCOUNT, store=store) as bot:
        async def run() -> None:
            for text in [*CHANGE[lang], CANCEL[lang]]:
                await bot.ahandle("s", text)

        asyncio.run(run())
        assert_masked(bot)
    assert PHONE not in redis_text(prefix)


@LANGS
def test_a_task_that_began_before_the_loaded_tail_is_erased_back_to_its_start(lang: str, tmp_path: Path) -> None:
    """A long task (its first rows no longer in the tail a turn loads) is masked in the older stored
    rows too: they are read back from the store as far as the task's first turn."""
    db = tmp_path / "bot.db"
    with Bot.from_file(ACCOUNT, store=f"sqlite:///{db}") as bot:
        bot.turns.view.history_tail = 2              # a turn loads only its last two rows
        for text in [*CHANGE[lang], UNCLEAR[lang]]:
            bot.handle("s", text)
        assert PHONE not in str(bot.store.load("s", history_tail=2).history)   # out of the tail
        assert bot.handle("s", YES[lang]).flow is None
        bot.handle("s", CHAT[lang])
        assert_masked(bot)
    assert PHONE not in sqlite_rows(db)


@LANGS
def test_an_action_result_that_echoes_the_value_is_masked_at_rest(lang: str, tmp_path: Path) -> None:
    """The session keeps each action's result (so a repeated "yes" never runs it twice); a result
    that repeats the sensitive value is masked with the rest of the task."""
    bot_file = tmp_path / "account.yaml"
    bot_file.write_text(ACCOUNT.read_text(encoding="utf-8").replace(
        "    execute:\n", "    execute:\n      action: save_phone\n"), encoding="utf-8")
    db = tmp_path / "bot.db"
    ran: list[str] = []

    def save_phone(ctx: Any) -> dict[str, str]:
        ran.append(ctx.slots["new_phone"])
        return {"receipt": f"phone set to {ctx.slots['new_phone']}"}

    with Bot.from_file(bot_file, store=f"sqlite:///{db}", actions={"save_phone": save_phone}) as bot:
        for text in [*CHANGE[lang], YES[lang]]:
            bot.handle("s", text)
        assert ran == [PHONE]                        # the action got the real value
        assert all(PHONE not in str(result) for result in stored_results(bot))
    assert PHONE not in sqlite_rows(db)
