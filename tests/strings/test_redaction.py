"""The one redaction: one mask, PII in free text, and sensitive values wherever they occur."""

from __future__ import annotations

import re

import pytest

from dialogkit.strings import redaction
from dialogkit.strings.redaction import MASK, Redactor, mask_pii, mask_values


def test_there_is_one_mask() -> None:
    assert MASK == "***"


class TestMaskPii:
    @pytest.mark.parametrize(
        ("text", "masked"),
        [
            ("我的手机号是13812345678", f"我的手机号是{MASK}"),
            ("邮箱 zhang.san@example.com，谢谢", f"邮箱 {MASK}，谢谢"),
            ("call me at (415) 555-2671", f"call me at {MASK}"),
            ("mail joe+bot@mail.example.co.uk now", f"mail {MASK} now"),
            ("+86 13812345678", MASK),
        ],
    )
    def test_phones_and_emails_are_masked(self, text: str, masked: str) -> None:
        assert mask_pii(text) == masked

    @pytest.mark.parametrize("text", ["订单 12345 的状态", "order 67890", "下午3点", "it costs 150 dollars", ""])
    def test_other_numbers_stay(self, text: str) -> None:
        """Order numbers, times and prices are not PII."""
        assert mask_pii(text) == text


class TestMaskValues:
    def test_each_value_is_masked_wherever_it_occurs(self) -> None:
        text = "备注：请尽快处理 / note: hurry, hurry"
        assert mask_values(text, ["请尽快处理", "hurry"]) == f"备注：{MASK} / note: {MASK}, {MASK}"

    def test_the_longest_value_wins_where_two_overlap(self) -> None:
        """A value inside another must not leave the rest of the longer one showing."""
        assert mask_values("密码 abc123 和 abc", ["abc", "abc123"]) == f"密码 {MASK} 和 {MASK}"

    def test_values_are_literal_text_not_patterns(self) -> None:
        assert mask_values("a.b and axb", ["a.b"]) == f"{MASK} and axb"

    @pytest.mark.parametrize("values", [[], [None], [""], ["  "]])
    def test_empty_values_mask_nothing(self, values: list[str | None]) -> None:
        assert mask_values("你好 hello", values) == "你好 hello"

    def test_non_string_values_are_masked_as_written(self) -> None:
        assert mask_values("PIN 4321, 订单 12345", [4321]) == f"PIN {MASK}, 订单 12345"


class TestRedactor:
    def test_one_redactor_serves_many_texts(self) -> None:
        redact = Redactor(["13812345678", "张三"])
        assert redact("张三的电话 13812345678") == f"{MASK}的电话 {MASK}"
        assert redact("call 张三") == f"call {MASK}"
        assert redact("nothing here") == "nothing here"

    def test_a_redactor_without_values_is_false_and_changes_nothing(self) -> None:
        redact = Redactor([None, ""])
        assert not redact
        assert redact("你好") == "你好"
        assert Redactor(["x"])


_PLAIN_PHONE = re.compile(r"(?<!\d)(?:\+?\d{1,3}[\s-]?)?(?:1[3-9]\d{9}|\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4})(?!\d)")


class TestFirstLooks:
    @pytest.mark.parametrize("text", [
        "我的手机号是13812345678，备用(010)1234-5678", "订单 12345 的状态", "+86 138 1234 5678，谢谢",
        "call me at (415) 555-2671 or +1 415-555-2671", "order 67890", "4155552671234", "", "a(b+c)"])
    def test_the_phone_lookahead_finds_what_the_plain_pattern_finds_zh_en(self, text: str) -> None:
        """A number opens with a digit, "+" or "(": looking for one of those first finds the same numbers."""
        assert [m.span() for m in redaction.PHONE.finditer(text)] == [m.span() for m in _PLAIN_PHONE.finditer(text)]

    @pytest.mark.parametrize("text", ["我的手机号是13812345678", "订单 12345 的状态", "call me at (415) 555-2671",
                                      "no such order"])
    def test_text_without_an_at_sign_is_not_scanned_for_an_address_zh_en(
            self, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """An address holds an "@": text without one (most log fields) skips the scan for one."""
        masked = mask_pii(text)

        class Unscanned:
            def sub(self, *_args: object) -> str:
                raise AssertionError("scanned for an address")

        monkeypatch.setattr(redaction, "EMAIL", Unscanned())
        assert mask_pii(text) == masked
