"""``yes_no_statements``: a yes/no slot's answer stated in a clause of its own, in both languages."""

from __future__ import annotations

import pytest

from dialogkit.engine.yes_no_statements import answer_words, stated_answer
from dialogkit.spec.schema import SlotSpec

TRAPPED = answer_words(SlotSpec.model_validate({"name": "trapped", "entity": "yes_no",
                                                "label": {"zh": "有人被困", "en": "anyone trapped"}}))
PARKING = answer_words(SlotSpec.model_validate({"name": "parking", "entity": "yes_no",
                                                "label": {"zh": "停车位", "en": "parking space"}}))


class TestStatedAnswer:
    @pytest.mark.parametrize(("text", "value"), [("有人被困：否", False), ("anyone trapped: yes", True),
                                                 ("电梯停了，现在没人被困", False), ("没有人被困", False),
                                                 ("有人被困，在三楼", True), ("nobody is trapped", False),
                                                 ("the lift stopped and someone is trapped", True),
                                                 ("no one is trapped right now", False)])
    def test_the_slots_own_words_with_a_yes_or_a_no(self, text: str, value: bool) -> None:
        found = stated_answer(TRAPPED, text)
        assert found is not None and found[0] is value

    @pytest.mark.parametrize(("text", "value"), [("不需要停车位", False), ("我们要停车位", True),
                                                 ("we need a parking space", True), ("no parking space", False)])
    def test_a_need_or_its_denial(self, text: str, value: bool) -> None:
        assert stated_answer(PARKING, text) == (value, text)

    @pytest.mark.parametrize("text", ["有人被困吗", "is anyone trapped?", "停车位在哪里", "the parking space is full",
                                      "停车位是收费的", "parking space: maybe", "我的车停在停车位旁边"])
    def test_a_question_or_other_words_about_it_answer_nothing(self, text: str) -> None:
        assert stated_answer(TRAPPED, text) is None and stated_answer(PARKING, text) is None

    @pytest.mark.parametrize("text", ["有人被困，不对，没有人被困", "someone is trapped, no, nobody is trapped"])
    def test_two_clauses_saying_both_answer_nothing(self, text: str) -> None:
        assert stated_answer(TRAPPED, text) is None
