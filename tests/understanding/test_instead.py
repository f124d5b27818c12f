"""A cancel and a new request in one turn: the words after the clause that gives up, read with
the turn (``Interpretation.instead``)."""

import pytest

from dialogkit.understanding.instead import request_after_cancel
from dialogkit.understanding.rules import RuleUnderstanding


@pytest.mark.parametrize(("text", "asked"), [
    ("那算了，帮我推荐一个餐厅", "帮我推荐一个餐厅"),
    ("算了。我要退一个鼠标", "我要退一个鼠标"),
    ("never mind, book a table instead", "book a table instead"),
    ("cancel that. I want to return a keyboard", "I want to return a keyboard"),
])
def test_the_words_after_a_cancel_are_the_new_request(text: str, asked: str) -> None:
    assert request_after_cancel(text) == asked


@pytest.mark.parametrize("text", [
    "算了", "算了，不订了", "帮我推荐一个餐厅，算了",
    "never mind", "never mind, don't book it", "book a table, never mind",
    "帮我推荐一个餐厅", "recommend a restaurant",
])
def test_a_cancel_alone_declined_or_before_the_request_asks_nothing_new(text: str) -> None:
    assert request_after_cancel(text) is None


@pytest.mark.parametrize(("lang", "text", "asked", "flow"), [
    ("zh", "算了，我要退货", "我要退货", "return_order"),
    ("en", "never mind, I want to return my headphones", "I want to return my headphones", "return_order"),
])
def test_the_reading_of_a_cancel_holds_the_request_after_it(rules: RuleUnderstanding, lang: str, text: str,
                                                            asked: str, flow: str) -> None:
    """Read with the turn, as if said alone: the rules ask nothing more of the words."""
    interp = rules.interpret(text, lang)
    assert "cancel" in interp.cues and interp.instead is not None
    assert interp.instead.words == asked
    assert interp.instead.intents == tuple(rules.interpret(asked, lang).intents)
    assert interp.instead.top_intent is not None and interp.instead.top_intent.flow == flow


@pytest.mark.parametrize(("lang", "text"), [
    ("zh", "算了"), ("zh", "我要退货，算了"), ("zh", "我要退货"),
    ("en", "never mind"), ("en", "return my headphones, never mind"), ("en", "I want to return my headphones"),
])
def test_a_turn_asking_nothing_after_a_cancel_holds_no_request(rules: RuleUnderstanding, lang: str,
                                                               text: str) -> None:
    assert rules.interpret(text, lang).instead is None
