"""Shapes of an answer: one value and little else, the yes/no question asked, the answer as a whole."""

from __future__ import annotations

import pytest

from dialogkit.engine.rules.shapes import asked_yes_no, is_bare, said_alone
from tests.engine.rules._bot import bot, collecting, idle, seen


class TestIsBare:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "12345"), ("zh", "是 67890"), ("zh", "三件"), ("en", "12345"),
                                                ("en", "it's 12345")])
    def test_one_value_and_little_else(self, lang: str, text: str) -> None:
        assert is_bare(seen(idle(lang), text).ctx.interp)

    @pytest.mark.parametrize(("lang", "text"), [("zh", "我刚喝了一杯咖啡"), ("zh", "12345 和 67890"),
                                                ("en", "I just had 1 coffee"), ("en", "12345 and 67890"),
                                                ("zh", "我要报修 12345"), ("en", "report an issue 12345")])
    def test_running_text_two_values_or_a_request_are_not_bare(self, lang: str, text: str) -> None:
        assert not is_bare(seen(idle(lang), text).ctx.interp)

    @pytest.mark.parametrize(("lang", "text"), [("zh", "笔记本，谢谢"), ("en", "laptop, please"),
                                                ("en", "the laptop, thank you"), ("en", "12345, thanks")])
    def test_a_polite_word_beside_the_value_counts_for_nothing(self, lang: str, text: str) -> None:
        assert is_bare(seen(idle(lang), text).ctx.interp)

    @pytest.mark.parametrize(("lang", "text"), [("en", "laptop, pleased to meet you"), ("en", "laptop, thanks a lot")])
    def test_other_words_beside_a_polite_one_still_count(self, lang: str, text: str) -> None:
        assert not is_bare(seen(idle(lang), text).ctx.interp)


class TestAskedYesNo:
    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_the_yes_no_slot_whose_question_is_pending(self, lang: str) -> None:
        session = collecting(lang, "change_subscription", "send_card", {"change": "pause"})
        slot = asked_yes_no(session.task, bot().flows["change_subscription"])
        assert slot is not None and slot.name == "send_card"

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_another_question_or_none_is_no_yes_no_question(self, lang: str) -> None:
        flow = bot().flows["change_subscription"]
        assert asked_yes_no(collecting(lang, "change_subscription", "change").task, flow) is None
        assert asked_yes_no(None, flow) is None


@pytest.mark.parametrize(("text", "alone"), [("停止。", "停止"), (" 停止！", "停止"), ("stop.", "stop"), ("stop!", "stop"),
                                             ("stop?", "stop?"), ("停止吗？", "停止吗？")])
def test_an_answer_as_a_whole_loses_its_full_stop_not_its_question_mark(text: str, alone: str) -> None:
    assert said_alone(text) == alone
