"""The lexicon: each language's words read by meaning from its YAML file, a bad file refused."""

from __future__ import annotations

import re

import pytest

from dialogkit.errors import DialogkitError
from dialogkit.lexicon import (
    Lexicon,
    LexiconError,
    _checked,
    alternation,
    languages,
    lexicon,
    starts,
    word_pattern,
    words,
)


def test_each_language_has_the_meanings_code_asks_for() -> None:
    for language in languages():
        lx = lexicon(language)
        assert lx.words("yes_words") and lx.words("no_words") and lx.words("cancel")
        assert lx.values("numerals")


def test_numerals_and_ordinals_are_values() -> None:
    assert lexicon("zh").values("numerals")["三"] == 3
    assert lexicon("zh").values("position_words")["后者"] == -1
    assert lexicon("en").values("numerals")["twelve"] == 12
    assert lexicon("en").values("ordinals")["second"] == 1


def test_words_of_every_language_merge_in_order() -> None:
    merged = words("cancel")
    assert merged[: len(lexicon("zh").words("cancel"))] == lexicon("zh").words("cancel")
    assert "算了" in merged and "never mind" in merged
    assert words("cancel", "en") == lexicon("en").words("cancel")


def test_asking_for_a_meaning_the_file_lacks_names_it() -> None:
    with pytest.raises(LexiconError, match="no words for 'nonsense'"):
        lexicon("zh").words("nonsense")
    with pytest.raises(LexiconError, match="maps words to numbers"):
        lexicon("en").values("cancel")


def test_an_unknown_language_is_refused_with_the_known_ones() -> None:
    with pytest.raises(DialogkitError, match="no lexicon for language 'xx'; there are: zh, en, es"):
        lexicon("xx")


@pytest.mark.parametrize(("data", "message"), [
    ([1, 2], "must map meanings to words"),
    ({True: ["是"]}, "must be a name"),             # a bare `yes:` key in YAML
    ({"cancel": ["算了", 3]}, "holds 3"),
    ({"numerals": {"一": True}}, "holds '一: True'"),
    ({"cancel": "算了"}, "holds \"'算了'\""),
])
def test_a_malformed_file_is_refused_naming_the_entry(data: object, message: str) -> None:
    with pytest.raises(LexiconError, match=message):
        _checked("zh", data)


def test_alternation_puts_the_longest_word_first() -> None:
    assert alternation(["不", "不要了", "不要"]) == "不要了|不要|不"
    assert alternation(["a.b"]) == r"a\.b"


def test_a_lexicon_is_read_once() -> None:
    assert lexicon("zh") is lexicon("zh")
    assert isinstance(lexicon("en"), Lexicon)


@pytest.mark.parametrize(("text", "found"), [
    ("故宫周边有什么餐馆？", "周边"),
    ("what sights are near the Golden Duck?", "near"),
    ("What sights are NEAR it?", "NEAR"),
    ("¿qué museos hay cerca del hotel Sol?", "cerca del"),
    ("the nearly empty one", None),             # a word standing alone, not the start of another
])
def test_a_meanings_words_are_one_pattern_of_whole_words(text: str, found: str | None) -> None:
    near = [word_pattern("near_after"), word_pattern("near_before")]
    said = [m.group() for pattern in near for m in [pattern.search(text)] if m is not None]
    assert said == ([found] if found else [])


def test_a_meaning_no_language_fills_matches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty alternation would match the empty string everywhere."""
    import dialogkit.lexicon as lexicon_module

    monkeypatch.setattr(lexicon_module, "words", lambda meaning, language=None: ())
    assert word_pattern("near_after").search("周边 near") is None


@pytest.mark.parametrize(("text", "found"), [
    ("故宫周边有什么", ["周边"]), ("Near it, NEAR the hotel", ["Near", "NEAR"]), ("cerca del hotel", ["cerca"]),
])
def test_a_lookahead_on_first_letters_keeps_every_match(text: str, found: list[str]) -> None:
    """``starts`` only says where a word may start: case-blind as the pattern it leads, it drops no match."""
    said = ["near", "周边", "cerca"]
    pattern = re.compile(starts(said) + f"(?:{alternation(said)})", re.IGNORECASE)
    assert [m.group() for m in pattern.finditer(text)] == found


def test_a_lookahead_with_an_empty_word_is_none() -> None:
    """An empty word matches at every position, so no position can be ruled out."""
    assert starts(["", "near"]) == "" and starts([]) == ""
