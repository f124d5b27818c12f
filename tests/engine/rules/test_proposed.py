"""The LLM's commands at the command level: a flow, a value, a confirm, deny or cancel the model
heard (already checked against the user's words) decides a turn only where the words' own reading
does not, and a value the user typed wins over the model's.

Each test puts the model's command on the turn as the LLM layer leaves it (``ctx.proposed``, made
by ``llm``) and asks ``rules.generate`` which rule decides."""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.engine.commands import Cancel, Command, Confirm, Deny, KeepQuestion, SetSlots, StartFlow
from dialogkit.engine.rules import Seen, generate
from dialogkit.engine.rules.proposed import llm_answer, llm_cancel, merge, standing
from dialogkit.engine.slots import SlotOffer
from dialogkit.model.session import Session
from tests.engine.rules._bot import bot, collecting, confirming, idle, pending_choice, seen

HELD = {"order_id": "12345", "product": "phone"}
LONG_YES = {"zh": ("好的，就这么办吧，麻烦你们了", "好的"), "en": ("sure, that is exactly what I need, thanks a lot", "sure")}
HELLO = {"zh": "你好", "en": "hello there"}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def value(slot: str, said: Any, *, flow: str | None = None, correction: bool = False) -> SetSlots:
    """The model's value for ``slot``, as the LLM layer leaves it."""
    return SetSlots(rule="llm", offer=SlotOffer(values={slot: said}), flow=flow, correction=correction)


def heard(session: Session, text: str, *commands: Command) -> Seen:
    """The turn ``text`` with ``commands`` proposed by the model."""
    turn = seen(session, text)
    turn.ctx.proposed.extend(commands)
    return turn


class TestAnswerAtTheConfirmation:
    @LANGS
    def test_a_yes_with_a_long_tail_confirms_by_the_model(self, lang: str) -> None:
        """The rules' yes allows little after it; the model heard one, and the words open with it."""
        text, yes = LONG_YES[lang]
        session = confirming(lang, "report_issue", HELD)
        assert [c.rule for c in generate(seen(session, text))] == ["not_understood"]
        assert generate(heard(session, text, Confirm(rule="llm", words=yes))) == [Confirm(rule="llm", words=yes)]

    @LANGS
    def test_a_models_deny_asks_what_to_change(self, lang: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        assert generate(heard(session, HELLO[lang], Deny(rule="llm"))) == [Deny(rule="llm")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对"), ("en", "no")])
    def test_a_models_confirm_never_stands_against_a_no(self, lang: str, text: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        assert llm_answer(heard(session, text, Confirm(rule="llm", words=text))) == []
        assert [c.rule for c in generate(heard(session, text, Confirm(rule="llm", words=text)))] == ["deny"]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是笔记本"), ("en", "no, the laptop")])
    def test_new_values_in_the_words_correct_before_the_models_answer(self, lang: str, text: str) -> None:
        made = generate(heard(confirming(lang, "report_issue", HELD), text, Deny(rule="llm")))
        assert [c.rule for c in made] == ["correction"] and isinstance(made[0], SetSlots)
        assert made[0].offer.values == {"product": "laptop"}

    @LANGS
    def test_the_models_last_word_is_its_answer(self, lang: str) -> None:
        text, yes = LONG_YES[lang]
        turn = heard(confirming(lang, "report_issue", HELD), text, Confirm(rule="llm", words=yes), Deny(rule="llm"))
        assert llm_answer(turn) == [Deny(rule="llm")]

    @LANGS
    def test_an_answer_while_collecting_is_not_taken(self, lang: str) -> None:
        turn = heard(collecting(lang, "report_issue", "order_id"), HELLO[lang], Confirm(rule="llm", words=None))
        assert [c.rule for c in generate(turn)] == ["slot_offer"]


class TestCancel:
    @LANGS
    def test_a_models_cancel_ends_the_task(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert [c.rule for c in generate(seen(session, HELLO[lang]))] == ["slot_offer"]
        assert generate(heard(session, HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]

    @LANGS
    def test_with_no_task_there_is_nothing_to_cancel(self, lang: str) -> None:
        assert generate(heard(idle(lang), HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "停止"), ("en", "stop")])
    def test_the_value_declared_for_the_question_asked_is_an_answer(self, lang: str, text: str) -> None:
        """"停止" to "暂停还是停止？" answers, whatever the model heard in it."""
        turn = heard(collecting(lang, "change_subscription", "change"), text, Cancel(rule="llm"))
        assert llm_cancel(turn) == []
        made = generate(turn)
        assert isinstance(made[0], SetSlots) and made[0].offer.values == {"change": "stop"}

    @LANGS
    def test_a_cancel_drops_the_bots_own_question(self, lang: str) -> None:
        """Small talk keeps "which one did you mean?" once; a cancel the model heard drops it."""
        session = idle(lang)
        pending_choice(session, "12345", "67890")
        assert isinstance(generate(seen(session, HELLO[lang]))[0], KeepQuestion)
        assert generate(heard(session, HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]


START_CHECK = StartFlow(rule="llm", flow="check_status")
UNCLEAR = {"zh": "那个东西有消息了吗", "en": "any news on that thing"}
REPORT = {"zh": "我要报修", "en": "I want to report an issue"}


class TestStart:
    @LANGS
    def test_a_flow_the_model_heard_starts_where_the_words_request_none(self, lang: str) -> None:
        assert [c.rule for c in generate(seen(idle(lang), UNCLEAR[lang]))] == ["not_understood"]
        assert generate(heard(idle(lang), UNCLEAR[lang], START_CHECK)) == [START_CHECK]

    @LANGS
    def test_a_flow_the_words_clearly_request_wins(self, lang: str) -> None:
        made = generate(heard(idle(lang), REPORT[lang], START_CHECK))
        assert made == [StartFlow(rule="intent", words=REPORT[lang], flow="report_issue")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "营业时间有变化吗"), ("en", "did the business hours change")])
    def test_the_models_request_wins_over_words_that_resemble_an_faq(self, lang: str, text: str) -> None:
        assert [c.rule for c in generate(seen(idle(lang), text))] == ["faq"]
        assert generate(heard(idle(lang), text, START_CHECK)) == [START_CHECK]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "你们几点开门"), ("en", "what are your opening hours")])
    def test_an_faqs_own_question_is_answered(self, lang: str, text: str) -> None:
        assert [c.rule for c in generate(heard(idle(lang), text, START_CHECK))] == ["faq"]

    @LANGS
    def test_the_model_starts_before_values_alone_start_a_flow(self, lang: str) -> None:
        """"12345" alone is an order number of several flows: no flow of values; the model's decides."""
        assert [c.rule for c in generate(seen(idle(lang), "12345"))] != ["llm"]
        assert generate(heard(idle(lang), "12345", START_CHECK)) == [START_CHECK]


class TestDigression:
    @LANGS
    def test_another_flow_the_model_heard_suspends_the_task(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert [c.rule for c in generate(seen(session, UNCLEAR[lang]))] == ["slot_offer"]
        assert generate(heard(session, UNCLEAR[lang], START_CHECK)) == [START_CHECK]

    @LANGS
    def test_the_tasks_own_flow_starts_nothing(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        own = StartFlow(rule="llm", flow="report_issue")
        assert [c.rule for c in generate(heard(session, UNCLEAR[lang], own))] == ["slot_offer"]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是笔记本"), ("en", "no, the laptop")])
    def test_words_that_correct_the_task_correct_it(self, lang: str, text: str) -> None:
        made = generate(heard(confirming(lang, "report_issue", HELD), text, START_CHECK))
        assert [c.rule for c in made] == ["correction"]

    @LANGS
    def test_a_flow_waiting_below_is_not_started_again(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        bot().task(session, "check_status", "PARAM_COLLECT", {}, pending_slot="order_id")
        assert [c.rule for c in generate(heard(session, UNCLEAR[lang], START_CHECK))] == ["slot_offer"]


HELP = {"zh": "帮助", "en": "help"}
TYPED = {"zh": "订单号是12345", "en": "the order number is 12345"}


class TestValues:
    @LANGS
    def test_a_value_the_model_heard_makes_the_turn_an_answer(self, lang: str) -> None:
        """"help" alone is an aside; with an order number the model heard, it is an answer."""
        session = collecting(lang, "report_issue", "order_id")
        assert [c.rule for c in generate(seen(session, HELP[lang]))] == ["help"]
        made = generate(heard(session, HELP[lang], value("order_id", "67890")))
        assert [c.rule for c in made] == ["slot_offer", "llm"] and isinstance(made[1], SetSlots)
        assert made[1].offer.values == {"order_id": "67890"}

    @LANGS
    def test_a_value_the_user_typed_wins_over_the_models(self, lang: str) -> None:
        turn = heard(collecting(lang, "report_issue", "order_id"), TYPED[lang], value("order_id", "67890"))
        made = generate(turn)
        assert [c.rule for c in made] == ["slot_offer"] and isinstance(made[0], SetSlots)
        merge(turn.bot, turn.ctx, made[0].offer)
        assert made[0].offer.values == {"order_id": "12345"}

    @LANGS
    def test_the_models_value_rides_with_the_words_answer(self, lang: str) -> None:
        """The words give the product; the order number the model heard is written with it."""
        turn = heard(collecting(lang, "report_issue", "product"), {"zh": "手机", "en": "the phone"}[lang],
                     value("order_id", "67890"))
        made = generate(turn)
        assert isinstance(made[0], SetSlots) and made[0].offer.values == {"product": "phone"}
        merge(turn.bot, turn.ctx, made[0].offer)
        assert made[0].offer.values == {"product": "phone", "order_id": "67890"}
        assert turn.ctx.value_rules["order_id"] == "llm"

    @LANGS
    def test_a_set_slot_never_changes_a_held_value(self, lang: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        assert [c.rule for c in generate(heard(session, HELLO[lang], value("product", "laptop")))] == ["not_understood"]

    @LANGS
    def test_the_models_correction_changes_the_confirmed_task(self, lang: str) -> None:
        turn = heard(confirming(lang, "report_issue", HELD), HELLO[lang], value("product", "laptop", correction=True))
        made = generate(turn)
        assert [c.rule for c in made] == ["llm"] and isinstance(made[0], SetSlots) and made[0].correction
        assert made[0].offer.values == {"product": "laptop"} and turn.ctx.value_rules["product"] == "llm"

    @LANGS
    def test_the_value_held_already_is_no_news(self, lang: str) -> None:
        turn = heard(confirming(lang, "report_issue", HELD), HELLO[lang], value("product", "phone", correction=True))
        assert [c.rule for c in generate(turn)] == ["not_understood"]

    @LANGS
    def test_new_values_in_the_words_correct_before_the_models(self, lang: str) -> None:
        text = {"zh": "不对，是笔记本", "en": "no, the laptop"}[lang]
        made = generate(heard(confirming(lang, "report_issue", HELD), text, value("product", "tablet", correction=True)))
        assert [c.rule for c in made] == ["correction"] and isinstance(made[0], SetSlots)
        assert made[0].offer.values == {"product": "laptop"}


class TestStanding:
    @LANGS
    def test_a_free_text_value_stands_for_a_new_task(self, lang: str) -> None:
        """Starting a return, the reason the model heard fills the slot without a type."""
        turn = heard(idle(lang), {"zh": "我要退货", "en": "I want to return an order"}[lang],
                     value("details", "too big", flow="return_order"))
        flow = turn.bot.flows["return_order"]
        assert standing(turn.bot, turn.ctx, flow, SlotOffer()).values == {"details": "too big"}

    @LANGS
    def test_a_value_of_the_type_the_user_typed_wins_wherever_the_words_placed_it(self, lang: str) -> None:
        turn = heard(idle(lang), TYPED[lang], value("order_id", "67890"))
        flow = turn.bot.flows["report_issue"]
        assert standing(turn.bot, turn.ctx, flow, SlotOffer()).values == {}
        assert standing(turn.bot, turn.ctx, flow, SlotOffer(values={"order_id": "12345"})).values == {}

    @LANGS
    def test_a_value_for_another_flow_stands_for_none_of_this_ones(self, lang: str) -> None:
        turn = heard(idle(lang), UNCLEAR[lang], value("order_id", "67890", flow="check_status"))
        assert standing(turn.bot, turn.ctx, turn.bot.flows["report_issue"], SlotOffer()).values == {}

    @LANGS
    def test_two_values_the_words_give_a_slot_are_still_asked_about(self, lang: str) -> None:
        turn = heard(idle(lang), UNCLEAR[lang], value("order_id", "67890"))
        words = SlotOffer(conflicts={"order_id": []})
        assert standing(turn.bot, turn.ctx, turn.bot.flows["report_issue"], words).values == {}

    @LANGS
    def test_a_correction_may_change_a_held_value_a_set_slot_may_not(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "product", {"order_id": "12345"})
        flow = bot().flows["report_issue"]
        for correction, expected in ((False, {}), (True, {"order_id": "67890"})):
            turn = heard(session, HELLO[lang], value("order_id", "67890", correction=correction))
            assert standing(turn.bot, turn.ctx, flow, SlotOffer()).values == expected
