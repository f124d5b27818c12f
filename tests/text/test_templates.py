"""A bot file's template with an empty value: the value leaves with its label or joiner, and a
clause left empty with one of its marks; the other words stay. Held in zh, en and es alike."""

from __future__ import annotations

import pytest

from dialogkit.testing.logs import capture_turn_logs
from dialogkit.text import phrases as R
from dialogkit.text.templates import fill


class TestAnEmptyValue:
    @pytest.mark.parametrize(("template", "drink", "expected"), [
        ("一杯{drink}，加料：{extras}，确认吗？", "拿铁", "一杯拿铁，确认吗？"),
        ("加料：{extras}，一杯{drink}？", "拿铁", "一杯拿铁？"),
        ("Drink: {drink}. Extras: {extras}. OK?", "latte", "Drink: latte. OK?"),
        ("Bebida: {drink}. Extras: {extras}. ¿De acuerdo?", "latte", "Bebida: latte. ¿De acuerdo?"),
    ])
    def test_goes_with_its_label(self, template: str, drink: str, expected: str) -> None:
        assert fill(template, {"drink": drink, "extras": ""}) == expected

    @pytest.mark.parametrize(("template", "drink", "expected"), [
        ("{drink}加{extras}，确认吗？", "拿铁", "拿铁，确认吗？"),
        ("A {drink} with {extras}, OK?", "latte", "A latte, OK?"),
        ("Un {drink} con {extras}, ¿de acuerdo?", "latte", "Un latte, ¿de acuerdo?"),
    ])
    def test_goes_with_the_words_joining_it_to_an_earlier_value(self, template: str, drink: str,
                                                                 expected: str) -> None:
        assert fill(template, {"drink": drink, "extras": ""}) == expected

    @pytest.mark.parametrize(("template", "expected"), [
        ("好的，{name}，您的订单已提交。", "好的，您的订单已提交。"),
        ("已下单。{note}，谢谢。", "已下单。谢谢。"),
        ("{name}，您好！", "您好！"),
        ("Thanks, {name}. Your order is in.", "Thanks. Your order is in."),
        ("Ordered. {note}", "Ordered."),
        ("Gracias, {name}. Su pedido está hecho.", "Gracias. Su pedido está hecho."),
        ("{a}、{name}、{b}", "甲、乙"),
    ])
    def test_a_clause_left_empty_goes_with_its_weaker_mark(self, template: str, expected: str) -> None:
        assert fill(template, {"name": "", "note": "", "a": "甲", "b": "乙"}) == expected

    @pytest.mark.parametrize(("template", "expected"), [
        ("您好{name}！", "您好！"),
        ("Hello {name}, how can I help?", "Hello, how can I help?"),
        ("Your order {id} is placed.", "Your order is placed."),
        ("Hola {name}, ¿en qué puedo ayudarle?", "Hola, ¿en qué puedo ayudarle?"),
    ])
    def test_other_words_stay_without_a_stray_space(self, template: str, expected: str) -> None:
        assert fill(template, {"name": "", "id": ""}) == expected

    def test_a_template_left_with_no_word_renders_as_before(self) -> None:
        assert fill("操作失败：{error}", {"error": ""}) == "操作失败："

    def test_values_given_render_as_written(self) -> None:
        assert fill("一杯{drink}，加料：{extras}，确认吗？", {"drink": "拿铁", "extras": "燕麦奶和糖浆"}) \
            == "一杯拿铁，加料：燕麦奶和糖浆，确认吗？"
        assert fill("A {drink} with {extras}, OK?", {"drink": "latte", "extras": "oat milk"}) == "A latte with oat milk, OK?"

    @pytest.mark.parametrize(("template", "values", "expected"), [
        ("{drink}：{ }与{}，{ {x} }", {"drink": "拿铁", "x": "甲"}, "拿铁：{ }与{}，{ 甲 }"),
        ("{drink}: { } and {}, {0}", {"drink": "latte", "0": "zero"}, "latte: { } and {}, zero"),
    ])
    def test_braces_naming_nothing_stay_as_written(self, template: str, values: dict[str, str], expected: str) -> None:
        """Every value said fills the template in one step: the text around the values, braces
        included, stays as written (it is no format string of its own)."""
        assert fill(template, values) == expected

    def test_a_name_without_a_value_is_rendered_by_missing(self) -> None:
        asked: list[str] = []
        assert fill("{drink}，{size}", {"drink": "拿铁"}, lambda name: asked.append(name) or "中杯") == "拿铁，中杯"
        assert fill("{drink}, {size}", {"drink": "latte"}, lambda name: asked.append(name) or "") == "latte"
        assert asked == ["size", "size"]


class TestAPrompt:
    @pytest.mark.parametrize(("language", "expected"), [
        ("zh", "一杯拿铁，确认吗？"), ("en", "A latte, OK?"), ("es", "Un latte, ¿de acuerdo?"),
    ])
    def test_an_optional_value_never_left_has_no_dangling_label(self, language: str, expected: str) -> None:
        ask = {"zh": "一杯{drink}，加料：{extras}，确认吗？", "en": "A {drink} with {extras}, OK?",
               "es": "Un {drink} con {extras}, ¿de acuerdo?"}[language]
        with capture_turn_logs() as events:
            said = R.prompt(ask, language, {"drink": "拿铁" if language == "zh" else "latte"})
        assert said == expected
        assert any(e.get("event") == "placeholder_without_value" for e in events)
