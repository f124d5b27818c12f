"""Clarification (docs/behaviours.md item 10): the question, the pending state, and understanding the answer."""

from __future__ import annotations

import pytest

from dialogkit.memory.clarification import (
    answer_clarification,
    clarification_question,
    make_pending,
    option_labels,
)
from dialogkit.memory.references import Ambiguity, resolve
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Candidate, PendingClarification
from tests.memory._builders import bot_texts, mention, new_session, say

SUPPORT = "flows/support_ticket.yaml"
MEETING = "flows/meeting.yaml"


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


class TestOneLanguage:
    """The question and its quick replies name the candidates in the turn's language: the bot's
    label for a declared value, an alias in that language for a value without labels."""

    @staticmethod
    def products(said: tuple[str, str], text: str, language: str) -> Ambiguity:
        s = new_session()
        say(s, 1, mention("product", "phone", said[0]), mention("product", "laptop", said[1]))
        resolution = resolve(s, text, language, turn=2, mentions=[])
        assert resolution.ambiguity is not None
        return resolution.ambiguity

    def test_zh_question_after_english_mentions(self) -> None:
        """"I bought a phone and a laptop" then "它坏了": never "您指的是 phone 还是 laptop？"."""
        amb = self.products(("phone", "laptop"), "它坏了", "zh")
        texts = bot_texts(SUPPORT)
        assert clarification_question(amb, "zh", texts=texts) == "您指的是手机还是笔记本电脑？"
        pending = make_pending(amb, original_text="它坏了", language="zh", turn=2, texts=texts)
        assert [c.value for c in pending.candidates] == ["phone", "laptop"]
        assert option_labels(pending.candidates, "zh", texts) == ["手机", "笔记本电脑"]

    def test_en_question_after_chinese_mentions(self) -> None:
        amb = self.products(("手机", "电脑"), "it broke", "en")
        assert clarification_question(amb, "en", texts=bot_texts(SUPPORT)) == "Do you mean phone or laptop?"

    @pytest.mark.parametrize(("asked", "again", "question", "options"), [
        ("zh", "en", "Do you mean phone or laptop?", ["phone", "laptop"]),
        ("en", "zh", "您指的是手机还是笔记本电脑？", ["手机", "笔记本电脑"]),
    ])
    def test_asked_again_in_the_other_language(self, asked: str, again: str, question: str,
                                               options: list[str]) -> None:
        amb = self.products(("手机", "laptop"), "它坏了" if asked == "zh" else "it broke", asked)
        texts = bot_texts(SUPPORT)
        pending = make_pending(amb, original_text="", language=asked, turn=2, texts=texts)
        assert clarification_question(pending.candidates, again, texts=texts) == question
        assert option_labels(pending.candidates, again, texts) == options

    @pytest.mark.parametrize(("language", "text", "question"), [
        ("zh", "问他项目进度", "您指的是约翰还是玛丽？"), ("en", "ask him", "Do you mean John Smith or Mary Jones?"),
    ])
    def test_values_with_aliases_only(self, language: str, text: str, question: str) -> None:
        s = new_session()
        say(s, 1, mention("person", "John Smith", "John"), mention("person", "Mary Jones", "Mary"))
        amb = resolve(s, text, language, turn=2, mentions=[]).ambiguity
        assert amb is not None
        assert clarification_question(amb, language, texts=bot_texts(MEETING)) == question

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_slot_value_candidates_are_relabelled_too(self, language: str) -> None:
        """A slot-value question made with labels in one language reads in the turn's language."""
        options = [Candidate(value="John Smith", type="person", label="John Smith"),
                   Candidate(value="Mary Jones", type="person", label="Mary Jones")]
        names = {"zh": ["约翰", "玛丽"], "en": ["John Smith", "Mary Jones"]}[language]
        assert option_labels(options, language, bot_texts(MEETING)) == names
        assert option_labels(options, language) == ["John Smith", "Mary Jones"]

    def test_an_answer_may_name_the_label_it_was_shown(self) -> None:
        amb = self.products(("phone", "laptop"), "它坏了", "zh")
        pending = make_pending(amb, original_text="它坏了", language="zh", turn=2, texts=bot_texts(SUPPORT))
        choice = answer_clarification(pending, "笔记本电脑", [])
        assert choice is not None and choice.value == "laptop"
        by_mention = answer_clarification(pending, "电脑", [Mention("product", "laptop", "电脑", 0, 2, "thing")])
        assert by_mention is not None and by_mention.value == "laptop"


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


class TestOrdinalInsideAValue:
    """An ordinal word inside a value the bot declares is that value, not a pick: "first class" is
    a cabin and "第二航站楼" a terminal, so neither answers a pending clarification."""

    @pytest.mark.parametrize(("language", "text", "value", "surface"), [
        ("en", "no, make it first class", "first_class", "first class"),
        ("zh", "不对，改成第二航站楼", "T2", "第二航站楼"),
    ])
    def test_a_value_holding_an_ordinal_picks_no_candidate(self, language: str, text: str, value: str,
                                                          surface: str) -> None:
        pending = pending_of("12345", "67890", language=language)
        start = text.index(surface)
        found = Mention(type="cabin", value=value, text=surface, start=start, end=start + len(surface))
        assert answer_clarification(pending, text, [found]) is None

    @pytest.mark.parametrize(("language", "text"), [("en", "the first"), ("zh", "第一个")])
    def test_a_value_that_is_only_an_ordinal_still_picks(self, language: str, text: str) -> None:
        pending = pending_of("12345", "67890", language=language)
        word = "first" if language == "en" else "第一"
        start = text.index(word)
        alias = Mention(type="rank", value="one", text=word, start=start, end=start + len(word))
        picked = answer_clarification(pending, text, [alias])
        assert picked is not None and picked.value == "12345"


class TestCandidateInsideAnotherValue:
    """A candidate's value written inside another value is part of that value: the "11" of
    "2026年5月11日" or "May 11 2026" is a day of a date, not the candidate 11."""

    @staticmethod
    def days_question(language: str) -> PendingClarification:
        """"三天……天数是11" / "three days ... the number of days is 11": 3 or 11?"""
        options = [Candidate(value=3, type="number", label="3"), Candidate(value=11, type="number", label="11")]
        return make_pending(options, original_text="", language=language, turn=1, kind="slot_value", slot="days")

    @pytest.mark.parametrize(("language", "text", "surface"), [
        ("zh", "不对，开始日期是2026年5月11日", "2026年5月11日"),
        ("en", "no, the start date is May 11 2026", "May 11 2026"),
    ])
    def test_a_date_holding_a_candidate_picks_no_candidate(self, language: str, text: str, surface: str) -> None:
        pending = self.days_question(language)
        start = text.index(surface)
        date = Mention(type="date", value="2026-05-11", text=surface, start=start, end=start + len(surface))
        assert answer_clarification(pending, text, [date]) is None

    @pytest.mark.parametrize(("language", "text"), [("zh", "是11，开始日期是2026年5月11日"),
                                                    ("en", "11, and the start date is May 11 2026")])
    def test_the_candidate_said_outside_the_date_still_picks(self, language: str, text: str) -> None:
        pending = self.days_question(language)
        surface = "2026年5月11日" if language == "zh" else "May 11 2026"
        start = text.index(surface)
        date = Mention(type="date", value="2026-05-11", text=surface, start=start, end=start + len(surface))
        picked = answer_clarification(pending, text, [date])
        assert picked is not None and picked.value == 11
