"""The built-in number and integer types (docs/bot-file.md: int when integral, float otherwise)."""

from __future__ import annotations

import pytest

from dialogkit.understanding.numbers import (
    find_integers,
    find_numbers,
    parse_cn_integer,
    parse_en_number,
)


def values(text: str) -> list[object]:
    return [f.value for f in find_numbers(text)]


class TestArabicNumbers:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("150", 150),
            ("150$", 150),
            ("$150", 150),
            ("150 dollars", 150),
            ("1,500", 1500),
            ("3.5", 3.5),
            ("3k", 3000),
            ("2.5K", 2500),
            ("150元", 150),
            ("150块钱", 150),
            ("3万", 30000),
            ("1.5万", 15000),
            ("150.0", 150),
            ("2 million", 2_000_000),
        ],
    )
    def test_written_forms(self, text: str, expected: float) -> None:
        """Currency signs, units, thousands separators and multipliers are understood."""
        assert values(text) == [expected]
        assert type(values(text)[0]) is type(expected)

    def test_span_covers_currency_and_unit(self) -> None:
        """The mention text is what the user wrote for the amount, "$150" not "150"."""
        (found,) = find_numbers("pay $150 now")
        assert "pay $150 now"[found.start : found.end] == "$150"
        (found,) = find_numbers("一共150块钱")
        assert "一共150块钱"[found.start : found.end] == "150块钱"

    def test_several_numbers_in_order(self) -> None:
        """Lists of numbers, separated by Chinese or English punctuation."""
        assert values("订单12345,67890和24680") == [12345, 67890, 24680]
        assert values("orders 12345, 67890 and 24680") == [12345, 67890, 24680]

    def test_digits_glued_to_letters_are_not_numbers(self) -> None:
        """A code such as "abc123" is not the number 123."""
        assert values("code abc123") == []


class TestChineseNumerals:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("一百五十", 150),
            ("两百", 200),
            ("一千五", 1500),
            ("三万", 30000),
            ("十二", 12),
            ("零点五", 0.5),
            ("一百零五", 105),
            ("两百五", 250),
            ("三万五", 35000),
            ("一亿两千万", 120_000_000),
            ("二十五万", 250_000),
            ("一二三四五", 12345),
        ],
    )
    def test_numerals(self, text: str, expected: float) -> None:
        """Units, the spoken abbreviation (一千五) and digit-by-digit strings."""
        assert values(text) == [expected]

    def test_numerals_inside_a_sentence(self) -> None:
        """The sentence "预算一百五十块" holds 150; the unit is part of the span."""
        (found,) = find_numbers("我的预算一百五十块")
        assert found.value == 150
        assert "我的预算一百五十块"[found.start : found.end] == "一百五十块"

    @pytest.mark.parametrize(
        "text", ["第一个", "第二个订单", "三星手机", "一样的", "千万别忘了", "看一下"]
    )
    def test_numeral_characters_inside_words_are_not_numbers(self, text: str) -> None:
        """Ordinals and words that merely contain numeral characters yield nothing."""
        assert values(text) == []

    def test_single_numeral_before_a_measure_word_is_a_number(self) -> None:
        """Before a measure word or at the end: "三个" is 3, "给我五" is 5."""
        assert values("我要三个") == [3]
        assert values("给我五") == [5]

    @pytest.mark.parametrize("text", ["张三", "李四", "王五", "我叫张三", "姓名：王五", "预订人是李四"])
    def test_a_numeral_ending_a_name_after_a_surname_is_no_number(self, text: str) -> None:
        """"张三" is a person, not the number 3 (a restaurant bot asked for a name got a party size)."""
        assert values(text) == []

    def test_a_name_leaves_the_numbers_beside_it(self) -> None:
        assert values("王五，4个人") == [4]
        assert values("张三要三个") == [3]

    def test_the_same_one_is_no_number(self) -> None:
        """"同一个号码再加10个G" holds the 10 only: 同一个 is "the same one"."""
        assert values("同一个号码再加10个G") == [10]

    def test_invalid_numerals_are_rejected(self) -> None:
        assert parse_cn_integer("一二百") is None
        assert parse_cn_integer("abc") is None


class TestEnglishNumberWords:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("one hundred fifty", 150),
            ("one hundred and fifty", 150),
            ("twenty-one", 21),
            ("twelve", 12),
            ("three thousand", 3000),
            ("zero point five", 0.5),
            ("fifty dollars", 50),
        ],
    )
    def test_words(self, text: str, expected: float) -> None:
        """English is the equal of Chinese: "one hundred fifty" is 150 like 一百五十."""
        assert values(text) == [expected]

    def test_that_one_is_a_reference_not_a_number(self) -> None:
        """The phrases "that one" / "the first one" are references; "one" alone is 1."""
        assert values("I want that one") == []
        assert values("one") == [1]

    def test_parse_rejects_non_number_words(self) -> None:
        assert parse_en_number("hundred apples") is None


class TestIntegers:
    def test_integers_skip_fractions(self) -> None:
        """The integer type takes integral values only, in both languages."""
        assert [f.value for f in find_integers("3.5 and 4")] == [4]
        assert [f.value for f in find_integers("零点五和十二")] == [12]


class TestMeasureWords:
    """Every Chinese numeral before a measure word is a quantity, the measure word in its span."""

    @pytest.mark.parametrize(
        ("text", "expected", "span"),
        [
            ("十件", 10, "十件"),
            ("退十个", 10, "十个"),
            ("十二个", 12, "十二个"),
            ("二十件", 20, "二十件"),
            ("一百块", 100, "一百块"),
            ("两件", 2, "两件"),
            ("三台", 3, "三台"),
            ("廿件", 20, "廿件"),
            ("廿五天", 25, "廿五天"),
            ("卅个", 30, "卅个"),
            ("住两晚", 2, "两晚"),
            ("三小时", 3, "三小时"),
            ("十分钟", 10, "十分钟"),
            ("十万个", 100_000, "十万个"),
            ("我要退3件", 3, "3件"),
            ("一共 12 个", 12, "12 个"),
        ],
    )
    def test_numeral_and_measure_word(self, text: str, expected: int, span: str) -> None:
        (found,) = find_numbers(text)
        assert found.value == expected
        assert text[found.start : found.end] == span

    @pytest.mark.parametrize("text", ["十", "两", "廿", "十个", "两件"])
    def test_bare_answers(self, text: str) -> None:
        """The whole answer to "退几件？" may be the numeral alone, 十 and 两 included."""
        assert len(find_integers(text)) == 1

    @pytest.mark.parametrize("text", ["十分满意", "万一下雨呢", "千万别忘了", "十几个", "一样的", "三星手机"])
    def test_words_made_of_numerals_stay_words(self, text: str) -> None:
        """十分 (very), 万一 (in case), 千万 (by all means); "十几个" is no exact number."""
        assert values(text) == []
