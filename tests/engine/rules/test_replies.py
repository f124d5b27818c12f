"""Turns that start nothing: empty input, an FAQ, an ambiguous reference, a greeting, facts
offered, a request for help, and what is left (not understood)."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import AnswerFaq, Clarify, Greet, Help, Note, NotUnderstood
from dialogkit.engine.rules.replies import (
    clarify_reference,
    empty_input,
    faq,
    greeting,
    help_asked,
    not_understood,
    noted,
)
from tests.engine.rules._bot import collecting, idle, said, seen

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
CHAT = {"zh": "随便聊聊吧", "en": "tell me a joke"}            # no intent, no cue, no mention
HOURS = {"zh": "营业时间是什么", "en": "what are your opening hours"}
TWO_ORDERS = {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders 12345 and 67890"}
HOW_IS_IT = {"zh": "它现在怎么样？", "en": "how is it doing?"}


class TestEmptyInput:
    @pytest.mark.parametrize(("lang", "text"), [("zh", ""), ("en", "   ")])
    def test_no_text_asks_for_some(self, lang: str, text: str) -> None:
        assert empty_input(seen(idle(lang), text)) == [NotUnderstood(rule="empty_input", empty=True)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "，"), ("en", "?")])
    def test_punctuation_is_text(self, lang: str, text: str) -> None:
        assert empty_input(seen(collecting(lang, "report_issue", "order_id"), text)) == []


class TestFaq:
    @LANGS
    def test_a_question_the_faq_answers(self, lang: str) -> None:
        assert faq(seen(idle(lang), HOURS[lang])) == [AnswerFaq(rule="faq", words=HOURS[lang], entry="opening_hours")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我要报修"), ("en", "I want to report an issue"),
                                                ("zh", CHAT["zh"]), ("en", CHAT["en"])])
    def test_a_request_or_small_talk_is_no_faq(self, lang: str, text: str) -> None:
        assert faq(seen(idle(lang), text)) == []



class TestClarifyReference:
    @LANGS
    def test_it_after_two_orders_asks_which(self, lang: str) -> None:
        session = idle(lang)
        said(session, TWO_ORDERS[lang])
        made = clarify_reference(seen(session, HOW_IS_IT[lang]))
        assert [(type(c), c.rule, c.words) for c in made] == [(Clarify, "clarify", HOW_IS_IT[lang])]
        assert isinstance(made[0], Clarify)
        assert [c.value for c in made[0].ambiguity.candidates] == ["12345", "67890"]

    @LANGS
    def test_it_after_one_order_is_that_order(self, lang: str) -> None:
        session = idle(lang)
        said(session, "12345")
        assert clarify_reference(seen(session, HOW_IS_IT[lang])) == []


class TestGreeting:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "你好"), ("en", "hello")])
    def test_a_greeting_is_greeted_back(self, lang: str, text: str) -> None:
        assert greeting(seen(idle(lang), text)) == [Greet(rule="greeting")]

    @LANGS
    def test_small_talk_is_no_greeting(self, lang: str) -> None:
        assert greeting(seen(idle(lang), CHAT[lang])) == []


class TestNoted:
    @LANGS
    def test_facts_offered_are_acknowledged(self, lang: str) -> None:
        made = noted(seen(idle(lang), TWO_ORDERS[lang]))
        assert [(type(c), c.rule) for c in made] == [(Note, "noted")]
        assert isinstance(made[0], Note)
        assert [(m.type, m.value) for m in made[0].mentions] == [("order_id", "12345"), ("order_id", "67890")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我有两个订单"), ("en", "I have 2 orders")])
    def test_a_count_is_no_thing(self, lang: str, text: str) -> None:
        """The 两 of "两个订单" is a helper match: nothing to acknowledge."""
        assert noted(seen(idle(lang), text)) == []


class TestHelp:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "你能做什么？"), ("zh", "帮助"), ("en", "what can you do?"),
                                                ("en", "help")])
    def test_a_request_for_help(self, lang: str, text: str) -> None:
        assert help_asked(seen(idle(lang), text)) == [Help(rule="help")]

    @LANGS
    def test_small_talk_asks_no_help(self, lang: str) -> None:
        assert help_asked(seen(idle(lang), CHAT[lang])) == []


class TestNotUnderstood:
    @LANGS
    def test_what_is_left_is_not_understood(self, lang: str) -> None:
        assert not_understood(seen(idle(lang), CHAT[lang])) == [NotUnderstood(rule="not_understood", words=CHAT[lang])]
