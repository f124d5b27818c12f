"""Declared entity types (regex, synonyms) and how mentions are chosen (docs/bot-file.md)."""

from __future__ import annotations

import itertools

import pytest

from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import bot_from_yaml, fixed_clock


def found(rules: RuleUnderstanding, text: str) -> list[tuple[str, object, str]]:
    return [(m.type, m.value, m.text) for m in rules.interpret(text, "zh").mentions]


class TestSynonyms:
    def test_aliases_inside_unsegmented_chinese(self, rules: RuleUnderstanding) -> None:
        """Chinese needs no spaces: 手机 is product=phone and 碎了 issue_type=damaged."""
        assert found(rules, "我上周买的手机屏幕碎了") == [
            ("product", "phone", "手机"),
            ("issue_type", "damaged", "碎了"),
        ]

    def test_aliases_in_english_case_insensitive(self, rules: RuleUnderstanding) -> None:
        """Case does not matter: "My PHONE arrived Broken" is product=phone, issue_type=damaged."""
        assert found(rules, "My PHONE arrived Broken") == [
            ("product", "phone", "PHONE"),
            ("issue_type", "damaged", "Broken"),
        ]

    @pytest.mark.parametrize("text", ["my iPhone is cracked", "我的iphone裂了"])
    def test_canonicalisation_iphone_is_phone(self, rules: RuleUnderstanding, text: str) -> None:
        """iPhone is an alias of phone, in either language."""
        assert rules.parse_value("product", text) == "phone"

    def test_latin_alias_needs_word_boundaries(self) -> None:
        """The alias "phone" does not match inside "iphone" unless "iPhone" itself is an alias."""
        spec = bot_from_yaml("""
            entities:
              product: {values: {phone: [phone]}}
            flows: {f: {slots: [{name: p, entity: product}]}}
        """)
        rules = RuleUnderstanding(spec, clock=fixed_clock)
        assert rules.extract("my iphone broke", ["product"]) == []
        assert rules.extract("我的phone坏了", ["product"])[0].value == "phone"

    @pytest.mark.parametrize(
        ("text", "alias"),
        [("我的笔记本电脑坏了", "笔记本电脑"), ("my laptop computer", "laptop computer")],
    )
    def test_longest_alias_wins(self, text: str, alias: str) -> None:
        """At one position the longest alias is taken, whatever the declaration order."""
        spec = bot_from_yaml("""
            entities:
              product:
                values:
                  computer: [电脑, computer]
                  laptop: [笔记本电脑, laptop computer, 笔记本, laptop]
            flows: {f: {slots: [{name: p, entity: product}]}}
        """)
        rules = RuleUnderstanding(spec, clock=fixed_clock)
        (mention,) = rules.extract(text, ["product"])
        assert (mention.value, mention.text) == ("laptop", alias)

    @pytest.mark.parametrize(
        ("text", "said"),
        [("奶酪铺（牛街店）的电话是多少", "奶酪铺（牛街店）"), ("奶酪铺(牛街店)的电话是多少", "奶酪铺(牛街店)"),
         ("is ＢＩＧ ＢＥＮ open today", "ＢＩＧ ＢＥＮ"), ("is Big Ben(London) open today", "Big Ben(London)")],
    )
    def test_an_alias_written_full_width_is_found_in_either_width(self, text: str, said: str) -> None:
        """A catalogue writes "（牛街店）" or "Ｂig"; a turn is read full-width folded, so is the alias."""
        spec = bot_from_yaml("""
            entities:
              place:
                values:
                  cheese_shop: [奶酪铺（牛街店）]
                  big_ben: [ＢＩＧ ＢＥＮ, Big Ben（London）]
            flows: {f: {slots: [{name: p, entity: place}]}}
        """)
        rules = RuleUnderstanding(spec, clock=fixed_clock)
        (mention,) = rules.extract(text, ["place"])
        assert mention.text == said and mention.value in ("cheese_shop", "big_ben")

    def test_two_values_differing_in_width_alone_claim_one_alias(self) -> None:
        from dialogkit.strings.aliases import normalise_aliases

        assert normalise_aliases(["店（一）", "店(一)", "ＡＢ　c"]) == ["店(一)", "店(一)", "ab c"]

    def test_multi_word_alias_and_plural(self, rules: RuleUnderstanding) -> None:
        """The alias "never  arrived" matches across extra spaces; "phones" is phone."""
        assert found(rules, "two phones never  arrived") == [
            ("product", "phone", "phones"),
            ("issue_type", "missing", "never  arrived"),
        ]

    def test_long_form_values_match_their_aliases(self, rules: RuleUnderstanding) -> None:
        """Long-form values (aliases + label) are matched like short ones."""
        assert rules.parse_value("product", "我的平板没到") == "tablet"
        assert rules.parse_value("product", "the tablet did not come") == "tablet"

    def test_full_width_text_is_matched(self, rules: RuleUnderstanding) -> None:
        """Full-width Latin letters are folded before matching; the text is kept as written."""
        (mention,) = rules.extract("我的ｉＰｈｏｎｅ坏了", ["product"])
        assert (mention.value, mention.text) == ("phone", "ｉＰｈｏｎｅ")


class TestRegexTypes:
    def test_value_is_the_first_group_that_took_part(self) -> None:
        """The first participating group, else the whole match; values are strings."""
        spec = bot_from_yaml(r"""
            entities:
              ticket: {pattern: '(?:T-(\d+))|(?:工单(\d+))'}
              code: {pattern: '[A-Z]{3}\d{2}'}
            flows: {f: {slots: [{name: t, entity: ticket}, {name: c, entity: code}]}}
        """)
        rules = RuleUnderstanding(spec, clock=fixed_clock)
        assert rules.parse_value("ticket", "ticket T-1001 please") == "1001"
        assert rules.parse_value("ticket", "查一下工单2002") == "2002"
        assert rules.parse_value("code", "code ABC12 ok") == "ABC12"

    def test_order_id_in_both_languages(self, rules: RuleUnderstanding) -> None:
        assert rules.parse_value("order_id", "订单号是12345") == "12345"
        assert rules.parse_value("order_id", "my order number is 12345") == "12345"
        assert rules.parse_value("order_id", "1234") is None


class TestOverlapPolicy:
    def test_declared_type_beats_builtin_number(self) -> None:
        """With an order_id regex, "12345" is an order_id, not also a number."""
        spec = bot_from_yaml(r"""
            entities:
              order_id: {pattern: '(?<!\d)\d{5,12}(?!\d)'}
            flows:
              f: {slots: [{name: o, entity: order_id}, {name: n, entity: number}]}
        """)
        rules = RuleUnderstanding(spec, clock=fixed_clock)
        types = [(m.type, m.value) for m in rules.interpret("订单12345，买了3个", "zh").mentions]
        assert types == [("order_id", "12345"), ("number", 3)]
        types = [(m.type, m.value) for m in rules.interpret("order 12345, 3 items", "en").mentions]
        assert types == [("order_id", "12345"), ("number", 3)]

    def test_extract_keeps_overlaps_across_types(self, rules: RuleUnderstanding) -> None:
        """Filling a number slot still sees 12345 as a number."""
        mentions = rules.extract("订单12345", ["order_id", "number"])
        assert [(m.type, m.value) for m in mentions] == [("order_id", "12345"), ("number", 12345)]

    def test_numbers_stay_out_of_interpret_unless_a_slot_uses_them(
        self, rules: RuleUnderstanding
    ) -> None:
        """The support bot has no number slot: "买了3个" yields no number mention."""
        assert [m.type for m in rules.interpret("买了3个手机", "zh").mentions] == ["product"]
        assert [m.type for m in rules.interpret("bought 3 phones", "en").mentions] == ["product"]

    def test_dates_times_phones_emails_are_always_reported(self, rules: RuleUnderstanding) -> None:
        """Entity memory wants them even when no slot asks for them."""
        zh = rules.interpret("明天下午三点给我发邮件 a@b.com", "zh")
        assert [(m.type, m.value, m.kind) for m in zh.mentions] == [
            ("date", "2026-12-01", "time"),
            ("time", "15:00", "time"),
            ("email", "a@b.com", "other"),
        ]
        en = rules.interpret("tomorrow at 3pm email a@b.com", "en")
        assert [(m.type, m.value) for m in en.mentions] == [
            ("date", "2026-12-01"),
            ("time", "15:00"),
            ("email", "a@b.com"),
        ]

    def test_mentions_are_in_order_and_disjoint(self, rules: RuleUnderstanding) -> None:
        mentions = rules.interpret("订单12345和67890的手机都坏了", "zh").mentions
        assert [m.value for m in mentions] == ["12345", "67890", "phone", "damaged"]
        assert all(a.end <= b.start for a, b in itertools.pairwise(mentions))

    def test_kind_comes_from_the_type(self, rules: RuleUnderstanding) -> None:
        """Declared kinds (order_id, product: thing), date/time: time, others: other."""
        kinds = {
            m.type: m.kind for m in rules.interpret("订单12345的手机坏了，明天", "zh").mentions
        }
        assert kinds == {
            "order_id": "thing",
            "product": "thing",
            "issue_type": "other",
            "date": "time",
        }


class TestUnknownTypes:
    def test_unknown_type_names_are_an_error(self, rules: RuleUnderstanding) -> None:
        """A misspelt type is a programming error, not an empty result."""
        with pytest.raises(ValueError, match="unknown entity type"):
            rules.parse_value("prodcut", "手机")
