"""``yes_no_slots``: an answer that echoes the yes/no question asked, in both languages."""

from __future__ import annotations

import pytest

from dialogkit.engine.yes_no_slots import echo_answer

URGENT = ["这个问题紧急吗？", "Is it urgent?"]


class TestEchoAnswer:
    @pytest.mark.parametrize(("text", "value"), [("紧急", True), ("很急", True), ("非常紧急的", True), ("不紧急", False),
                                                 ("不急", False), ("不太急", False), ("urgent", True),
                                                 ("very urgent", True), ("not urgent", False),
                                                 ("it's not urgent", False)])
    def test_the_questions_word_or_its_denial(self, text: str, value: bool) -> None:
        assert echo_answer(URGENT, text) is value

    @pytest.mark.parametrize("text", ["明天吧", "蓝屏", "the screen", "maybe tomorrow", "很好"])
    def test_other_words_are_no_answer(self, text: str) -> None:
        assert echo_answer(URGENT, text) is None


COME_IN = ["维修师傅可以进门吗？", "May the engineer let himself in?"]


class TestEchoWithATail:
    @pytest.mark.parametrize(("text", "value"), [("可以进门，钥匙在门卫", True), ("不可以进门，家里有狗", False),
                                                 ("很急，下午要交报告", True), ("not urgent, whenever suits you", False)])
    def test_the_first_clause_answers(self, text: str, value: bool) -> None:
        assert echo_answer([*COME_IN, *URGENT], text) is value

    @pytest.mark.parametrize("text", ["很急，但是可以等到明天", "urgent, but it can wait a day"])
    def test_a_tail_that_takes_it_back_is_no_answer(self, text: str) -> None:
        assert echo_answer(URGENT, text) is None
