"""Giving up: "算了" / "never mind" with no task cancels nothing, inside a task ends it unless the
words answer the question asked; the words after the cancel may request another flow instead."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import Cancel, StartFlow
from dialogkit.engine.rules import cancelling
from dialogkit.engine.rules.cancelling import cancel, give_up
from tests.engine.rules._bot import collecting, confirming, idle, seen

HELD = {"order_id": "12345", "product": "phone"}


class TestCancel:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "算了"), ("zh", "取消"), ("en", "never mind"), ("en", "cancel")])
    def test_a_cancel_with_no_task_cancels_nothing(self, lang: str, text: str) -> None:
        assert cancel(seen(idle(lang), text)) == [Cancel(rule="cancel", words=text)]

    @pytest.mark.parametrize(("lang", "text", "cancelled", "rest"), [
        ("zh", "那算了，帮我订一张桌子", "那算了", "帮我订一张桌子"),
        ("en", "never mind, book a table instead", "never mind", "book a table instead"),
    ])
    def test_the_words_after_it_start_the_flow_they_request(self, lang: str, text: str, cancelled: str,
                                                            rest: str) -> None:
        assert cancel(seen(idle(lang), text)) == [
            Cancel(rule="cancel", words=cancelled), StartFlow(rule="instead", words=rest, flow="book_table")]

    @pytest.mark.parametrize(("lang", "text", "rest"), [
        ("zh", "那算了，帮我订一张桌子", "帮我订一张桌子"), ("en", "never mind, book a table instead", "book a table instead"),
    ])
    def test_the_request_is_the_one_read_with_the_turn(self, lang: str, text: str, rest: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
        """The words after the cancel were read with the turn (``Interpretation.instead``): the rule
        reads nothing again."""
        turn = seen(idle(lang), text)

        def never(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("the words were read again")

        monkeypatch.setattr(turn.bot.understanding, "interpret", never)
        monkeypatch.setattr(turn.bot.understanding, "extract", never)
        assert cancel(turn)[-1] == StartFlow(rule="instead", words=rest, flow="book_table")

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我要报修"), ("en", "I want to report an issue")])
    def test_a_request_with_no_cancel_is_no_cancel(self, lang: str, text: str) -> None:
        assert cancel(seen(idle(lang), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("en", "book a table, never mind")])
    def test_a_request_taken_back_starts_nothing(self, lang: str, text: str) -> None:
        assert cancel(seen(idle(lang), text)) == [Cancel(rule="cancel", words="book a table")]


class TestGiveUp:
    @pytest.mark.parametrize(("lang", "text", "words"), [
        ("zh", "算了，不办了", "算了"), ("zh", "取消", "取消"), ("en", "forget it", "forget it"), ("en", "cancel", "cancel"),
    ])
    def test_a_cancel_inside_a_task_ends_it(self, lang: str, text: str, words: str) -> None:
        session = collecting(lang, "change_subscription", "change")
        assert give_up(seen(session, text)) == [Cancel(rule="cancel", words=words)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "停止"), ("zh", "停止。"), ("en", "stop"), ("en", "stop.")])
    def test_the_value_declared_for_the_question_asked_is_an_answer(self, lang: str, text: str) -> None:
        """"停止" to "暂停还是停止？" / "stop" to "pause it or stop it?"."""
        assert give_up(seen(collecting(lang, "change_subscription", "change"), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "停止"), ("en", "stop")])
    def test_the_same_word_to_another_question_gives_up(self, lang: str, text: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert give_up(seen(session, text)) == [Cancel(rule="cancel", words=text)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，停止"), ("en", "actually, stop")])
    def test_a_correction_to_a_declared_value_is_an_answer(self, lang: str, text: str) -> None:
        session = collecting(lang, "change_subscription", "change")
        assert give_up(seen(session, text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是笔记本，算了"), ("en", "actually the laptop, never mind")])
    def test_a_correction_to_another_declared_value_at_the_confirmation_is_no_cancel(self, lang: str,
                                                                                     text: str) -> None:
        assert give_up(seen(confirming(lang, "report_issue", HELD), text)) == []

    @pytest.mark.parametrize(("lang", "text", "words"), [
        ("zh", "不对，算了", "不对"), ("en", "actually, never mind", "actually"),
        ("en", "actually the phone, never mind", "actually the phone"),
    ])
    def test_a_correction_naming_nothing_new_gives_up(self, lang: str, text: str, words: str) -> None:
        """The phone is the value held: the words correct nothing, so they give up."""
        assert give_up(seen(confirming(lang, "report_issue", HELD), text)) == [Cancel(rule="cancel", words=words)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不用了，谢谢"), ("zh", "不用了"), ("en", "no thanks"),
                                                ("en", "no, thank you")])
    def test_a_no_to_a_yes_no_question_is_an_answer(self, lang: str, text: str) -> None:
        """"不用了，谢谢" to "需要为您补寄一张新卡吗？"."""
        session = collecting(lang, "change_subscription", "send_card", {"change": "pause"})
        assert give_up(seen(session, text)) == []

    @pytest.mark.parametrize(("lang", "text", "made"), [
        ("zh", "不用了，谢谢", []), ("en", "never mind", [Cancel(rule="cancel", words="never mind")])])
    def test_the_no_is_the_one_read_with_the_turn(self, lang: str, text: str, made: list[Cancel],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        """Whether the words are a no the turn's reading says (``Interpretation.answer``): the rule
        reads nothing again. "不用了，谢谢" declines the question; "never mind" is no answer, and gives up."""
        session = collecting(lang, "change_subscription", "send_card", {"change": "pause"})
        turn = seen(session, text)

        def never(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("the words were read again")

        monkeypatch.setattr(cancelling, "leading_answer", never, raising=False)
        assert give_up(turn) == made

    @pytest.mark.parametrize(("lang", "text", "cancelled", "rest"), [
        ("zh", "算了，我要退货", "算了", "我要退货"),
        ("en", "never mind, I want to return an order", "never mind", "I want to return an order"),
    ])
    def test_another_flow_requested_instead_starts(self, lang: str, text: str, cancelled: str, rest: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert give_up(seen(session, text)) == [
            Cancel(rule="cancel", words=cancelled), StartFlow(rule="instead", words=rest, flow="return_order")]

    @pytest.mark.parametrize(("lang", "text", "cancelled"), [
        ("zh", "算了，我要报修", "算了"), ("en", "never mind, report an issue", "never mind")])
    def test_the_flow_given_up_is_not_started_again(self, lang: str, text: str, cancelled: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert give_up(seen(session, text)) == [Cancel(rule="cancel", words=cancelled)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "12345"), ("en", "it's 12345")])
    def test_an_answer_is_no_cancel(self, lang: str, text: str) -> None:
        assert give_up(seen(collecting(lang, "report_issue", "order_id"), text)) == []
