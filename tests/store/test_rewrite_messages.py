"""Stored history rows rewritten inside a turn: the one way a message changes once written, used
to mask a finished task's sensitive values at rest (docs/stores.md, "Sensitive values at rest")."""

from __future__ import annotations

import pytest

from dialogkit.store import SessionStore
from tests.store.factories import add_messages, make_session

PHONE = "13812345678"
SAID = {"zh": f"我的新手机号是{PHONE}", "en": f"my new number is {PHONE}"}
LANGS = pytest.mark.parametrize("language", ["zh", "en"])


def _stored_with_phone(store: SessionStore, language: str) -> None:
    with store.transaction("s") as txn:
        session = make_session("s", language=language, messages=4)
        session.history[2] = session.history[2].model_copy(update={"content": SAID[language]})
        txn.save(session)


@LANGS
def test_a_rewritten_row_replaces_the_stored_one_in_the_same_commit(store: SessionStore, language: str) -> None:
    _stored_with_phone(store, language)
    with store.transaction("s") as txn:
        session = txn.session
        assert session is not None and PHONE in session.history[2].content
        masked = session.history[2].model_copy(update={"content": SAID[language].replace(PHONE, "***")})
        session.history[2] = masked
        add_messages(session, 2, language)
        txn.rewrite_messages({2: masked})
        txn.save(session)
    history = store.history("s")
    assert len(history) == 6 and history[2].content == masked.content
    assert not any(PHONE in m.content for m in history)
    loaded = store.load("s")
    assert loaded is not None and not any(PHONE in m.content for m in loaded.history)


def test_a_turn_that_raises_rewrites_nothing(store: SessionStore) -> None:
    _stored_with_phone(store, "en")
    with pytest.raises(RuntimeError), store.transaction("s") as txn:
        session = txn.session
        assert session is not None
        txn.rewrite_messages({2: session.history[2].model_copy(update={"content": "***"})})
        txn.save(session)
        raise RuntimeError("the turn failed")
    assert PHONE in store.history("s")[2].content


def test_a_row_this_turn_appends_is_written_by_save_not_rewritten(store: SessionStore) -> None:
    with store.transaction("s") as txn:
        session = make_session("s", messages=2)
        txn.rewrite_messages({1: session.history[1].model_copy(update={"content": "***"})})
        txn.save(session)
    assert [m.content for m in store.history("s")] == [m.content for m in session.history]
