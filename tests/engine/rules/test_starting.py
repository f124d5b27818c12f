"""Starting a flow from idle: its trigger's words, a follow-up on a new referent of the last task's
type, or values only that flow takes."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import StartFlow
from dialogkit.engine.rules.starting import flow_of_values, follow_up, intent, no_preference
from dialogkit.model.session import Session
from tests.engine.rules._bot import idle, said, seen

TWO_ORDERS = {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders 12345 and 67890"}
SECOND = {"zh": "第二个呢？", "en": "and the second one?"}


class TestIntent:
    @pytest.mark.parametrize(("lang", "text", "flow"), [
        ("zh", "我要报修", "report_issue"), ("en", "I want to report an issue", "report_issue"),
        ("zh", "帮我订一张桌子", "book_table"), ("en", "I'd like to reserve a table", "book_table"),
    ])
    def test_the_trigger_the_words_match_starts_its_flow(self, lang: str, text: str, flow: str) -> None:
        assert intent(seen(idle(lang), text)) == [StartFlow(rule="intent", words=text, flow=flow)]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "随便聊聊吧"), ("en", "tell me a joke"), ("zh", "12345"),
                                                ("en", "12345")])
    def test_words_no_trigger_matches_start_nothing(self, lang: str, text: str) -> None:
        assert intent(seen(idle(lang), text)) == []


def after_status(lang: str, last: str | None = "check_status") -> Session:
    """Two orders named, and (by default) a status check has just run."""
    session = idle(lang)
    said(session, TWO_ORDERS[lang])
    session.last_flow = last
    return session


class TestFollowUp:
    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_new_referent_of_the_last_tasks_type_repeats_it(self, lang: str) -> None:
        text = SECOND[lang]
        assert follow_up(seen(after_status(lang), text)) == [StartFlow(rule="follow_up", words=text, flow="check_status")]

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_with_no_task_before_there_is_nothing_to_follow(self, lang: str) -> None:
        assert follow_up(seen(after_status(lang, None), SECOND[lang])) == []

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_a_referent_the_last_task_takes_no_value_of_repeats_nothing(self, lang: str) -> None:
        """The subscription change has no order number: "the second one" is no new one of its."""
        assert follow_up(seen(after_status(lang, "change_subscription"), SECOND[lang])) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我有两个订单号 24680 和 第一个"),
                                                ("en", "my order numbers are 24680 and the first one")])
    def test_values_told_start_no_flow(self, lang: str, text: str) -> None:
        assert follow_up(seen(after_status(lang), text)) == []


class TestFlowOfValues:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "晚上8点6个人有位子吗？"),
                                                ("en", "is there room for 6 people at 8pm?")])
    def test_values_only_one_flow_takes_start_it(self, lang: str, text: str) -> None:
        assert flow_of_values(seen(idle(lang), text)) == [StartFlow(rule="flow_of_values", words=text,
                                                                    flow="book_table")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "晚上8点6个人")])
    def test_values_stated_not_asked_start_nothing(self, lang: str, text: str) -> None:
        assert flow_of_values(seen(idle(lang), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "晚上8点有位子吗？"), ("en", "is there room at 8pm?")])
    def test_one_value_is_too_little_to_name_a_flow(self, lang: str, text: str) -> None:
        assert flow_of_values(seen(idle(lang), text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我有订单号 24680 和 订单号 13579"),
                                                ("en", "I have order number 24680 and order number 13579")])
    def test_values_told_after_a_task_repeat_nothing(self, lang: str, text: str) -> None:
        session = idle(lang)
        session.last_flow = "check_status"
        assert flow_of_values(seen(session, text)) == []

    def test_a_request_word_that_names_a_slot_asks_for_nothing(self) -> None:
        """"order" names the order number's slot here, though "I'd like to order" asks."""
        session = idle("en")
        session.last_flow = "check_status"
        assert flow_of_values(seen(session, "order number 24680 please")) != []
        assert flow_of_values(seen(session, "I have order number 24680 and order number 13579")) == []


class TestNoPreference:
    """No preference with no question pending: the last task's flow again (what the no-preference
    then fills: tests/engine/test_open_wishes.py)."""

    @pytest.mark.parametrize(("lang", "text"), [("zh", "座位无所谓"), ("en", "the seat doesn't matter")])
    def test_a_slot_of_the_last_flow_named_repeats_it(self, lang: str, text: str) -> None:
        session = idle(lang)
        session.last_flow = "book_table"
        assert no_preference(seen(session, text)) == [StartFlow(rule="no_preference", words=text, flow="book_table")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "无所谓"), ("en", "I don't care")])
    def test_said_of_nothing_with_no_wish_kept_for_the_session_it_repeats_nothing(self, lang: str, text: str) -> None:
        """The booking keeps no wish for the session: nothing tells which one is left open."""
        session = idle(lang)
        session.last_flow = "book_table"
        assert no_preference(seen(session, text)) == []

    @pytest.mark.parametrize(("lang", "text"), [("zh", "座位无所谓"), ("en", "the seat doesn't matter")])
    def test_with_no_task_before_it_starts_nothing(self, lang: str, text: str) -> None:
        assert no_preference(seen(idle(lang), text)) == []
