"""Forgetting: "忘掉我刚才说的" / "forget what I just said" takes back the last turn; a slot named
("忘记我的订单号", "forget the time") loses its value."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import Forget
from dialogkit.engine.rules.forgetting import forget_turn, forget_value
from dialogkit.model.session import Session
from tests.engine.rules._bot import collecting, idle, seen

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
FORGET_TURN = {"zh": "忘掉我刚才说的", "en": "forget what I just said"}
FORGET_ORDER = {"zh": "忘记我的订单号", "en": "forget my order number"}
FORGET_PRODUCT = {"zh": "忘记商品", "en": "forget the product"}
FORGET_TIME = {"zh": "忘记时间", "en": "forget the time"}


def reporting(lang: str) -> Session:
    return collecting(lang, "report_issue", "product", {"order_id": "12345"})


class TestForgetTurn:
    @LANGS
    def test_the_last_turn_is_taken_back(self, lang: str) -> None:
        text = FORGET_TURN[lang]
        assert forget_turn(seen(reporting(lang), text)) == [Forget(rule="forget_turn", words=text)]

    @LANGS
    def test_in_any_state(self, lang: str) -> None:
        assert forget_turn(seen(idle(lang), FORGET_TURN[lang])) == [Forget(rule="forget_turn", words=FORGET_TURN[lang])]

    @LANGS
    def test_a_slot_named_is_not_the_last_turn(self, lang: str) -> None:
        assert forget_turn(seen(reporting(lang), FORGET_ORDER[lang])) == []


class TestForgetValue:
    @LANGS
    def test_a_persisted_value_goes_in_any_state(self, lang: str) -> None:
        """The order number is kept for the user beyond the task: forgetting it needs no task."""
        text = FORGET_ORDER[lang]
        expected = [Forget(rule="forget_value", words=text, slots=("order_id",))]
        assert forget_value(seen(idle(lang), text)) == expected
        assert forget_value(seen(reporting(lang), text)) == expected

    @pytest.mark.parametrize(("lang", "flow", "text", "slot"), [
        ("zh", "report_issue", FORGET_PRODUCT["zh"], "product"), ("en", "report_issue", FORGET_PRODUCT["en"], "product"),
        ("zh", "book_table", FORGET_TIME["zh"], "time"), ("en", "book_table", FORGET_TIME["en"], "time"),
    ])
    def test_a_slot_of_the_active_task_is_emptied(self, lang: str, flow: str, text: str, slot: str) -> None:
        session = collecting(lang, flow, "seat" if flow == "book_table" else "product")
        assert forget_value(seen(session, text)) == [Forget(rule="forget_value", words=text, slots=(slot,))]

    @LANGS
    def test_a_slot_no_task_holds_forgets_nothing(self, lang: str) -> None:
        """"忘记时间" with no task, or in a task without a time: nothing kept or held is named."""
        assert forget_value(seen(idle(lang), FORGET_TIME[lang])) == []
        assert forget_value(seen(reporting(lang), FORGET_TIME[lang])) == []
        assert forget_value(seen(idle(lang), FORGET_PRODUCT[lang])) == []

    @LANGS
    def test_taking_back_a_turn_names_no_slot(self, lang: str) -> None:
        assert forget_value(seen(reporting(lang), FORGET_TURN[lang])) == []
