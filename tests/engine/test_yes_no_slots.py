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
