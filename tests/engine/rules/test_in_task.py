"""A turn inside a task: a digression, an aside, an FAQ, the slot values, and the answer to a
confirmation."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import AnswerFaq, Confirm, Deny, Help, NotUnderstood, SetSlots, StartFlow
from dialogkit.engine.policy import Policy
from dialogkit.engine.rules.in_task import (
    aside,
    confirm,
    correction,
    deny,
    digression,
    faq,
    for_waiting_task,
    not_answered,
    slot_values,
)
from dialogkit.model.session import Session
from tests.engine.rules._bot import collecting, confirming, said, seen, task, values

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
HELD = {"order_id": "12345", "product": "phone"}
HOURS = {"zh": "营业时间是什么", "en": "what are your opening hours"}
CHAT = {"zh": "随便聊聊吧", "en": "tell me a joke"}


def asking_product(lang: str) -> Session:
    return collecting(lang, "report_issue", "product", {"order_id": "12345"})


class TestDigression:
    @pytest.mark.parametrize(("lang", "text", "flow"), [
        ("zh", "先帮我查一下订单状态", "check_status"), ("en", "actually, check my order status first", "check_status"),
        ("zh", "我要退货", "return_order"), ("en", "I want to return an order", "return_order"),
    ])
    def test_another_flows_request_suspends_the_task(self, lang: str, text: str, flow: str) -> None:
        assert digression(seen(asking_product(lang), text)) == [StartFlow(rule="digression", words=text, flow=flow)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我要报修"), ("en", "I want to report an issue"),
                                                ("zh", "手机"), ("en", "phone")])
    def test_this_tasks_own_words_or_an_answer_start_nothing(self, lang: str, text: str) -> None:
        assert digression(seen(asking_product(lang), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "先帮我查一下订单状态"), ("en", "actually, check my order status first")])
    def test_a_flow_waiting_below_is_not_started_again(self, lang: str, text: str) -> None:
        session = asking_product(lang)
        session.stack.insert(0, task(session).model_copy(update={"flow": "check_status", "id": "below"}))
        assert digression(seen(session, text)) == []


class TestAside:
    @pytest.mark.parametrize(("lang", "text", "rule", "words"), [
        ("zh", "你能做什么？", "help", "你能做什么"), ("en", "what can you do?", "help", "what can you do"),
        ("zh", "还有别的吗", "alternatives", "还有别的吗"), ("en", "any other options?", "alternatives", "any other options"),
    ])
    def test_help_or_other_options_are_answered_and_the_question_kept(self, lang: str, text: str, rule: str,
                                                                     words: str) -> None:
        assert aside(seen(asking_product(lang), text)) == [Help(rule=rule, words=words)]
        assert aside(seen(confirming(lang, "report_issue", HELD), text)) == [Help(rule=rule, words=words)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "手机"), ("en", "phone"), ("zh", CHAT["zh"]), ("en", CHAT["en"])])
    def test_an_answer_or_small_talk_is_no_aside(self, lang: str, text: str) -> None:
        assert aside(seen(asking_product(lang), text)) == []


class TestFaqInTask:
    @LANGS
    def test_an_faq_question_is_answered(self, lang: str) -> None:
        expected = [AnswerFaq(rule="faq", words=HOURS[lang], entry="opening_hours")]
        assert faq(seen(asking_product(lang), HOURS[lang])) == expected
        assert faq(seen(confirming(lang, "report_issue", HELD), HOURS[lang])) == expected

    @pytest.mark.parametrize(("lang", "text"), [("zh", "营业时间是什么？"), ("en", "what are your opening hours?")])
    def test_asked_where_free_text_is_wanted_it_is_still_a_question(self, lang: str, text: str) -> None:
        session = collecting(lang, "return_order", "details", {"order_id": "12345"})
        assert faq(seen(session, text)) == [AnswerFaq(rule="faq", words=text, entry="opening_hours")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "营业时间太短了我不喜欢"), ("en", "your opening hours are too short for me")])
    def test_stated_where_free_text_is_wanted_it_is_the_answer(self, lang: str, text: str) -> None:
        session = collecting(lang, "return_order", "details", {"order_id": "12345"})
        assert faq(seen(session, text)) == []
        assert values(slot_values(seen(session, text))) == {"details": text}


class TestSlotValues:
    @pytest.mark.parametrize(("lang", "text", "value"), [("zh", "手机", "phone"), ("en", "phone", "phone"),
                                                         ("zh", "平板电脑", "tablet"), ("en", "tablet", "tablet")])
    def test_the_answer_gives_the_asked_slot(self, lang: str, text: str, value: str) -> None:
        made = slot_values(seen(asking_product(lang), text))
        assert [c.rule for c in made] == ["slot_offer"] and values(made) == {"product": value}

    @LANGS
    def test_an_answer_giving_nothing_is_still_an_answer(self, lang: str) -> None:
        assert values(slot_values(seen(asking_product(lang), CHAT[lang]))) == {}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "99999"), ("en", "99999")])
    def test_a_value_outside_the_choices_listed_is_refused(self, lang: str, text: str) -> None:
        """The refusal names the value; the question asked after it lists the choices."""
        made = slot_values(seen(collecting(lang, "return_order", "order_id"), text))
        assert [(type(c), c.rule, c.words) for c in made] == [(NotUnderstood, "choose", text)]
        assert isinstance(made[0], NotUnderstood) and made[0].message and text in made[0].message


class TestCorrection:
    @pytest.mark.parametrize(("lang", "text", "changed"), [
        ("zh", "不对，是笔记本", {"product": "laptop"}), ("en", "no, the laptop", {"product": "laptop"}),
        ("zh", "67890", {"order_id": "67890"}), ("en", "no, 67890", {"order_id": "67890"}),
    ])
    def test_new_values_at_the_confirmation_change_the_task(self, lang: str, text: str,
                                                            changed: dict[str, str]) -> None:
        made = correction(seen(confirming(lang, "report_issue", HELD), text))
        assert [c.rule for c in made] == ["correction"] and values(made) == changed

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是它"), ("en", "no, it is that one")])
    def test_a_pronoun_pointing_at_the_value_held_changes_nothing(self, lang: str, text: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        said(session, "12345")
        assert correction(seen(session, text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对"), ("en", "no"), ("zh", "好的"), ("en", "yes")])
    def test_a_yes_or_no_alone_changes_nothing(self, lang: str, text: str) -> None:
        assert correction(seen(confirming(lang, "report_issue", HELD), text)) == []


class TestConfirmation:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "好的"), ("zh", "确认"), ("en", "yes")])
    def test_a_yes_runs_the_action(self, lang: str, text: str) -> None:
        assert confirm(seen(confirming(lang, "report_issue", HELD), text)) == [Confirm(rule="confirm", words=text)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对"), ("en", "no"), ("zh", CHAT["zh"]), ("en", CHAT["en"])])
    def test_no_yes_no_confirmation(self, lang: str, text: str) -> None:
        assert confirm(seen(confirming(lang, "report_issue", HELD), text)) == []

    @pytest.mark.parametrize(("lang", "text", "words"), [("zh", "不对", "不对"), ("en", "no", "no"),
                                                         ("en", "actually", "actually"), ("zh", "不对，是它", "不对")])
    def test_a_no_or_a_correction_with_no_value_asks_what_to_change(self, lang: str, text: str, words: str) -> None:
        assert deny(seen(confirming(lang, "report_issue", HELD), text)) == [Deny(rule="deny", words=words)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "好的"), ("en", "yes"), ("zh", CHAT["zh"]), ("en", CHAT["en"])])
    def test_a_yes_or_small_talk_is_no_denial(self, lang: str, text: str) -> None:
        assert deny(seen(confirming(lang, "report_issue", HELD), text)) == []

    @LANGS
    def test_anything_else_is_not_answered(self, lang: str) -> None:
        made = not_answered(seen(confirming(lang, "report_issue", HELD), CHAT[lang]))
        assert made == [NotUnderstood(rule="not_understood", words=CHAT[lang])]


class TestForWaitingTask:
    """An answer with no value for the question asked, but values of the task waiting below."""

    @staticmethod
    def below_a_table_booking(lang: str) -> Session:
        session = collecting(lang, "check_status", "order_id")
        session.stack.insert(0, task(session).model_copy(
            update={"flow": "book_table", "id": "below", "slots": {}, "pending_slot": "time"}))
        return session

    @pytest.mark.parametrize(("lang", "text"), [("zh", "晚上7点"), ("en", "at 7pm")])
    def test_values_of_the_waiting_task_are_kept_for_it(self, lang: str, text: str) -> None:
        made = for_waiting_task(seen(self.below_a_table_booking(lang), text))
        assert values(made) == {"time": "19:00"}
        assert isinstance(made[0], SetSlots) and made[0].task == "below" and made[0].rule == "for_waiting_task"

    @pytest.mark.parametrize(("lang", "text"), [("zh", "12"), ("en", "12")])
    def test_a_bare_number_stays_the_questions_failed_answer(self, lang: str, text: str) -> None:
        assert for_waiting_task(seen(self.below_a_table_booking(lang), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "晚上7点"), ("en", "at 7pm")])
    def test_with_no_task_waiting_there_is_nothing_to_keep(self, lang: str, text: str) -> None:
        assert for_waiting_task(seen(collecting(lang, "check_status", "order_id"), text)) == []


class TestKeptForWaitingTask:
    """The processor keeps for a waiting task only the values it would write without asking."""

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_value_shaped_like_a_phone_number_is_not_kept(self, lang: str) -> None:
        turn = seen(collecting(lang, "check_status", "order_id"), "13812345678")
        slot = turn.bot.flows["report_issue"].spec.slot("order_id")
        assert slot is not None
        assert Policy._in_doubt(turn.ctx, slot, "13812345678")
        assert not Policy._in_doubt(turn.ctx, slot, "12345")
