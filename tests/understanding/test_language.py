"""The language of a turn (``language: auto``, docs/bot-file.md) and the folded text rules read."""

from __future__ import annotations

import re

import pytest

from dialogkit.strings.limits import MAX_UNDERSTOOD_CHARS
from dialogkit.understanding import language
from dialogkit.understanding.language import detect_language, fold


class TestDetectLanguage:
    @pytest.mark.parametrize(
        "text", ["我的订单到哪了", "好", "ok 好的", "order 12345 的状态 please check it"]
    )
    def test_any_chinese_character_makes_the_turn_zh(self, text: str) -> None:
        """A turn containing CJK characters is zh, whatever else it holds."""
        assert detect_language(text, "en") == "zh"

    @pytest.mark.parametrize(
        "text", ["where is my order", "check order 12345 now", "it's not here"]
    )
    def test_three_latin_words_and_no_chinese_make_the_turn_en(self, text: str) -> None:
        """Three or more Latin-script words and no CJK: en."""
        assert detect_language(text, "zh") == "en"

    @pytest.mark.parametrize(
        "text", ["200", "ok", "yes", "no thanks", "😀👍", "", "   ", "12345 67890"]
    )
    @pytest.mark.parametrize("current", ["zh", "en"])
    def test_short_or_wordless_turns_keep_the_current_language(
        self, text: str, current: str
    ) -> None:
        """Turns such as "200", "ok", "yes" or emoji keep the session's language."""
        assert detect_language(text, current) == current

    @pytest.mark.parametrize(
        ("text", "current", "expected"),
        [
            ("我的邮箱是 zhang.wei@example.com", "en", "zh"),
            ("我的邮箱是zhang.wei@example.com", "en", "zh"),
            ("my email is 张伟@例子.中国", "zh", "en"),
            ("张伟@例子.中国", "en", "en"),
            ("zhang.wei@example.com", "zh", "zh"),
            ("Zhang.Wei.Backup@Example.COM", "zh", "zh"),
            ("https://example.com/orders/track-my-parcel", "zh", "zh"),
            ("网址是 https://example.com/track-my-order", "en", "zh"),
            ("see https://例子.中国/订单 for details", "zh", "en"),
            ("CA981 MU5101 ABC123", "zh", "zh"),
            ("E10234 LV20001", "zh", "zh"),
            ("my id E10234", "zh", "zh"),
            ("booking ABC123 please", "zh", "zh"),
            ("订单CA981", "en", "zh"),
        ],
    )
    def test_addresses_ids_and_codes_belong_to_no_language(self, text: str, current: str, expected: str) -> None:
        """An e-mail, a URL or a token holding a digit neither switches the session's language nor
        counts as a Latin word or a Chinese character; the words around it decide."""
        assert detect_language(text, current) == expected

    def test_japanese_kana_alone_is_not_chinese(self) -> None:
        """Only Han characters switch to zh."""
        assert detect_language("ありがとう", "en") == "en"


class TestFold:
    def test_full_width_digits_and_letters_become_ascii_with_offsets_kept(self) -> None:
        """Full-width "１２３４５" is an order number; folding keeps every offset."""
        text = "订单１２３４５，ｉＰｈｏｎｅ"
        folded = fold(text)
        assert folded == "订单12345,iPhone"
        assert len(folded) == len(text)

    def test_control_characters_become_spaces(self) -> None:
        """Binary junk cannot glue words together or break a regex."""
        assert fold("a\x00b\x1fc\x7f") == "a b c "

    def test_long_input_is_capped(self) -> None:
        """A 1 MB message is read up to the cap."""
        assert len(fold("x" * 1_000_000)) == MAX_UNDERSTOOD_CHARS


@pytest.mark.parametrize(("text", "current", "language"), [
    ("mi móvil llegó roto", "es", "es"),       # a Spanish session stays Spanish on Latin words
    ("my phone arrived broken", "es", "es"),   # (an es bot's session: its users write Latin script)
    ("我的手机坏了", "es", "zh"),
    ("sí", "es", "es"),
    ("my phone arrived broken", "zh", "en"),   # auto: a zh session turns en as before
])
def test_latin_words_keep_a_latin_script_session_language(text: str, current: str, language: str) -> None:
    assert detect_language(text, current) == language


_LETTERS = "A-Za-z\u00c0-\u024f"
_PLAIN_WORD = re.compile(rf"(?<![0-9{_LETTERS}])[{_LETTERS}]+(?:['\u2019][A-Za-z]+)?(?![0-9{_LETTERS}])")


@pytest.mark.parametrize("text", [
    "CA981 MU5101 ABC123", "my order CA981 is late", "it's the second one", "café crème brûlée", "3pm and 4pm",
    "我的订单 A10023 到哪了", "订单号是 12345，谢谢", "o", "a1 b2 c", "don\u2019t 5g", "\nword", ""])
def test_latin_words_are_found_from_their_first_letter_zh_en(text: str) -> None:
    """A word opens with a letter the regex engine looks for, the edge checked after it: the same
    words as the look-behind written first, and no part of a code."""
    assert [m.span() for m in language._WORD.finditer(text)] == [m.span() for m in _PLAIN_WORD.finditer(text)]
    assert not language._WORD.pattern.startswith("(?<")
