"""A bot's texts: values, slots and flows by their label in the turn's language; questions and help."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.actions.loading import load_bot_file
from dialogkit.text.labels import Texts

ROOT = Path(__file__).resolve().parents[2]
TEXTS = Texts(load_bot_file(ROOT / "flows" / "support_ticket.yaml").spec)
REPORT = TEXTS.spec.flows["report_issue"]




class TestValues:
    @pytest.mark.parametrize("language, shown", [("zh", "笔记本电脑"), ("en", "laptop")])
    def test_a_canonical_value_renders_as_its_label(self, language: str, shown: str) -> None:
        assert TEXTS.value_label(REPORT.slot("product"), "laptop", language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "手机"), ("en", "phone")])
    def test_labels_follow_the_turn_language(self, language: str, shown: str) -> None:
        assert TEXTS.value_label(REPORT.slot("product"), "phone", language) == shown

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_value_of_no_entity_renders_as_written(self, language: str) -> None:
        assert TEXTS.value_label(None, 150.0, language) == "150"

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_template_values_hold_only_filled_slots(self, language: str) -> None:
        values = TEXTS.template_values(REPORT, {"order_id": "12345", "product": "laptop", "note": None}, language)
        assert values == {"order_id": "12345", "product": "笔记本电脑" if language == "zh" else "laptop"}


class TestFlows:
    @pytest.mark.parametrize("language, expected", [
        ("zh", "报告订单问题并创建工单"), ("en", "Report a problem with an order and open a ticket"),
    ])
    def test_bilingual_descriptions_split_on_the_slash(self, language: str, expected: str) -> None:
        assert TEXTS.describe_flow("report_issue", language) == expected

    @pytest.mark.parametrize("language, expected", [
        ("zh", "“报告订单问题并创建工单”"), ("en", '"report a problem with an order and open a ticket"'),
    ])
    def test_a_task_is_named_in_quotes(self, language: str, expected: str) -> None:
        assert TEXTS.task_label("report_issue", language) == expected

    @pytest.mark.parametrize("language, intro", [("zh", "我可以帮您："), ("en", "I can help you with:")])
    def test_help_lists_every_flow(self, language: str, intro: str) -> None:
        lines = TEXTS.help(language).splitlines()
        assert lines[0] == intro and len(lines) == 1 + len(TEXTS.spec.flows)


class TestQuestions:
    @pytest.mark.parametrize("language, expected", [("zh", "请提供您的订单号。"), ("en", "What is your order number?")])
    def test_a_slot_asks_its_own_question(self, language: str, expected: str) -> None:
        assert TEXTS.ask(REPORT, REPORT.slot("order_id"), language, {}) == expected

    @pytest.mark.parametrize("language, shown", [("zh", "笔记本电脑"), ("en", "laptop")])
    def test_the_confirmation_names_values_by_label(self, language: str, shown: str) -> None:
        text = TEXTS.confirm("report_issue", {"order_id": "12345", "product": "laptop", "issue_type": "damaged"},
                             language)
        assert "12345" in text and shown in text

    @pytest.mark.parametrize("language, options", [("zh", ["确认", "取消"]), ("en", ["yes", "no"])])
    def test_yes_no_quick_replies(self, language: str, options: list[str]) -> None:
        assert TEXTS.yes_no(language) == options
