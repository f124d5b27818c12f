"""RuleUnderstanding as the runtime calls it: one turn in, one Interpretation out."""

from __future__ import annotations

import pytest

from dialogkit.strings.limits import MAX_UNDERSTOOD_CHARS
from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import NOW, bot_from_yaml, fixed_clock


class TestInterpret:
    def test_chinese_turn(self, rules: RuleUnderstanding) -> None:
        """docs/behaviours.md item 1: intent and slots from one utterance."""
        result = rules.interpret("我上周买的手机屏幕碎了", "en")
        assert (result.language, result.source) == ("zh", "rules")
        assert result.top_intent is not None and result.top_intent.flow == "report_issue"
        assert {m.type: m.value for m in result.mentions} == {
            "product": "phone",
            "issue_type": "damaged",
        }
        assert result.cues == set()

    def test_english_turn(self, rules: RuleUnderstanding) -> None:
        result = rules.interpret("my iPhone arrived broken", "zh")
        assert (result.language, result.source) == ("en", "rules")
        assert result.top_intent is not None and result.top_intent.flow == "report_issue"
        assert {m.type: m.value for m in result.mentions} == {
            "product": "phone",
            "issue_type": "damaged",
        }

    @pytest.mark.parametrize(
        ("text", "language"), [("不对，订单号是67890", "zh"), ("actually it's 67890", "en")]
    )
    def test_correction_turn_carries_the_new_value(
        self, rules: RuleUnderstanding, text: str, language: str
    ) -> None:
        """docs/behaviours.md item 4: the cue and the replacement value arrive together."""
        result = rules.interpret(text, "en")
        assert "correction" in result.cues
        assert [(m.type, m.value) for m in result.mentions] == [("order_id", "67890")]

    @pytest.mark.parametrize("text", ["200", "ok", "yes", "👍"])
    def test_short_turns_keep_the_current_language(
        self, rules: RuleUnderstanding, text: str
    ) -> None:
        assert rules.interpret(text, "zh").language == "zh"
        assert rules.interpret(text, "en").language == "en"

    def test_mention_text_and_spans_refer_to_the_original(self, rules: RuleUnderstanding) -> None:
        """Full-width input is matched folded, reported as written."""
        text = "订单１２３４５的手机"
        (order, product) = rules.interpret(text, "zh").mentions
        assert (order.value, order.text, text[order.start : order.end]) == (
            "12345",
            "１２３４５",
            "１２３４５",
        )
        assert product.value == "phone"

    def test_dates_follow_the_injected_clock(self, rules: RuleUnderstanding) -> None:
        assert NOW.weekday() == 0
        assert rules.parse_value("date", "下周一") == "2026-12-07"
        assert rules.parse_value("date", "next monday") == "2026-12-07"


class TestParseValue:
    @pytest.mark.parametrize(
        ("type_name", "text", "expected"),
        [
            ("number", "一百五十", 150),
            ("number", "150 dollars", 150),
            ("integer", "十二个", 12),
            ("integer", "twelve", 12),
            ("time", "下午三点", "15:00"),
            ("time", "3pm", "15:00"),
            ("order_id", "订单号12345", "12345"),
            ("order_id", "order 12345", "12345"),
        ],
    )
    def test_first_value_of_the_type(
        self, rules: RuleUnderstanding, type_name: str, text: str, expected: object
    ) -> None:
        assert rules.parse_value(type_name, text) == expected

    @pytest.mark.parametrize(
        ("type_name", "text"), [("number", "没有数字"), ("date", "no date here")]
    )
    def test_none_when_absent(self, rules: RuleUnderstanding, type_name: str, text: str) -> None:
        assert rules.parse_value(type_name, text) is None


class TestPathologicalInput:
    @pytest.mark.parametrize(
        "text",
        ["", "   ", "\n\t", "😀👍🎉", "\x00\x01\x02\xff\ufffd", "\ud800", "🇨🇳" * 50],
        ids=["empty", "spaces", "whitespace", "emoji", "control", "lone-surrogate", "flags"],
    )
    def test_odd_input_gives_an_empty_reading(self, rules: RuleUnderstanding, text: str) -> None:
        result = rules.interpret(text, "zh")
        assert (result.mentions, result.intents, result.cues, result.language) == (
            [],
            [],
            set(),
            "zh",
        )
        assert rules.extract(text) == []

    @pytest.mark.timeout(10)
    @pytest.mark.parametrize(
        "unit",
        [
            "x",
            "1",
            "1,",
            "a@",
            "a.",
            "手",
            "一",
            "三点",
            "at 3 ",
            "no ",
            "12/",
            "+1 ",
            "\x00",
            "不是",
        ],
    )
    def test_a_megabyte_message_is_read_up_to_the_cap(
        self, rules: RuleUnderstanding, unit: str
    ) -> None:
        """Nothing backtracks catastrophically; text past the cap yields nothing."""
        text = unit * (1_000_000 // len(unit))
        result = rules.interpret(text, "en")
        assert all(m.end <= MAX_UNDERSTOOD_CHARS for m in result.mentions)
        assert all(m.end <= MAX_UNDERSTOOD_CHARS for m in rules.extract(text))

    def test_a_value_past_the_cap_is_not_seen(self, rules: RuleUnderstanding) -> None:
        """Documented limit: understanding reads the first MAX_UNDERSTOOD_CHARS characters."""
        assert rules.parse_value("order_id", " " * MAX_UNDERSTOOD_CHARS + "12345") is None
        assert rules.parse_value("order_id", " " * (MAX_UNDERSTOOD_CHARS - 6) + "12345") == "12345"


class TestDeclaredAndBuiltinMentions:
    """Acknowledgements name only things of the bot's own types (docs/behaviours.md item 18)."""

    @pytest.mark.parametrize(
        ("text", "declared", "builtin"),
        [
            ("我有两个订单 12345 和 67890", ["12345", "67890"], []),
            ("I have two orders, 12345 and 67890, since yesterday", ["12345", "67890"], ["yesterday"]),
            ("我昨天买的手机", ["手机"], ["昨天"]),
        ],
    )
    def test_builtin_matches_are_marked(self, rules: RuleUnderstanding, text: str, declared: list[str],
                                        builtin: list[str]) -> None:
        found = rules.interpret(text, "en")
        assert [m.text for m in found.declared_mentions] == declared
        assert [m.text for m in found.mentions if m.builtin] == builtin

    def test_number_words_stay_available_to_slots(self) -> None:
        """"两个订单" holds the number 2 for an integer slot; it is a helper match, not a thing."""
        spec = bot_from_yaml("""
            entities:
              order_id: {pattern: '\\d{5}'}
            flows:
              f:
                trigger: {keywords: [订单, order]}
                slots: [{name: n, entity: integer}, {name: order_id, entity: order_id}]
            """)
        found = RuleUnderstanding(spec, clock=fixed_clock).interpret("我有两个订单 12345", "zh")
        assert [(m.type, m.value, m.builtin) for m in found.mentions] == [
            ("integer", 2, True), ("order_id", "12345", False)]
        assert [m.text for m in found.declared_mentions] == ["12345"]
