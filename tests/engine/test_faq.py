"""The FAQ index: an utterance is scored against each entry's examples and keywords, the best
entry kept above the threshold; an entry none of whose examples shares a word is passed over."""

from __future__ import annotations

import pytest

from dialogkit.engine.faq import KEYWORD_SCORE, FaqIndex
from dialogkit.spec.schema import FaqSpec
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
