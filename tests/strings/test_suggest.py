"""The one did-you-mean: a close choice for a typo, none for a stranger, case ignored."""

from __future__ import annotations

import pytest

from dialogkit.strings.suggest import did_you_mean

STATES = ("IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION")


class TestDidYouMean:
    @pytest.mark.parametrize(("word", "choices", "expected"), [
        ("promt", ["prompt", "slots"], "prompt"),
        ("exampels", ["examples", "keywords"], "examples"),
        ("summarise", ["summarize", "forget"], "summarize"),
        ("订单编", ["订单号", "商品"], "订单号"),
        ("手机号吗", ["手机号码", "邮箱"], "手机号码"),
    ], ids=["en-key", "en-transposed", "en-spelling", "zh-missing-char", "zh-wrong-char"])
    def test_a_typo_gets_the_closest_choice(self, word: str, choices: list[str], expected: str) -> None:
        """English and Chinese names are matched alike, character by character."""
        assert did_you_mean(word, choices) == expected

    @pytest.mark.parametrize(("word", "choices"), [("weather", ["ask", "say"]), ("天气", ["订单号", "商品"])],
                             ids=["en", "zh"])
    def test_nothing_close_gives_none(self, word: str, choices: list[str]) -> None:
        """A name unlike every choice is not a typo: no suggestion rather than a wild guess."""
        assert did_you_mean(word, choices) is None

    @pytest.mark.parametrize(("word", "expected"), [("idle", "IDLE"), ("param_colect", "PARAM_COLLECT"),
                                                    ("Date", "date")])
    def test_case_is_ignored_and_the_choice_keeps_its_spelling(self, word: str, expected: str) -> None:
        """'idle' means IDLE; the suggestion is written as the choice is."""
        assert did_you_mean(word, [*STATES, "date"]) == expected

    def test_no_choices(self) -> None:
        assert did_you_mean("anything", []) is None

    def test_any_iterable_of_choices(self) -> None:
        """A dict's keys or a generator serve as well as a list."""
        assert did_you_mean("flws", {"flows": 1, "bot": 2}) == "flows"
        assert did_you_mean("flws", (name for name in ["flows"])) == "flows"
