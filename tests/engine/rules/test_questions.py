"""The bot's own question pending ("您指的是哪一个：12345 还是 67890？"): an answer chooses, small
talk or help keeps the question once, anything else drops it."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import Choose, KeepQuestion
from dialogkit.engine.rules.questions import clarification_answer
from dialogkit.model.session import Candidate, PendingClarification, Session
from tests.engine.rules._bot import collecting, idle, pending_choice, seen

SECOND = Candidate(value="67890", type="order_id", label="67890")


def asked(lang: str, *, kept: int = 0) -> tuple[Session, PendingClarification]:
    session = idle(lang)
    return session, pending_choice(session, "12345", "67890", kept=kept)


@pytest.mark.parametrize(("lang", "text"), [("zh", "第二个"), ("zh", "67890"), ("en", "the second one"),
                                            ("en", "67890")])
def test_an_ordinal_or_a_value_chooses(lang: str, text: str) -> None:
    session, pending = asked(lang)
    assert clarification_answer(seen(session, text)) == [
        Choose(rule="clarification_answer", words=text, pending=pending, choice=SECOND)]


@pytest.mark.parametrize(("lang", "text", "reply", "entry"), [
    ("zh", "你能做什么？", "help", None), ("en", "what can you do?", "help", None),
    ("zh", "你好", "greeting", None), ("en", "hello", "greeting", None),
    ("zh", "营业时间是什么", "faq", "opening_hours"), ("en", "what are your opening hours", "faq", "opening_hours"),
    ("zh", "随便聊聊吧", "not_understood", None), ("en", "tell me a joke", "not_understood", None),
])
def test_small_talk_or_help_keeps_the_question(lang: str, text: str, reply: str, entry: str | None) -> None:
    session, pending = asked(lang)
    assert clarification_answer(seen(session, text)) == [
        KeepQuestion(rule="keep_question", words=text, pending=pending, reply=reply, entry=entry)]


@pytest.mark.parametrize(("lang", "text"), [("zh", "你好"), ("en", "hello")])
def test_the_question_is_kept_only_once(lang: str, text: str) -> None:
    session, _ = asked(lang, kept=1)
    assert clarification_answer(seen(session, text)) == []


@pytest.mark.parametrize(("lang", "text"), [("zh", "我要报修"), ("en", "I want to report an issue"),
                                            ("zh", "算了"), ("en", "never mind")])
def test_a_new_request_or_a_cancel_drops_the_question(lang: str, text: str) -> None:
    session, _ = asked(lang)
    assert clarification_answer(seen(session, text)) == []


@pytest.mark.parametrize(("lang", "text"), [("zh", "3"), ("en", "3")])
def test_a_value_for_the_active_task_drops_the_question(lang: str, text: str) -> None:
    """A bare number while the party size is asked is that answer, not small talk."""
    session = collecting(lang, "book_table", "party_size")
    pending_choice(session, "12345", "67890")
    assert clarification_answer(seen(session, text)) == []


@pytest.mark.parametrize(("lang", "text"), [("zh", "我刚喝了一杯咖啡"), ("en", "I just had 1 coffee")])
def test_a_number_in_running_text_is_no_value_for_the_task(lang: str, text: str) -> None:
    session = collecting(lang, "book_table", "party_size")
    pending = pending_choice(session, "12345", "67890")
    assert clarification_answer(seen(session, text)) == [
        KeepQuestion(rule="keep_question", words=text, pending=pending, reply="not_understood")]


@pytest.mark.parametrize(("lang", "text"), [("zh", "第二个"), ("en", "the second one")])
def test_nothing_pending_nothing_chosen(lang: str, text: str) -> None:
    assert clarification_answer(seen(idle(lang), text)) == []


@pytest.mark.parametrize(("lang", "text"), [("zh", "第二个"), ("en", "the second one")])
def test_a_slot_value_question_is_answered_only_in_its_own_task(lang: str, text: str) -> None:
    """"12345 还是 67890？" asked for the order number of one task is no question in another."""
    def pending(flow: str) -> tuple[Session, PendingClarification]:
        session = collecting(lang, "report_issue", "order_id")
        session.pending = PendingClarification(
            kind="slot_value", candidates=[Candidate(value=o, type="order_id", label=o) for o in ("12345", "67890")],
            original_text="12345 67890", slot="order_id", flow=flow, language=lang)
        return session, session.pending
    session, own = pending("report_issue")
    assert clarification_answer(seen(session, text)) == [
        Choose(rule="clarification_answer", words=text, pending=own, choice=SECOND)]
    assert clarification_answer(seen(pending("check_status")[0], text)) == []
