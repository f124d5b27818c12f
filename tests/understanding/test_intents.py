"""Intent scores from flow triggers, calibrated on the shipped support bot."""

from __future__ import annotations

import pytest

from dialogkit.understanding.intents import (
    _BY_LAST,
    _SUFFIXES,
    INTENT_THRESHOLD,
    _content,
    _stemmed,
    features,
    similarity,
    stem,
)
from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import bot_from_yaml, fixed_clock

REPORT_ISSUE = [
    "我上周买的手机屏幕碎了",
    "我的包裹没收到",
    "my phone arrived broken",
    "my order never arrived",
    "手机碎了",
    "my laptop is damaged",
    "我的iPhone屏幕裂了",
    "the headphones I got are cracked",
]
CHECK_STATUS = [
    "查看订单 12345 的状态",
    "我的订单到哪了",
    "where is my order",
    "check the status of order 12345",
    "订单12345现在怎么样了",
    "track my order please",
]
CHIT_CHAT = [
    "今天天气怎么样",
    "tell me a joke",
    "讲个笑话",
    "what's the weather like today",
    "你好",
    "hello",
    "谢谢",
    "thank you very much",
    "你是谁",
    "who are you",
    "12345",
    "好的",
    "ok",
]


class TestSupportBotCalibration:
    @pytest.mark.parametrize("text", REPORT_ISSUE)
    def test_clear_problem_reports_pick_report_issue(
        self, rules: RuleUnderstanding, text: str
    ) -> None:
        top = rules.interpret(text, "en").top_intent
        assert top is not None and top.flow == "report_issue"
        assert top.score >= INTENT_THRESHOLD

    @pytest.mark.parametrize("text", CHECK_STATUS)
    def test_clear_status_questions_pick_check_status(
        self, rules: RuleUnderstanding, text: str
    ) -> None:
        top = rules.interpret(text, "en").top_intent
        assert top is not None and top.flow == "check_status"
        assert top.score >= INTENT_THRESHOLD

    @pytest.mark.parametrize("text", CHIT_CHAT)
    def test_chit_chat_stays_below_the_threshold(self, rules: RuleUnderstanding, text: str) -> None:
        """Weather talk holds check_status's keyword 怎么样 yet is no status question."""
        assert all(s.score < INTENT_THRESHOLD for s in rules.interpret(text, "en").intents)

    def test_scores_are_sorted_and_bounded(self, rules: RuleUnderstanding) -> None:
        intents = rules.interpret("my order never arrived, where is it", "en").intents
        assert [s.score for s in intents] == sorted((s.score for s in intents), reverse=True)
        assert all(0 <= s.score <= 1 for s in intents)


MEETING_BOT = """
    entities:
      room: {values: {blue: [蓝色会议室, blue room], red: [红色会议室, red room]}}
    flows:
      book_room:
        trigger: {keywords: [订会议室, book]}
        slots: [{name: room, entity: room}]
      other:
        trigger: {examples: [随便聊聊, just chatting]}
"""


class TestTriggers:
    def test_chinese_keywords_match_as_substrings(self) -> None:
        rules = RuleUnderstanding(bot_from_yaml(MEETING_BOT), clock=fixed_clock)
        assert rules.interpret("我想订会议室", "zh").intents[0].flow == "book_room"

    def test_latin_keywords_match_whole_words_only(self) -> None:
        """The keyword "book" is not found inside "notebook" or "Facebook"."""
        rules = RuleUnderstanding(bot_from_yaml(MEETING_BOT), clock=fixed_clock)
        assert rules.interpret("please book it", "en").intents[0].flow == "book_room"
        assert all(
            s.flow != "book_room" for s in rules.interpret("my notebook and Facebook", "en").intents
        )

    @pytest.mark.parametrize("text", ["蓝色会议室", "the blue room"])
    def test_slot_values_are_evidence_for_their_flow(self, text: str) -> None:
        """Naming a value of a flow's slot type is a reason to think of that flow."""
        rules = RuleUnderstanding(bot_from_yaml(MEETING_BOT), clock=fixed_clock)
        assert rules.interpret(text, "en").intents[0].flow == "book_room"

    def test_a_flow_without_trigger_never_scores(self) -> None:
        spec = bot_from_yaml("flows: {silent: {}}")
        assert (
            RuleUnderstanding(spec, clock=fixed_clock).interpret("anything at all here", "en").intents
            == []
        )


class TestSimilarity:
    def test_identical_texts_score_one(self) -> None:
        assert similarity(features("我的包裹没收到"), features("我的包裹没收到")) == 1.0
        assert similarity(features("where is my order"), features("Where is my ORDER?")) == 1.0

    def test_an_utterance_containing_an_example_scores_high(self) -> None:
        """Extra detail around an example costs little."""
        assert (
            similarity(features("你好，我的包裹没收到，怎么办"), features("我的包裹没收到")) > 0.7
        )
        assert (
            similarity(
                features("hi, my order never arrived, what now"), features("my order never arrived")
            )
            > 0.7
        )

    def test_unrelated_texts_score_zero(self) -> None:
        assert similarity(features("讲个笑话"), features("我的包裹没收到")) == 0.0
        assert similarity(features("tell me a joke"), features("my order never arrived")) == 0.0


def _every_suffix(word: str) -> str:
    """``stem`` as it reads when each suffix is tried in turn."""
    return next((word[:-len(s)] for s in _SUFFIXES if word.endswith(s) and len(word) - len(s) >= 3), word)


class TestStem:
    @pytest.mark.parametrize("word", ["broken", "arrived", "charging", "classes", "goes", "sees", "tree", "ring",
                                      "laptop", "my", "s", "es", "", "order's"])
    def test_the_first_suffix_that_leaves_three_letters_goes_en(self, word: str) -> None:
        assert stem(word) == _every_suffix(word)

    def test_a_word_is_tried_only_against_suffixes_ending_in_its_last_letter(self) -> None:
        """Most words ("laptop", "my") end in no suffix's letter and are tried against none."""
        assert _BY_LAST == {"g": ("ing",), "d": ("ed",), "n": ("en",), "s": ("es", "s"), "e": ("e",)}

    @pytest.mark.parametrize("word", ["broken", "arrived", "laptop", "order's", "s", ""])
    def test_a_remembered_stem_is_the_stem_en(self, word: str) -> None:
        """The turn's words are stemmed through a bounded memory: the same stem, made once."""
        assert _stemmed(word) == stem(word)
        assert _stemmed(word) == stem(word)
        assert _stemmed.cache_info().maxsize is not None

    @pytest.mark.parametrize(("text", "runs", "stems"), [
        ("我的手机屏幕碎了", ["手机屏幕碎"], []), ("my laptop arrived broken", [], ["laptop", "arriv", "brok"]),
        ("手机 broken 了", ["手机", ""], ["brok"]), ("", [], [])])
    def test_content_reads_each_script_only_where_it_is_zh_en(self, text: str, runs: list[str],
                                                              stems: list[str]) -> None:
        """Runs of Chinese (stop characters dropped) and English stems (stop words dropped), each
        read only when the text holds some."""
        assert _content(text) == (runs, stems)

    @pytest.mark.parametrize(("text", "feature"), [("我的手机屏幕碎了", "屏幕"), ("my laptop arrived broken", "brok"),
                                                   ("my laptop arrived broken", "laptop")])
    def test_english_words_are_stemmed_and_chinese_read_in_pairs_zh_en(self, text: str, feature: str) -> None:
        assert feature in features(text)
