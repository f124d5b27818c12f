"""A turn's intents with a referent standing where its reference was (``intents_with``), scored
from the reading made: as the written-out words would read, with nothing read again."""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.model.interpretation import Mention
from dialogkit.understanding.rules import RuleUnderstanding
from dialogkit.understanding.stand_ins import StandIn, with_stand_ins

# (turn, reference, words in its place, where the order number stands in them)
HOW_IS_IT = {"zh": ("它现在怎么样？", "它", "订单12345", 2), "en": ("how is it now?", "it", "order 12345", 6)}


def order_in(words: str, at: int) -> Mention:
    return Mention("order_id", "12345", words[at:], at, len(words), "thing")


def stand_in(lang: str) -> tuple[str, StandIn]:
    text, ref, words, at = HOW_IS_IT[lang]
    start = text.index(ref)
    return text, StandIn(start, start + len(ref), words, (order_in(words, at),))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_intents_are_those_of_the_words_written_out(rules: RuleUnderstanding, lang: str) -> None:
    """"它现在怎么样？" with order 12345 in its place scores as "订单12345现在怎么样？" reads."""
    text, replaced = stand_in(lang)
    reading = rules.interpret(text, lang)
    written = text[:replaced.start] + replaced.words + text[replaced.end:]
    got = rules.intents_with(reading, [replaced])
    assert got == rules.interpret(written, lang).intents
    assert got and got[0].flow == "check_status" and got != reading.intents


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_nothing_is_read_again(rules: RuleUnderstanding, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """No entity is looked for in the new words, no cue read: the reading's mentions and the
    referent are all there is."""
    text, replaced = stand_in(lang)
    reading = rules.interpret(text, lang)

    def never(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the words must not be read again")

    monkeypatch.setattr(rules.entities, "find", never)
    monkeypatch.setattr("dialogkit.understanding.rules.detect_cues", never)
    assert rules.intents_with(reading, [replaced])[0].flow == "check_status"


@pytest.mark.parametrize(("lang", "text", "ref", "words", "other"), [
    ("zh", "它和订单67890都没到", "它", "订单12345", "67890"),
    ("en", "it and order 67890 never arrived", "it", "order 12345", "67890"),
])
def test_the_turns_other_mentions_move_with_the_words(rules: RuleUnderstanding, lang: str, text: str, ref: str,
                                                      words: str, other: str) -> None:
    reading = rules.interpret(text, lang)
    start = text.index(ref)
    at = words.index("12345")
    written, mentions = with_stand_ins(reading, [StandIn(start, start + len(ref), words, (order_in(words, at),))])
    assert written == words + text[len(ref):]
    assert all(written[m.start:m.end] == m.text for m in mentions)
    assert [m.value for m in mentions if m.type == "order_id"] == ["12345", other]


def test_a_mention_inside_a_replaced_span_gives_way(rules: RuleUnderstanding) -> None:
    """The words replaced take their mentions with them ("那个订单12345" written as another name)."""
    reading = rules.interpret("那个订单12345呢", "zh")
    written, mentions = with_stand_ins(reading, [StandIn(0, 9, "订单67890")])
    assert written == "订单67890呢" and mentions == []
