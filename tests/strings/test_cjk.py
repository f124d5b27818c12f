"""The one "is this Chinese?": Han ideographs count, kana, Hangul and full-width Latin do not."""

from __future__ import annotations

import pytest

from dialogkit.strings.cjk import CJK_CHAR, CJK_RUN, count_cjk, has_cjk, is_cjk_char

HAN = ["中", "订", "一", "㐀", "䶿", "豈", "\U00020000", "\U0002a6d6"]
NOT_HAN = ["a", "Z", "1", "１", "Ａ", "。", "，", "あ", "ア", "한", " ", "〇", "😀", "\u3000"]


class TestIsCjkChar:
    @pytest.mark.parametrize("ch", HAN)
    def test_han_ideographs_are_cjk(self, ch: str) -> None:
        """Basic block, extension A, compatibility block and extension B alike."""
        assert is_cjk_char(ch)

    @pytest.mark.parametrize("ch", NOT_HAN)
    def test_everything_else_is_not(self, ch: str) -> None:
        """Kana and Hangul do not make a turn Chinese; neither does CJK punctuation."""
        assert not is_cjk_char(ch)

    @pytest.mark.parametrize("ch", HAN + NOT_HAN)
    def test_the_character_test_agrees_with_the_pattern(self, ch: str) -> None:
        """The tight-loop test and the regex are two forms of one definition."""
        assert is_cjk_char(ch) == (CJK_CHAR.fullmatch(ch) is not None)


class TestHasCjk:
    @pytest.mark.parametrize("text", ["我的订单到哪了", "order 12345 的状态", "iPad平板", "好"])
    def test_any_han_character_makes_text_chinese(self, text: str) -> None:
        assert has_cjk(text)

    @pytest.mark.parametrize("text", ["", "where is my order", "12345", "ＭＹ ＰＨＯＮＥ", "ありがとう", "안녕하세요"])
    def test_text_without_han_is_not(self, text: str) -> None:
        assert not has_cjk(text)


class TestCountCjk:
    @pytest.mark.parametrize(
        ("text", "count"),
        [("", 0), ("hello world", 0), ("你好", 2), ("订单 12345 的状态", 5), ("iPad平板 and 手机", 4), ("かな漢字", 2)],
    )
    def test_counts_han_characters_only(self, text: str, count: int) -> None:
        assert count_cjk(text) == count

    def test_runs_are_maximal_stretches_of_han(self) -> None:
        assert CJK_RUN.findall("我的 iPhone 屏幕碎了") == ["我的", "屏幕碎了"]
        assert CJK_RUN.findall("no chinese here") == []
