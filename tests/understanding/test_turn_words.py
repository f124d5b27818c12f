"""What the turn's words say besides their mentions, from its interpretation: the matches of the
bot file's own words (a slot's label, ``Interpretation.matches``) and the yes or no the words are
(``Interpretation.answer``), each found once a turn."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest

from dialogkit.model.interpretation import Interpretation
from dialogkit.understanding import turn_words
from dialogkit.understanding.rules import RuleUnderstanding

# A slot's label and what joins it to its value, as a bot file's slot layout writes it.
LABEL = re.compile(r"(?:\b(?:the|my)\s+)?(?:订单号|order number)\s*(?:是|is|:|：)?\s*", re.IGNORECASE)
LABELLED = [("zh", "订单号是12345，不是订单号54321"), ("en", "my order number is 12345, not order number 54321")]


class Counted:
    """A pattern that counts how often the words are searched with it."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scans = 0

    def finditer(self, text: str) -> Any:
        self.scans += 1
        return self.pattern.finditer(text)


@pytest.mark.parametrize(("lang", "text"), LABELLED)
def test_a_label_is_found_where_the_words_say_it(rules: RuleUnderstanding, lang: str, text: str) -> None:
    """Every match in text order, spans in the words as written."""
    found = rules.interpret(text, lang).matches(LABEL)
    assert [m.span() for m in found] == [m.span() for m in LABEL.finditer(text)]
    assert [text[m.end():m.end() + 5] for m in found] == ["12345", "54321"]


@pytest.mark.parametrize(("lang", "text"), LABELLED)
def test_each_label_is_looked_for_once_a_turn(rules: RuleUnderstanding, lang: str, text: str) -> None:
    """However many steps ask (the offer, the check that a labelled value went elsewhere)."""
    interp = rules.interpret(text, lang)
    label = Counted(LABEL)
    first = interp.matches(cast(re.Pattern[str], label))
    assert interp.matches(cast(re.Pattern[str], label)) is first and label.scans == 1


@pytest.mark.parametrize(("lang", "text", "answer"), [
    ("zh", "不用了，谢谢", (False, True)), ("zh", "好的", (True, True)), ("zh", "不，算了", (False, False)),
    ("en", "no thanks", (False, True)), ("en", "yes", (True, True)), ("en", "no, never mind", (False, False)),
])
def test_the_answer_the_words_are(rules: RuleUnderstanding, lang: str, text: str, answer: tuple[bool, bool]) -> None:
    """(yes, nothing else said): the answer the cues read."""
    read = rules.interpret(text, lang).answer
    assert read is not None and (read.value, read.whole) == answer


@pytest.mark.parametrize(("lang", "text"), [("zh", "不用了，谢谢"), ("en", "no, never mind")])
def test_the_answer_is_read_though_a_cancel_took_the_cue(rules: RuleUnderstanding, lang: str, text: str) -> None:
    """The words cancel, so the cues hold no "no"; the no they begin with is still theirs."""
    interp = rules.interpret(text, lang)
    assert "cancel" in interp.cues and "no" not in interp.cues
    assert interp.answer is not None and interp.answer.value is False


@pytest.mark.parametrize(("lang", "text"), [("zh", "订单12345到哪了？"), ("en", "where is order 12345?")])
def test_words_that_are_no_answer_hold_none(rules: RuleUnderstanding, lang: str, text: str) -> None:
    assert rules.interpret(text, lang).answer is None


@pytest.mark.parametrize(("lang", "text"), [("zh", "不用了，谢谢"), ("en", "where is order 12345?")])
def test_the_answer_is_read_when_first_asked_and_once(rules: RuleUnderstanding, monkeypatch: pytest.MonkeyPatch,
                                                      lang: str, text: str) -> None:
    """A turn no step asks about pays nothing for it; one asked about, once."""
    reads: list[str] = []
    read = turn_words.leading_answer

    def counted(words: str, **kwargs: Any) -> Any:
        reads.append(words)
        return read(words, **kwargs)

    monkeypatch.setattr(turn_words, "leading_answer", counted)
    interp = rules.interpret(text, lang)
    assert reads == []
    assert [interp.answer, interp.answer] == [read(text), read(text)] and len(reads) == 1


def test_an_interpretation_made_by_hand_finds_its_labels_itself() -> None:
    """Without the understanding that read it (an LLM's, a test's): the labels in its words, no answer."""
    interp = Interpretation(text="订单号是12345", language="zh", cues={"no"})
    assert [m.span() for m in interp.matches(LABEL)] == [(0, 4)] and interp.answer is None


@pytest.mark.parametrize(("lang", "text"), [
    ("zh", "没有"), ("zh", "没"), ("zh", "不知道"), ("zh", "我也不清楚"), ("zh", "没有啊"),
    ("en", "No."), ("en", "nope"), ("en", "I don't know"), ("en", "no, I don't know"), ("en", "I don't have one"),
    ("en", "No I do not"), ("en", "we do not have that preference"),
])
def test_words_that_give_nothing(rules: RuleUnderstanding, lang: str, text: str) -> None:
    """An answer with nothing in it: asked for a value that may be "any", no preference."""
    assert rules.interpret(text, lang).declines


@pytest.mark.parametrize(("lang", "text"), [
    ("zh", "不"), ("zh", "没有，要老城"), ("zh", "不知道怎么办"), ("zh", "不知道吗？"),
    ("en", "no thanks"), ("en", "No, thank you."), ("en", "no, the old town"), ("en", "I don't know what to order?"),
    ("en", "I don't like it"),
])
def test_words_that_give_something_or_decline_an_offer(rules: RuleUnderstanding, lang: str, text: str) -> None:
    assert not rules.interpret(text, lang).declines


@pytest.mark.parametrize(("lang", "text", "said"), [
    ("zh", "再见", True), ("zh", "好的，谢谢，拜拜", True), ("zh", "我想租房", False),
    ("zh", "再见之前帮我查一下订单12345，然后把结果发到我的邮箱里，谢谢你们的耐心帮助", False),
    ("en", "bye", True), ("en", "Thank you, goodbye.", True), ("en", "ok thanks, see you", True),
    ("en", "goodbyes are hard", False), ("en", "before I say bye could you check my order 12345 and tell me where it is now", False),
])
def test_words_that_say_goodbye(rules: RuleUnderstanding, lang: str, text: str, said: bool) -> None:
    """A short turn holding a farewell; a long one is about something else."""
    assert rules.interpret(text, lang).farewell is said


@pytest.mark.parametrize(("lang", "text"), [("zh", "没有"), ("en", "bye")])
def test_neither_is_read_unless_asked(rules: RuleUnderstanding, monkeypatch: pytest.MonkeyPatch, lang: str,
                                      text: str) -> None:
    """Few turns are asked whether they give nothing or say goodbye: the others pay nothing."""
    asked: list[str] = []
    monkeypatch.setattr(turn_words, "declines", lambda lowered: asked.append(lowered) or False)
    monkeypatch.setattr(turn_words, "says_farewell", lambda lowered: asked.append(lowered) or False)
    interp = rules.interpret(text, lang)
    assert asked == []
    assert not interp.declines and not interp.declines and asked == [text]
