"""A session id is never a user id (docs/stores.md, "Whose values a session sees").

A user's ``persist: user`` values reach a session only when the turn names that user; a turn
without a user is anonymous and reads and writes no user's values. A session bound to a user
refuses turns without that user; an anonymous session is taken by the first user a turn names.
Sessions stored by older versions (which took the session id as the user) are migrated safely.
"""

from __future__ import annotations

import pytest

from dialogkit.actions.loading import parse_bot_text
from dialogkit.bot import Bot
from dialogkit.engine.ownership import SessionOwnerError
from dialogkit.model.session import PersistedValue, Session, Task, user_scope
from dialogkit.store import SessionStore
from tests.engine._parts import ROOT, STUBS, SUPPORT
from tests.store.conftest import store, store_factory

__all__ = ["store", "store_factory"]          # the store fixtures: memory, SQLite, Redis

TICKET = {"zh": ["我上周买的手机屏幕碎了", "123456", "确认"],
          "en": ["my phone arrived broken", "123456", "yes"]}
REPORT = {"zh": "我的手机坏了", "en": "my phone arrived broken"}
ASK_ORDER = {"zh": "订单号", "en": "order number"}
YES = {"zh": "确认", "en": "yes"}


def support_bot(store: SessionStore) -> Bot:
    text = SUPPORT.read_text(encoding="utf-8")
    return Bot(parse_bot_text(text, filename=str(SUPPORT), base_dir=ROOT, actions=STUBS), store)


def file_ticket(bot: Bot, session_id: str, language: str, user_id: str | None) -> None:
    for text in TICKET[language]:
        bot.handle(session_id, text, user_id=user_id)


@pytest.mark.parametrize("language", ["zh", "en"])
class TestAnonymousTurns:
    def test_a_session_named_like_a_user_gets_none_of_their_values(self, store: SessionStore,
                                                                   language: str) -> None:
        bot = support_bot(store)
        file_ticket(bot, "web-7f3a", language, user_id="alice")
        reply = bot.handle("alice", REPORT[language])           # no user: anonymous, whatever its id
        assert "123456" not in reply.text and reply.slots.get("order_id") is None
        assert ASK_ORDER[language] in reply.text
        assert bot.session("alice").user_id is None
        assert bot.store.sessions_of("alice") == ["web-7f3a"]

    def test_the_named_user_still_gets_them(self, store: SessionStore, language: str) -> None:
        bot = support_bot(store)
        file_ticket(bot, "web-7f3a", language, user_id="alice")
        reply = bot.handle("web-9c21", REPORT[language], user_id="alice")
        assert reply.slots.get("order_id") == "123456" and "123456" in reply.text

    def test_user_values_of_an_anonymous_session_stay_in_it(self, store: SessionStore, language: str) -> None:
        """``persist: user`` in an anonymous session behaves as ``persist: session``."""
        bot = support_bot(store)
        file_ticket(bot, "web-1", language, user_id=None)
        assert store.user_keys() == []                            # nothing stored under any user
        assert bot.session("web-1").user_id is None
        again = bot.handle("web-1", REPORT[language])             # the same session remembers it
        assert again.slots.get("order_id") == "123456"
        other = bot.handle("web-2", REPORT[language])             # another anonymous session does not
        assert other.slots.get("order_id") is None
        named = bot.handle("web-3", REPORT[language], user_id="web-1")
        assert named.slots.get("order_id") is None


@pytest.mark.parametrize("language", ["zh", "en"])
class TestOwnership:
    def test_a_session_bound_to_a_user_refuses_turns_without_them(self, store: SessionStore,
                                                                  language: str) -> None:
        bot = support_bot(store)
        bot.handle("a1", TICKET[language][0], user_id="alice")
        bot.handle("a1", TICKET[language][1], user_id="alice")
        before = bot.session("a1")
        with pytest.raises(SessionOwnerError) as caught:
            bot.handle("a1", YES[language])
        assert "a1" in str(caught.value)
        after = bot.session("a1")
        assert (after.user_id, len(after.history), after.state) == ("alice", len(before.history), before.state)
        assert bot.handle("a1", YES[language], user_id="alice").actions != []

    def test_an_anonymous_session_is_taken_by_the_first_user_named(self, store: SessionStore,
                                                                   language: str) -> None:
        bot = support_bot(store)
        file_ticket(bot, "a1", language, user_id="alice")         # alice's order, in her values
        bot.handle("w1", TICKET[language][0])                     # a visitor, not signed in yet
        assert bot.session("w1").user_id is None
        bot.handle("w1", TICKET[language][1], user_id="bob")      # signs in as bob: the session is his
        assert bot.session("w1").user_id == "bob" and bot.store.sessions_of("bob") == ["w1"]
        with pytest.raises(SessionOwnerError):
            bot.handle("w1", YES[language])                       # no longer anonymous
        with pytest.raises(SessionOwnerError):
            bot.handle("w1", YES[language], user_id="alice")      # nor anyone else's


def _legacy(session_id: str, user_id: str, language: str) -> Session:
    """A session as versions before 2 stored it: an anonymous one had its own id as user."""
    task = Task(flow="report_issue", state="CONFIRMATION", pending_slot=None,
                slots={"product": "phone", "issue": "damaged", "order_id": "123456"})
    return Session(version=1, id=session_id, user_id=user_id, language=language, stack=[task])


def _store_legacy(store: SessionStore, bot: Bot, session: Session) -> None:
    session.bot_version = bot.loaded.version
    with store.transaction(session.id) as txn:
        txn.save(session)
        if session.user_id is not None:
            txn.set_user_slot(user_scope(bot.spec.bot.name, session.user_id), "order_id",
                              PersistedValue(value="123456", flow="report_issue"))


@pytest.mark.parametrize("language", ["zh", "en"])
class TestStoredByOlderVersions:
    def test_an_anonymous_turn_starts_an_ambiguous_session_afresh(self, store: SessionStore,
                                                                 language: str) -> None:
        """Its user was its own id: it may be an anonymous session or that user's. Neither its
        state nor that user's values reach a turn without a user."""
        bot = support_bot(store)
        _store_legacy(store, bot, _legacy("alice", "alice", language))
        reply = bot.handle("alice", REPORT[language])
        assert "123456" not in reply.text and reply.slots.get("order_id") is None
        assert not reply.actions
        session = bot.session("alice")
        assert session.user_id is None and store.sessions_of("alice") == []

    def test_the_user_it_names_goes_on_with_it(self, store: SessionStore, language: str) -> None:
        bot = support_bot(store)
        _store_legacy(store, bot, _legacy("alice", "alice", language))
        reply = bot.handle("alice", YES[language], user_id="alice")
        assert [run.name for run in reply.actions] == ["create_ticket"]
        assert bot.session("alice").user_id == "alice" and store.sessions_of("alice") == ["alice"]

    def test_another_user_is_refused(self, store: SessionStore, language: str) -> None:
        bot = support_bot(store)
        _store_legacy(store, bot, _legacy("alice", "alice", language))
        with pytest.raises(SessionOwnerError):
            bot.handle("alice", YES[language], user_id="mallory")

    def test_a_session_of_a_user_by_another_id_stays_theirs(self, store: SessionStore, language: str) -> None:
        bot = support_bot(store)
        _store_legacy(store, bot, _legacy("a1", "alice", language))
        with pytest.raises(SessionOwnerError):
            bot.handle("a1", YES[language])
        reply = bot.handle("a1", YES[language], user_id="alice")
        assert [run.name for run in reply.actions] == ["create_ticket"]
        loaded = store.load("a1")
        assert loaded is not None and loaded.version == 2
