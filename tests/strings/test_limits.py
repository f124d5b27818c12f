"""The input cap, the stored cap, and the cleaning every message goes through."""

from __future__ import annotations

import pytest

from dialogkit.strings.limits import MAX_STORED_CHARS, MAX_UNDERSTOOD_CHARS, clean_text
from dialogkit.understanding.language import fold


def test_the_caps() -> None:
    """The turn understands 4,000 characters and stores up to 65,536."""
    assert MAX_UNDERSTOOD_CHARS == 4000
    assert MAX_STORED_CHARS == 65536
    assert MAX_UNDERSTOOD_CHARS < MAX_STORED_CHARS


@pytest.mark.parametrize("unit", ["字", "x", "订单12345 "])
def test_understanding_reads_up_to_the_cap(unit: str) -> None:
    """Rules fold the same first characters the turn passes on, in either language."""
    text = unit * (MAX_UNDERSTOOD_CHARS + 10)
    assert fold(text) == text[:MAX_UNDERSTOOD_CHARS]


class TestCleanText:
    @pytest.mark.parametrize("text", ["我的订单到哪了", "where is my order?", "订单 12345 的状态", "😀 ok"])
    def test_printable_text_is_only_stripped(self, text: str) -> None:
        assert clean_text(f"  {text}\n") == text

    def test_bytes_are_decoded_as_utf8(self) -> None:
        assert clean_text("你好 hello".encode()) == "你好 hello"
        assert clean_text(b"caf\xff") == "caf\ufffd"

    @pytest.mark.parametrize(("value", "text"), [(None, ""), (12345, "12345"), (3.5, "3.5"), (True, "True")])
    def test_other_values_become_their_text(self, value: object, text: str) -> None:
        assert clean_text(value) == text

    def test_control_characters_go_newlines_and_tabs_stay(self) -> None:
        assert clean_text("订单\x00123\x1b45\n第二行\tend\x7f") == "订单12345\n第二行\tend"

    def test_lone_surrogates_do_not_survive(self) -> None:
        """A lone surrogate cannot be encoded as UTF-8: it must not reach the store or a log."""
        cleaned = clean_text("ok\ud800好")
        cleaned.encode("utf-8")
        assert cleaned.startswith("ok") and cleaned.endswith("好")
