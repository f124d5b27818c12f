"""Reply templates: numbers without ".0", missing placeholders render empty, Chinese pieces joined."""

from __future__ import annotations

import pytest

from dialogkit.testing.logs import capture_turn_logs
from dialogkit.text import phrases as R


class TestValues:
    @pytest.mark.parametrize("value, shown", [(150.0, "150"), (1.5, "1.5"), (3000, "3000"), (None, ""), ("12345", "12345")])
    def test_numbers_render_without_a_trailing_zero(self, value: object, shown: str) -> None:
        assert R.format_value(value) == shown


class TestTemplates:
    def test_a_placeholder_without_value_renders_empty_and_warns(self) -> None:
        with capture_turn_logs() as events:
            text = R.render("订单 {order_id}：{status}", {"order_id": "12345"})
        assert text == "订单 12345："
        assert any(e.get("event") == "placeholder_without_value" and e.get("placeholder") == "status" for e in events)

    def test_braces_that_name_nothing_are_left_alone(self) -> None:
        assert R.render("use {} or {x}", {"x": "y"}) == "use {} or y"

    def test_chinese_pieces_join_without_spaces_after_full_stops(self) -> None:
        assert R.join(["好的，已取消。", "回到刚才的任务：", "请提供订单号。"], "zh") == "好的，已取消。回到刚才的任务：请提供订单号。"
        assert R.join(["OK.", "Back to it:", "Which order?"], "en") == "OK. Back to it: Which order?"


class TestGivingUp:
    """The rule's message is said as a sentence of its own inside the apology, in either language."""

    @pytest.mark.parametrize(("error", "expected"), [
        ("An order number has 5 to 12 digits.",
         'Sorry: An order number has 5 to 12 digits. I\'ve cancelled "report a problem"; you can start again any time.'),
        ("you can return at most 3 items",
         'Sorry: You can return at most 3 items. I\'ve cancelled "report a problem"; you can start again any time.'),
    ])
    def test_en_the_rule_message_keeps_its_capital_and_its_stop(self, error: str, expected: str) -> None:
        assert R.phrase("give_up", "en", error=error, task='"report a problem"') == expected

    @pytest.mark.parametrize(("error", "expected"), [
        ("订单号应为5到12位数字。", "抱歉，订单号应为5到12位数字。我先取消“报告问题”，您可以随时重新开始。"),
        ("最多退3件", "抱歉，最多退3件。我先取消“报告问题”，您可以随时重新开始。"),
    ])
    def test_zh_the_rule_message_is_a_sentence_of_its_own(self, error: str, expected: str) -> None:
        assert R.phrase("give_up", "zh", error=error, task="“报告问题”") == expected

    @pytest.mark.parametrize(("text", "language", "sentence"), [
        ("", "en", ""), ("ok!", "en", "Ok!"), ("好的", "zh", "好的。"), ("真的吗？", "zh", "真的吗？"),
    ])
    def test_as_sentence(self, text: str, language: str, sentence: str) -> None:
        assert R.as_sentence(text, language) == sentence


class TestThirdLanguage:
    """Spanish phrases come from the table; a language without a phrase says it in English, and
    lists and sentences follow the lexicon's ``writing``."""

    def test_es_has_its_own_phrases(self) -> None:
        assert R.phrase("cancelled", "es", task='"abrir una incidencia"') == 'De acuerdo, he cancelado "abrir una incidencia".'
        assert R.phrase("which_one", "es", options="pedido 12345 o 67890") == "¿A cuál se refiere: pedido 12345 o 67890?"

    def test_a_language_without_phrases_falls_back_to_english(self) -> None:
        assert R.phrase("nothing_to_cancel", "fr") == R.phrase("nothing_to_cancel", "en")

    @pytest.mark.parametrize(("language", "listed", "spoken", "alternatives"), [
        ("zh", "A、B、C", "A、B和C", "A、B还是C"),
        ("en", "A, B, C", "A, B and C", "A, B or C"),
        ("es", "A, B, C", "A, B y C", "A, B o C"),
    ])
    def test_lists_follow_the_writing_of_the_language(self, language: str, listed: str, spoken: str,
                                                       alternatives: str) -> None:
        items = ["A", "B", "C"]
        assert R.enumerate_items(items, language) == listed
        assert R.spoken_list(items, language) == spoken
        assert R.alternatives(items, language) == alternatives

    def test_es_sentences_get_a_capital_and_a_stop_and_pieces_a_space(self) -> None:
        assert R.as_sentence("no existe", "es") == "No existe."
        assert R.join(["De acuerdo.", "¿Qué producto es?"], "es") == "De acuerdo. ¿Qué producto es?"
