"""Built-in phone, email and yes_no types, through the public ``parse_value`` / ``extract``."""

from __future__ import annotations

import pytest

from dialogkit.understanding.rules import RuleUnderstanding


class TestPhone:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("我的手机号是13812345678", "13812345678"),
            ("电话 138 1234 5678 谢谢", "13812345678"),
            ("请打138-1234-5678", "13812345678"),
            ("+86 138 1234 5678", "+8613812345678"),
            ("我的号码+8613812345678", "+8613812345678"),
        ],
    )
    def test_chinese_mobiles(self, rules: RuleUnderstanding, text: str, expected: str) -> None:
        """1[3-9] and nine digits, with +86 and separators."""
        assert rules.parse_value("phone", text) == expected

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("call me at (415) 555-2671", "4155552671"),
            ("my number is 415-555-2671", "4155552671"),
            ("reach me on +1 415 555 2671 please", "+14155552671"),
            ("office: +44 20 7946 0958", "+442079460958"),
            ("text +14155552671", "+14155552671"),
        ],
    )
    def test_international_and_us_numbers(
        self, rules: RuleUnderstanding, text: str, expected: str
    ) -> None:
        """International (+country) and US forms with separators."""
        assert rules.parse_value("phone", text) == expected

    @pytest.mark.parametrize("text", ["订单12345", "order 12345678901234567890", "12812345678"])
    def test_other_digit_strings_are_not_phones(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("phone", text) is None


class TestEmail:
    def test_email_in_chinese_text(self, rules: RuleUnderstanding) -> None:
        """An address glued to Chinese characters is still found."""
        assert rules.parse_value("email", "我的邮箱是alice@example.com谢谢") == "alice@example.com"

    def test_email_in_english_text_domain_lower_cased(self, rules: RuleUnderstanding) -> None:
        assert (
            rules.parse_value("email", "mail Bob.Smith+tag@Mail.Example.ORG.")
            == "Bob.Smith+tag@mail.example.org"
        )

    @pytest.mark.parametrize(
        "text", ["alice@", "@example.com", "alice@example", "写信给 alice at example dot com"]
    )
    def test_incomplete_addresses_are_not_emails(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("email", text) is None


class TestYesNo:
    @pytest.mark.parametrize(
        "text",
        ["是", "是的", "对", "好", "好的", "确认", "可以", "没问题", "行", "嗯", "对，就是这个"],
    )
    def test_chinese_yes(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("yes_no", text) is True

    @pytest.mark.parametrize(
        "text",
        [
            "yes",
            "Yeah",
            "yep",
            "sure",
            "ok",
            "okay",
            "confirm",
            "correct",
            "go ahead",
            "yes please, go ahead",
            "no problem",
        ],
    )
    def test_english_yes(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("yes_no", text) is True

    @pytest.mark.parametrize("text", ["不", "不是", "不要", "否", "不用", "不行，谢谢"])
    def test_chinese_no(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("yes_no", text) is False

    @pytest.mark.parametrize("text", ["no", "nope", "don't", "No thanks"])
    def test_english_no(self, rules: RuleUnderstanding, text: str) -> None:
        assert rules.parse_value("yes_no", text) is False

    @pytest.mark.parametrize("text", ["取消", "算了", "cancel", "never mind"])
    def test_cancel_is_not_an_answer(self, rules: RuleUnderstanding, text: str) -> None:
        """Cancelling is its own act, not a "no"."""
        assert rules.parse_value("yes_no", text) is None

    @pytest.mark.parametrize(
        "text",
        [
            "好的我要投诉手机碎了",
            "不知道",
            "好像坏了",
            "可以吗？",
            "ok?",
            "yes, my order 12345 is missing",
        ],
    )
    def test_sentences_containing_answer_words_are_not_answers(
        self, rules: RuleUnderstanding, text: str
    ) -> None:
        """Only an utterance that *is* an answer counts; questions never do."""
        assert rules.parse_value("yes_no", text) is None
