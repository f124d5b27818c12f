"""A cancel and a new request in one turn: the words after the clause that gives up."""

import pytest

from dialogkit.understanding.instead import request_after_cancel


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
