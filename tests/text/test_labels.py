"""A bot's texts: values, slots and flows by their label in the turn's language; questions and help."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.actions.loading import load_bot_file
from dialogkit.spec.schema import EntityTypeSpec
from dialogkit.text.labels import Texts, declared_value_label, label_noun, written_in

ROOT = Path(__file__).resolve().parents[2]
TEXTS = Texts(load_bot_file(ROOT / "flows" / "support_ticket.yaml").spec)
REPORT = TEXTS.spec.flows["report_issue"]
TRANSFER = Texts(load_bot_file(ROOT / "tests" / "conversations" / "bots" / "transfer.yaml",
                                actions={"send_money": {}, "call_back": {}}).spec)
SEND = TRANSFER.spec.flows["transfer"]
REFUND = EntityTypeSpec.model_validate({"values": {
    "original": {"aliases": ["原路退回", "original payment"], "label": {"zh": "原路退回"}},
    "bank_transfer": ["银行转账", "转到银行卡", "bank transfer", "wire"],
    "张经理": ["张总", "Manager Zhang"],
    "store_credit": ["store credit"],
    "gift": {"aliases": ["gift card"], "label": "礼品卡 / gift card"},
}})


class TestTheLanguageOfAValue:
    """A value shows in the turn's language: its label there, else its first alias written in
    that language, else its label in the other language, else the canonical value."""

    @pytest.mark.parametrize("language, shown", [("zh", "约翰"), ("en", "John Smith")])
    def test_a_value_without_labels_shows_its_first_alias_in_the_language(self, language: str, shown: str) -> None:
        assert TRANSFER.value_label(SEND.slot("payee"), "John Smith", language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "将向约翰转账 100 美元，确认吗？"),
                                                 ("en", "I'll send 100 dollars to John Smith. Shall I go ahead?")])
    def test_the_confirmation_speaks_one_language(self, language: str, shown: str) -> None:
        slots = {"payee": "John Smith", "amount": 100, "currency": "USD"}
        assert TRANSFER.confirm("transfer", slots, language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "银行转账"), ("en", "bank transfer")])
    def test_an_identifier_canonical_value_gives_way_to_its_aliases(self, language: str, shown: str) -> None:
        assert declared_value_label(REFUND, "bank_transfer", language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "张经理"), ("en", "Manager Zhang")])
    def test_a_canonical_value_that_reads_as_a_name_is_the_first_alias(self, language: str, shown: str) -> None:
        assert declared_value_label(REFUND, "张经理", language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "原路退回"), ("en", "original")])
    def test_a_label_in_one_language_leaves_the_other_to_the_aliases(self, language: str, shown: str) -> None:
        assert declared_value_label(REFUND, "original", language) == shown

    def test_no_word_in_the_language_falls_back_to_the_canonical_value(self) -> None:
        assert declared_value_label(REFUND, "store_credit", "zh") == "store_credit"

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_plain_string_label_serves_both_languages(self, language: str) -> None:
        assert declared_value_label(REFUND, "gift", language) == "礼品卡 / gift card"

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_an_undeclared_value_is_no_label(self, language: str) -> None:
        assert declared_value_label(REFUND, "cash", language) is None
        assert TRANSFER.declared_label("payee", "Joe Bloggs", language) is None
        assert TRANSFER.declared_label("nonexistent", "x", language) is None
        assert TRANSFER.entity_value_label("payee", "Joe Bloggs", language) == "Joe Bloggs"

    @pytest.mark.parametrize(("language", "value", "shown"), [
        ("zh", "laptop", "笔记本电脑"), ("en", "laptop", "laptop"), ("zh", "12345", "12345"), ("en", "12345", "12345")])
    def test_a_label_read_once_is_looked_up_after_zh_en(self, language: str, value: str, shown: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """A text value's label (or its having none) is read once; later asks find it with one lookup."""
        texts = Texts(TEXTS.spec)
        assert texts.entity_value_label("product", value, language) == shown

        def unread(*_args: object) -> str | None:
            raise AssertionError("read again")

        monkeypatch.setattr(texts, "declared_label", unread)
        assert texts.entity_value_label("product", value, language) == shown
        assert texts.value_label(REPORT.slot("product"), value, language) == shown

    @pytest.mark.parametrize("language, shown", [("zh", "笔记本电脑 (laptop)"), ("en", "laptop")])
    def test_a_model_reads_the_label_with_the_canonical_value(self, language: str, shown: str) -> None:
        assert TEXTS.labelled_value(REPORT.slot("product"), "laptop", language) == shown
        assert TEXTS.labelled_value(REPORT.slot("order_id"), "12345", language) == "12345"
        assert TEXTS.labelled_entity_value("product", "laptop", language) == shown

    @pytest.mark.parametrize(("text", "zh", "en"), [("约翰", True, False), ("John", False, True),
                                                    ("iPhone手机", True, False), ("12345", False, False)])
    def test_which_language_a_word_is_written_in(self, text: str, zh: bool, en: bool) -> None:
        assert (written_in(text, "zh"), written_in(text, "en")) == (zh, en)


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

    @pytest.mark.parametrize(("language", "yes", "no"), [("zh", "是", "否"), ("en", "yes", "no")])
    def test_a_yes_no_value_is_a_word_of_the_language(self, language: str, yes: str, no: str) -> None:
        """"补寄新卡：否" / "replacement card: no", never Python's True / False."""
        assert (TEXTS.entity_value_label("yes_no", True, language), TEXTS.value_label(None, False, language)) == (yes, no)

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_template_values_hold_only_filled_slots(self, language: str) -> None:
        values = TEXTS.template_values(REPORT, {"order_id": "12345", "product": "laptop", "note": None}, language)
        assert values == {"order_id": "12345", "product": "笔记本电脑" if language == "zh" else "laptop"}


class TestTypeNouns:
    """A bot's slot labels name its entity types, for bots whose types no word list knows."""

    @pytest.mark.parametrize(("label", "language", "noun"), [
        ("保单号", "zh", "保单"), ("理赔编号", "zh", "理赔"), ("请假单号", "zh", "请假单"), ("号", "zh", None),
        ("policy number", "en", "policy"), ("patient ID", "en", "patient"), ("booking reference", "en", "booking"),
        ("no", "en", None), ("保单号", "en", None), ("policy number", "zh", None),
    ])
    def test_the_noun_of_a_label(self, label: str, language: str, noun: str | None) -> None:
        assert label_noun(label, language) == noun

    @pytest.mark.parametrize(("language", "nouns"), [("zh", ("订单",)), ("en", ("order",))])
    def test_declared_types_take_their_slots_nouns(self, language: str, nouns: tuple[str, ...]) -> None:
        assert TEXTS.type_nouns("order_id", language) == nouns
        assert TEXTS.type_nouns("number", language) == ()


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
