"""Clarification (docs/behaviours.md item 10): the question, the pending state, and understanding the answer."""

from __future__ import annotations

import pytest

from dialogkit.memory.clarification import answer_clarification, clarification_question, make_pending
from dialogkit.memory.references import Ambiguity, resolve
from dialogkit.model.session import Candidate, PendingClarification
from tests.memory._builders import mention, new_session, say


def ambiguity_of(*values: str, type_name: str = "order_id", text: str = "它还没到", language: str = "zh") -> Ambiguity:
    s = new_session()
    say(s, 1, *(mention(type_name, v) for v in values))
    resolution = resolve(s, text, language, turn=2, mentions=[])
    assert resolution.ambiguity is not None
    return resolution.ambiguity


def pending_of(*values: str, type_name: str = "order_id", language: str = "zh") -> PendingClarification:
    text = "它还没到" if language == "zh" else "it never arrived"
    if type_name == "person":
        text = "问他项目进度" if language == "zh" else "ask him"
    return make_pending(ambiguity_of(*values, type_name=type_name, text=text, language=language),
                        original_text=text, language=language, turn=2)


class TestQuestion:
    def test_zh_two_orders(self) -> None:
        assert clarification_question(ambiguity_of("12345", "67890"), "zh") == "您指的是订单 12345 还是 67890？"

    def test_en_two_orders(self) -> None:
        amb = ambiguity_of("12345", "67890", text="it never arrived", language="en")
        assert clarification_question(amb, "en") == "Do you mean order 12345 or 67890?"

    def test_zh_two_people(self) -> None:
        amb = ambiguity_of("张经理", "李主管", type_name="person", text="问他项目进度")
        assert clarification_question(amb, "zh") == "您指的是张经理还是李主管？"

    def test_en_two_people(self) -> None:
        amb = ambiguity_of("Joe Brown", "John Smith", type_name="person", text="ask him", language="en")
        assert clarification_question(amb, "en") == "Do you mean Joe Brown or John Smith?"

    def test_three_or_more_candidates(self) -> None:
        options = [Candidate(value=v, type="person", label=v) for v in ("A", "B", "C")]
        assert clarification_question(options, "zh") == "您指的是 A、B 还是 C？"
        assert clarification_question(options, "en") == "Do you mean A, B or C?"

    def test_custom_labels(self) -> None:
        amb = ambiguity_of("12345", "67890", text="it", language="en")
        text = clarification_question(amb, "en", labels=lambda e: f"#{e.value}")
        assert text == "Do you mean #12345 or #67890?"


class TestPending:
    def test_pending_keeps_candidates_in_order_of_first_mention(self) -> None:
        pending = pending_of("12345", "67890")
        assert [c.value for c in pending.candidates] == ["12345", "67890"]
        assert (pending.kind, pending.expression, pending.original_text, pending.turn) == ("reference", "它", "它还没到", 2)
        assert all(c.entity_id for c in pending.candidates)

    def test_slot_value_question_from_candidates(self) -> None:
        """"给约翰或者玛丽转账": two values for one slot."""
        options = [Candidate(value=v, type="person", label=v) for v in ("约翰", "玛丽")]
        pending = make_pending(options, original_text="给约翰或者玛丽转账", language="zh", turn=1,
                               kind="slot_value", slot="payee", flow="transfer")
        assert (pending.kind, pending.slot, pending.flow) == ("slot_value", "payee", "transfer")
        assert clarification_question(pending.candidates, "zh") == "您指的是约翰还是玛丽？"


class TestAnswer:
    @pytest.mark.parametrize(("answer", "expected"), [
        ("第一个", "12345"), ("第二个", "67890"), ("前者", "12345"), ("后者", "67890"), ("最后一个", "67890"),
        ("67890", "67890"), ("是12345那个", "12345"), ("不是12345，是67890", "67890"), ("2", "67890"),
    ])
    def test_zh_answers(self, answer: str, expected: str) -> None:
        choice = answer_clarification(pending_of("12345", "67890"), answer, [])
        assert choice is not None and choice.value == expected

    @pytest.mark.parametrize(("answer", "expected"), [
        ("the first", "12345"), ("the second one", "67890"), ("the latter", "67890"), ("the former", "12345"),
        ("the last one", "67890"), ("order 67890", "67890"), ("not 12345, 67890", "67890"),
    ])
    def test_en_answers(self, answer: str, expected: str) -> None:
        choice = answer_clarification(pending_of("12345", "67890", language="en"), answer, [])
        assert choice is not None and choice.value == expected

    def test_zh_answer_by_name(self) -> None:
        choice = answer_clarification(pending_of("张经理", "李主管", type_name="person"), "李主管", [])
        assert choice is not None and choice.value == "李主管"

    def test_en_answer_by_part_of_a_name(self) -> None:
        choice = answer_clarification(pending_of("Joe Brown", "John Smith", type_name="person", language="en"),
                                      "I meant Smith", [])
        assert choice is not None and choice.value == "John Smith"

    def test_answer_by_mention_alias(self) -> None:
        """An alias understanding normalised ("iPhone" -> phone) picks the canonical value."""
        options = [Candidate(value="phone", type="product", label="phone"),
                   Candidate(value="laptop", type="product", label="laptop")]
        pending = make_pending(options, original_text="x", language="en", turn=1)
        choice = answer_clarification(pending, "the iPhone", [mention("product", "phone", "iPhone", start=4)])
        assert choice is not None and choice.value == "phone"

    @pytest.mark.parametrize(("answer", "language"), [("我想查天气", "zh"), ("what's the weather", "en"),
                                                      ("第三个", "zh"), ("both of them", "en")])
    def test_an_answer_naming_none_is_none(self, answer: str, language: str) -> None:
        assert answer_clarification(pending_of("12345", "67890", language=language), answer, []) is None

    def test_naming_both_is_no_choice(self) -> None:
        assert answer_clarification(pending_of("12345", "67890"), "12345和67890都是", []) is None
