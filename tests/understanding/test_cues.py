"""Conversational cues (docs/behaviours.md items 4-6, 14, 15): precise, in both languages."""

from __future__ import annotations

import pytest

from dialogkit.understanding.cues import cancels, detect_cues, is_question, leading_answer


def cues(text: str) -> set[str]:
    return detect_cues(text)


class TestYesNo:
    @pytest.mark.parametrize(
        "text",
        [
            "是的",
            "好的",
            "确认",
            "可以",
            "没问题",
            "对，就是这个",
            "嗯嗯，好的",
            "好的，谢谢",
            "确认创建",
        ],
    )
    def test_chinese_yes(self, text: str) -> None:
        assert cues(text) == {"yes"}

    @pytest.mark.parametrize(
        "text",
        [
            "yes",
            "Yes!",
            "sure",
            "ok",
            "yes please, go ahead",
            "oh yeah that's right",
            "confirm, create it",
        ],
    )
    def test_english_yes(self, text: str) -> None:
        assert cues(text) == {"yes"}

    @pytest.mark.parametrize("text", ["不", "不是", "不对", "否", "不行", "不要", "不，谢谢"])
    def test_chinese_no(self, text: str) -> None:
        """Alone, "不对" answers a confirmation: a no."""
        assert cues(text) == {"no"}

    @pytest.mark.parametrize("text", ["no", "No.", "nope", "don't", "no thanks"])
    def test_english_no(self, text: str) -> None:
        assert cues(text) == {"no"}


class TestWantAsYes:
    @pytest.mark.parametrize("text", ["要", "需要", "要的", "需要的", "要，谢谢"])
    def test_want_said_as_an_answer_is_yes(self, text: str) -> None:
        """"需要为您补寄新卡吗？" — "需要" / "要" answer yes, as "yes" / "sure" do."""
        assert cues(text) == {"yes"}

    @pytest.mark.parametrize("text", ["需要改时间", "要改一下", "需要帮助吗"])
    def test_want_leading_a_request_is_no_answer(self, text: str) -> None:
        assert not cues(text) & {"yes", "no"}


class TestLongerReplies:
    @pytest.mark.parametrize(("text", "value"), [("yes, please send me a new one", True),
                                                 ("yes I need a new card", True),
                                                 ("要，麻烦寄到公司那个地址去吧谢谢", True),
                                                 ("no, I will pick one up at the branch", False)])
    def test_a_longer_tail_is_allowed_where_a_caller_asks_for_it(self, text: str, value: bool) -> None:
        """A reply to a yes/no question may say more than a confirmation's bare yes may."""
        assert leading_answer(text.lower()) is None
        found = leading_answer(text.lower(), tail_cjk=14, tail_words=10)
        assert found is not None and found.value is value

    def test_a_doubt_is_never_an_answer(self) -> None:
        assert leading_answer("yes, but maybe later", tail_cjk=12, tail_words=10) is None

    @pytest.mark.parametrize("text", ["要，但是先别寄", "好的，不过要快点", "yes, but not yet", "ok but quickly"])
    def test_a_but_takes_the_answer_back(self, text: str) -> None:
        """"好的，但是……" / "yes, but …" confirms nothing: what follows takes it back."""
        assert not cues(text) & {"yes", "no"}


class TestIsQuestion:
    @pytest.mark.parametrize("text", ["服务台几点下班", "你们营业时间是什么", "有停车位吗", "when is the IT desk open",
                                      "what are your office hours", "wifi password?"])
    def test_questions(self, text: str) -> None:
        assert is_question(text)

    @pytest.mark.parametrize("text", ["一开Excel就蓝屏", "屏幕碎了", "it crashes when I open Excel", "my screen is broken"])
    def test_statements(self, text: str) -> None:
        assert not is_question(text)


class TestCorrection:
    @pytest.mark.parametrize(
        "text",
        ["不对，订单号是67890", "不是12345，是67890", "改成67890", "应该是笔记本", "换成电脑吧"],
    )
    def test_chinese_corrections_are_not_no(self, text: str) -> None:
        """In Chinese the negation belongs to the correction phrase."""
        assert cues(text) == {"correction"}

    @pytest.mark.parametrize(
        "text",
        ["actually it's 67890", "I meant the laptop", "change it to 67890", "not 12345 but 67890"],
    )
    def test_english_corrections(self, text: str) -> None:
        assert cues(text) == {"correction"}

    @pytest.mark.parametrize("text", ["no, not the terrace, inside please", "not the terrace, inside", "not 4, 6 people"])
    def test_not_a_then_b_corrects_as_the_chinese_does(self, text: str) -> None:
        """"no, not the terrace, inside" as "不是露台，是室内": a correction, the last value wins."""
        assert "correction" in cues(text)

    @pytest.mark.parametrize("text", ["not sure, maybe", "not now, thanks", "not yet, sorry"])
    def test_not_with_a_doubt_or_a_courtesy_is_no_correction(self, text: str) -> None:
        assert "correction" not in cues(text)

    def test_english_no_with_a_new_value_is_correction_and_no(self) -> None:
        """The reply "no, it's 67890" answers no *and* corrects (policy: correction first)."""
        assert cues("no, it's 67890") == {"correction", "no"}


class TestCancel:
    @pytest.mark.parametrize(
        "text", ["算了", "取消", "不要了", "不用了", "算了吧", "那就取消吧", "我要取消"]
    )
    def test_chinese_cancel(self, text: str) -> None:
        assert cues(text) == {"cancel"}

    @pytest.mark.parametrize(
        "text", ["never mind", "cancel", "stop", "forget it", "please cancel it", "Cancel that."]
    )
    def test_english_cancel(self, text: str) -> None:
        assert cues(text) == {"cancel"}

    @pytest.mark.parametrize(
        "text", ["我想取消订单12345的配送", "forget what I just said", "don't stop now"]
    )
    def test_sentences_mentioning_cancel_words_are_not_cancel(self, text: str) -> None:
        assert "cancel" not in cues(text)

    @pytest.mark.parametrize(("text", "cancel"), [
        ("算了", True), ("那就取消吧", True), ("算了，忘记刚才说的", False), ("我想取消订单12345的配送", False),
        ("好的", False),
        ("never mind", True), ("Cancel that.", True), ("never mind, forget what I just said", False),
        ("don't stop now", False), ("yes", False),
    ])
    def test_the_cancel_cue_alone_reads_as_all_cues_do(self, text: str, cancel: bool) -> None:
        """A cancel turn's clauses are asked only whether they cancel: the same answer, a forget never one."""
        assert cancels(text) is cancel
        assert ("cancel" in cues(text)) is cancel


class TestHelpForgetGreeting:
    @pytest.mark.parametrize(
        "text", ["帮助", "你能做什么", "你会什么？", "有什么功能", "我需要帮助"]
    )
    def test_chinese_help(self, text: str) -> None:
        assert "help" in cues(text)

    @pytest.mark.parametrize(
        "text", ["help", "what can you do?", "Help me please", "so what can you do for me"]
    )
    def test_english_help(self, text: str) -> None:
        assert "help" in cues(text)

    @pytest.mark.parametrize(
        "text",
        [
            "你能帮我查一下我的手机订单什么时候到吗需要帮助",
            "help, my phone arrived broken and the box was open",
        ],
    )
    def test_long_requests_mentioning_help_are_not_help(self, text: str) -> None:
        assert "help" not in cues(text)

    @pytest.mark.parametrize("text", ["忘记刚才说的", "忘掉刚才的", "刚才说的不算"])
    def test_chinese_forget(self, text: str) -> None:
        assert cues(text) == {"forget"}

    @pytest.mark.parametrize(
        "text", ["forget what I just said", "ignore what I just said", "scratch that"]
    )
    def test_english_forget(self, text: str) -> None:
        assert cues(text) == {"forget"}

    @pytest.mark.parametrize("text", ["你好", "您好，我的包裹没收到"])
    def test_chinese_greeting(self, text: str) -> None:
        assert "greeting" in cues(text)

    @pytest.mark.parametrize("text", ["hello", "Hi, my order never arrived"])
    def test_english_greeting(self, text: str) -> None:
        assert "greeting" in cues(text)

    @pytest.mark.parametrize("text", ["他说你好", "this is a high price"])
    def test_greeting_words_elsewhere_are_not_greetings(self, text: str) -> None:
        assert "greeting" not in cues(text)


class TestPunctuationAndSpacing:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("  不对。", {"no"}),
            ("不对啊！", {"no"}),
            (" Wrong. ", {"no"}),
            ("  好的！ ", {"yes"}),
            ("YES!!", {"yes"}),
        ],
    )
    def test_surrounding_spaces_fillers_and_punctuation_do_not_change_the_cue(
        self, text: str, expected: set[str]
    ) -> None:
        assert detect_cues(text) == expected


class TestNoThenTheSlotIsX:
    @pytest.mark.parametrize("text", ["no, the reason is arrived damaged", "no, my order number is 67890",
                                      "no, the colleague is Supervisor Li"])
    def test_no_then_a_named_slot_is_a_correction(self, text: str) -> None:
        assert cues(text) == {"correction", "no"}

    @pytest.mark.parametrize("text", ["no", "no thanks", "no, the reason is"])
    def test_a_plain_no_stays_no(self, text: str) -> None:
        assert cues(text) == {"no"}
