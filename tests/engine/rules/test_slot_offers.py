"""The slot offer of a turn inside a task, and each step that narrows it before a rule reads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dialogkit.engine.rules import slot_offers as steps
from dialogkit.engine.rules.base import Bot
from dialogkit.engine.rules.in_task import slot_values
from dialogkit.engine.slots import SlotOffer
from dialogkit.engine.turn import TurnContext
from dialogkit.model.session import Session
from tests.engine.rules._bot import collecting, seen, values

Step = Callable[[Bot, TurnContext, SlotOffer], Any]


def offered(session: Session, text: str, *narrowed_by: Step) -> dict[str, Any]:
    """The values the words offer the task, after the steps named."""
    turn = seen(session, text)
    offer = steps.slot_offer(turn.bot, turn.ctx)
    for step in narrowed_by:
        step(turn.bot, turn.ctx, offer)
    return dict(offer.values)


def asking(lang: str, flow: str, slot: str, **held: Any) -> Session:
    return collecting(lang, flow, slot, held)


class TestSlotOffer:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "它家有卡座吗？"), ("en", "does it have a booth?"),
                                                ("zh", "没卡座也行"), ("en", "no booth is fine")])
    def test_a_value_asked_about_or_waived_fills_nothing(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不想要卡座"), ("en", "not interested in booth seating"),
                                                ("zh", "不太想要卡座，别的呢？"), ("en", "not really wanting booth seats, anything else?")])
    def test_a_value_refused_fills_nothing(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "卡座"), ("en", "booth"), ("zh", "不，卡座"), ("en", "no, booth"),
                                                ("en", "if not, booth")])
    def test_a_value_said_fills_its_slot(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {"seat": "booth"}

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_bare_number_to_a_time_question_reads_as_its_hour(self, lang: str) -> None:
        """"7" to "几点到？" / "what time?" is 07:00; to "几位？" / "how many people?" it is no hour."""
        turn = seen(asking(lang, "book_table", "time"), "7")
        assert [(m.type, m.value) for m in steps.asked_hour(turn.bot, turn.ctx)] == [("time", "07:00")]
        turn = seen(asking(lang, "book_table", "party_size"), "7")
        assert steps.asked_hour(turn.bot, turn.ctx) == []

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_bare_number_to_a_time_question_is_its_hour(self, lang: str) -> None:
        """The flow also takes a count: the bare "7" still answers the time asked."""
        assert values(slot_values(seen(asking(lang, "book_table", "time"), "7"))) == {"time": "07:00"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "7点"), ("en", "at 7")])
    def test_an_hour_said_as_one_answers_the_time_question(self, lang: str, text: str) -> None:
        assert values(slot_values(seen(asking(lang, "book_table", "time"), text))) == {"time": "07:00"}


class TestChoiceByName:
    @pytest.mark.parametrize(("lang", "text", "order"), [("zh", "不对，订单号是第二个", "67890"),
                                                         ("en", "no, the order number is the last one", "24680")])
    def test_a_correction_naming_a_slot_with_choices_picks_from_them(self, lang: str, text: str, order: str) -> None:
        """The asked free-text slot then does not take the words."""
        session = asking(lang, "return_order", "details", order_id="12345")
        assert offered(session, text, steps.choice_by_name) == {"order_id": order}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "订单号是第二个"), ("en", "the order number is the last one")])
    def test_without_a_correction_the_words_are_the_answer(self, lang: str, text: str) -> None:
        session = asking(lang, "return_order", "details", order_id="12345")
        assert offered(session, text, steps.choice_by_name) == {"details": text}


class TestLabelAnswer:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "平板电脑"), ("zh", "平板电脑。"), ("en", "tablet computer")])
    def test_a_values_label_said_alone_names_that_value(self, lang: str, text: str) -> None:
        """"平板电脑" holds the laptop's alias "电脑", "tablet computer" its "computer"."""
        turn = seen(asking(lang, "report_issue", "product", order_id="12345"), text)
        offer = steps.slot_offer(turn.bot, turn.ctx)
        assert steps.label_answer(turn.bot, turn.ctx, offer) is True
        assert offer.values == {"product": "tablet"} and not offer.conflicts

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我的平板电脑"), ("en", "my tablet computer")])
    def test_a_label_in_a_sentence_is_no_label_answer(self, lang: str, text: str) -> None:
        turn = seen(asking(lang, "report_issue", "product", order_id="12345"), text)
        assert steps.label_answer(turn.bot, turn.ctx, steps.slot_offer(turn.bot, turn.ctx)) is False


class TestKeepToAskedSlot:
    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_bare_number_to_another_question_lands_nowhere(self, lang: str) -> None:
        """"6" while the seat is asked is no party size."""
        assert offered(asking(lang, "book_table", "seat"), "6", steps.keep_to_asked_slot) == {}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "人数是6"), ("en", "the party size is 6"), ("zh", "不对，6")])
    def test_a_number_after_its_label_or_a_correction_is_kept(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "seat"), text, steps.keep_to_asked_slot) == {"party_size": 6}


class TestKeepFilledSlots:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "笔记本的订单号是 67890"), ("en", "the order for the laptop is 67890")])
    def test_a_value_that_merely_appears_does_not_replace_what_was_said(self, lang: str, text: str) -> None:
        session = asking(lang, "report_issue", "order_id", product="phone")
        assert offered(session, text, steps.keep_filled_slots) == {"order_id": "67890"}

    @pytest.mark.parametrize(("lang", "text"), [
        ("zh", "不对，是笔记本，订单号67890"), ("en", "actually the laptop, order 67890"),
        ("zh", "商品是笔记本，订单号67890"), ("en", "the product is the laptop, order 67890"),
    ])
    def test_a_correction_or_the_slot_named_changes_it(self, lang: str, text: str) -> None:
        session = asking(lang, "report_issue", "order_id", product="phone")
        assert offered(session, text, steps.keep_filled_slots) == {"order_id": "67890", "product": "laptop"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "笔记本"), ("en", "laptop")])
    def test_a_value_alone_is_that_slots_new_value(self, lang: str, text: str) -> None:
        session = asking(lang, "report_issue", "order_id", product="phone")
        assert offered(session, text, steps.keep_filled_slots) == {"product": "laptop"}


    @pytest.mark.parametrize(("lang", "text"), [
        ("zh", "我想要靠窗的"), ("en", "window, then"),
        ("zh", "靠窗的话也可以"), ("en", "can we sit by the window?"),
        ("zh", "不，我们要坐靠窗的"), ("en", "no, a table by the window please"),
    ])
    def test_a_new_wish_with_no_answer_replaces_the_value_held(self, lang: str, text: str) -> None:
        """The party size is asked and not answered: the words change the seat said before."""
        session = asking(lang, "book_table", "party_size", seat="booth")
        assert offered(session, text, steps.keep_filled_slots) == {"seat": "window"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "上次我们坐的是靠窗"), ("en", "last time we sat by the window")])
    def test_a_value_only_mentioned_keeps_the_value_held(self, lang: str, text: str) -> None:
        session = asking(lang, "book_table", "party_size", seat="booth")
        assert offered(session, text, steps.keep_filled_slots) == {}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我要靠窗的，4位"), ("en", "we are looking for a window, 4 people")])
    def test_a_value_asked_for_beside_the_answer_replaces_the_value_held(self, lang: str, text: str) -> None:
        """The party size is answered, and a request word asks for the window right before it."""
        session = asking(lang, "book_table", "party_size", seat="booth")
        assert offered(session, text, steps.keep_filled_slots) == {"party_size": 4, "seat": "window"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "4位，上次坐的是靠窗"), ("en", "4 people, last time we sat by the window")])
    def test_a_value_mentioned_beside_the_answer_keeps_the_value_held(self, lang: str, text: str) -> None:
        session = asking(lang, "book_table", "party_size", seat="booth")
        assert offered(session, text, steps.keep_filled_slots) == {"party_size": 4}

    def test_a_request_word_inside_a_slots_label_makes_no_wish(self) -> None:
        """"order" asks in "I'd like to order", not in "order number" (a slot's label): the window
        is only mentioned. (zh: tests/engine/test_value_flows.py, 预订 in 预订号.)"""
        session = asking("en", "book_table", "party_size", seat="booth")
        assert offered(session, "the order number aside, we sat by the window", steps.keep_filled_slots) == {}
        assert offered(session, "I'd like to order by the window", steps.keep_filled_slots) == {"seat": "window"}


class TestEitherValue:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "靠窗还是卡座都行"), ("en", "either window or booth is fine"),
                                                ("zh", "靠窗或者卡座，我无所谓"), ("en", "I don't mind, window or booth")])
    def test_no_preference_between_two_values_is_the_slots_any(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {"seat": "any_seat"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "靠窗还是卡座？"), ("en", "window or booth?"),
                                                ("zh", "靠窗还是卡座？时间无所谓")])
    def test_two_values_with_no_such_words_in_their_sentence_stay_a_question(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {}


class TestFirstBeforeFallback:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "靠窗，没有的话卡座也行"), ("en", "by the window; if there is none, a booth"),
                                                ("zh", "要靠窗的，如果没有就卡座"), ("en", "window please, otherwise booth")])
    def test_the_value_before_a_fallback_is_the_wish(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text) == {"seat": "window"}


class TestAnyAnswer:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "随便"), ("en", "I don't care"), ("zh", "哪个都可以"),
                                                ("en", "any one will be fine"), ("en", "anyone would be fine.")])
    def test_no_preference_fills_the_asked_slot_with_its_any(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "seat"), text, steps.any_answer) == {"seat": "any_seat"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "座位无所谓"), ("en", "I don't care about the seat")])
    def test_no_preference_about_a_slot_named_fills_that_slot(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "time"), text, steps.any_answer) == {"seat": "any_seat"}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "随便"), ("en", "I don't care")])
    def test_a_type_with_no_any_takes_nothing(self, lang: str, text: str) -> None:
        assert offered(asking(lang, "book_table", "party_size"), text, steps.any_answer) == {}


class TestYesNoReply:
    @pytest.mark.parametrize(("lang", "text"), [
        ("zh", "要的，麻烦寄一张新卡给我"), ("en", "yes, please send me a new one"), ("zh", "要一个吧"),
        ("en", "yes, we need 2"), ("zh", "需要补寄"),
    ])
    def test_a_yes_saying_more_is_a_yes(self, lang: str, text: str) -> None:
        session = asking(lang, "change_subscription", "send_card", change="pause")
        assert offered(session, text, steps.yes_no_reply) == {"send_card": True}

    @pytest.mark.parametrize(("lang", "text"), [("zh", "要的，但是先别寄"), ("en", "yes, but not now"),
                                                ("zh", "随便聊聊吧"), ("en", "tell me a joke")])
    def test_a_yes_with_but_or_no_answer_is_no_value(self, lang: str, text: str) -> None:
        session = asking(lang, "change_subscription", "send_card", change="pause")
        assert offered(session, text, steps.yes_no_reply) == {}


class TestChoose:
    @pytest.mark.parametrize(("lang", "text", "order"), [("zh", "第二个", "67890"), ("en", "the second one", "67890"),
                                                         ("zh", "订单24680", "24680"), ("en", "order 24680", "24680")])
    def test_the_choice_named_fills_the_slot(self, lang: str, text: str, order: str) -> None:
        turn = seen(asking(lang, "return_order", "order_id"), text)
        offer = steps.slot_offer(turn.bot, turn.ctx)
        assert steps.choose(turn.bot, turn.ctx, offer) is None
        assert offer.values == {"order_id": order}

    @pytest.mark.parametrize(("lang", "text", "refusal"), [("zh", "99999", "“99999”不在可选项中。"),
                                                           ("en", "99999", "99999 is not one of the options.")])
    def test_a_value_outside_the_choices_is_refused(self, lang: str, text: str, refusal: str) -> None:
        turn = seen(asking(lang, "return_order", "order_id"), text)
        assert steps.choose(turn.bot, turn.ctx, steps.slot_offer(turn.bot, turn.ctx)) == refusal

    @pytest.mark.parametrize(("lang", "text"), [("zh", "随便"), ("en", "any")])
    def test_no_preference_chooses_nothing(self, lang: str, text: str) -> None:
        turn = seen(asking(lang, "return_order", "order_id"), text)
        offer = steps.slot_offer(turn.bot, turn.ctx)
        assert steps.choose(turn.bot, turn.ctx, offer) is None and offer.values == {}

    def test_the_options_come_from_the_slots_action(self) -> None:
        turn = seen(asking("en", "return_order", "order_id"), "which ones?")
        slot = turn.bot.flows["return_order"].spec.slot("order_id")
        assert slot is not None
        options = steps.options_of(turn.bot, turn.ctx, slot)
        assert options is not None and [o.value for o in options] == ["12345", "67890", "24680"]
