"""The FAQ index: an utterance is scored against each entry's examples and keywords, the best
entry kept above the threshold; an entry none of whose examples shares a word is passed over."""

from __future__ import annotations

import re

import pytest

from dialogkit.engine.faq import KEYWORD_SCORE, FaqIndex, _keyword_pattern
from dialogkit.spec.schema import FaqSpec
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.intents import INTENT_THRESHOLD, features, similarity

FAQ = {
    "hours": FaqSpec(examples=["你们几点关门", "营业时间是什么", "when do you close", "what are your opening hours"],
                     keywords=["营业时间", "opening hours"], answer="9-21"),
    "roaming": FaqSpec(examples=["出国怎么用手机", "how do I use my phone abroad"], answer="roaming"),
    "refund": FaqSpec(examples=["退款多久到账", "how long does a refund take"], answer="3 days"),
}
INDEX = FaqIndex(FAQ)


def _every_example(text: str) -> tuple[str, float] | None:
    """The best entry with every example of every entry scored: what the index must find."""
    said, best = features(text), None
    for name, spec in FAQ.items():
        score = max((similarity(said, features(e)) for e in spec.examples), default=0.0)
        if any(k.lower() in text.lower() for k in spec.keywords):
            score = max(score, KEYWORD_SCORE)
        if score >= INTENT_THRESHOLD and (best is None or score > best[1]):
            best = (name, score)
    return best


@pytest.mark.parametrize("text", [
    "你们晚上几点关门？", "退款一般多久能到账", "我的手机屏幕碎了", "好的", "",
    "When do you close today?", "how long will my refund take", "my phone arrived broken", "ok",
])
def test_the_index_finds_what_scoring_every_example_finds(text: str) -> None:
    assert INDEX.match(text) == _every_example(text)


@pytest.mark.parametrize(("text", "entry"), [("你们晚上几点关门？", "hours"), ("how long will my refund take", "refund")])
def test_a_question_in_other_words_finds_its_entry(text: str, entry: str) -> None:
    found = INDEX.match(text)
    assert found is not None and found[0] == entry


KEYWORDS = ["营业时间", "几点开门", "opening hours", "5G coverage", "wifi", "a+ plan", "ipad平板"]


def _plain_keywords(keywords: list[str]) -> re.Pattern[str]:
    """The FAQ keywords as first written: a look-behind opening each Latin keyword."""
    parts = [re.escape(k) if has_cjk(k) else rf"(?<![a-z0-9]){re.escape(k)}(?![a-z0-9])"
             for k in sorted({k.strip().lower() for k in keywords}, key=len, reverse=True)]
    return re.compile("|".join(parts))


@pytest.mark.parametrize("text", [
    "营业时间是什么", "你们几点开门？", "ipad平板的营业时间", "what are your opening hours", "reopening hours",
    "is there 5g coverage?", "wifi or wifis, mywifi", "the a+ plan, a+ plans", "opening  hours", "",
])
def test_keywords_open_with_a_character_and_match_as_written_zh_en(text: str) -> None:
    """Each keyword checks its word edge after its first character, so the regex engine looks for
    where one can start; the matches are those of the look-behind written first."""
    fast = _keyword_pattern(KEYWORDS)
    assert fast is not None
    assert not any(part.startswith("(?<") for part in fast.pattern.split("|"))
    assert [m.span() for m in fast.finditer(text.lower())] == [
        m.span() for m in _plain_keywords(KEYWORDS).finditer(text.lower())]
