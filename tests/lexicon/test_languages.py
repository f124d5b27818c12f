"""The languages are the lexicon files present: a third one (es) is added with a file, and each
file says how its language is written, which rendering and the choice of a turn's language read."""

from __future__ import annotations

import pytest

from dialogkit.lexicon import (
    LexiconError,
    _checked,
    auto_languages,
    languages,
    lexicon,
    lexicon_of_script,
    spaced_languages,
    writing,
    written_in,
)


def test_the_languages_are_the_files_present_zh_and_en_first() -> None:
    assert languages() == ("zh", "en", "es")


def test_auto_chooses_between_zh_and_en_only() -> None:
    assert auto_languages() == ("zh", "en")
    assert spaced_languages() == ("en", "es")


def test_code_reading_a_script_asks_for_the_languages_written_in_it() -> None:
    assert written_in("han") == ("zh",)
    assert written_in("latin") == ("en", "es")
    assert lexicon_of_script("han") is lexicon("zh")
    assert lexicon_of_script("latin") is lexicon("en")


def test_a_script_no_lexicon_is_written_in_is_refused_naming_the_scripts() -> None:
    assert written_in("cyrillic") == ()
    with pytest.raises(LexiconError, match=r"no lexicon is written in the script 'cyrillic'; the scripts are: han, latin"):
        lexicon_of_script("cyrillic")


SPACED_MEANINGS = (
    "writing", "numerals", "ordinals", "yes_words", "no_words", "fillers", "cancel", "cancel_fillers",
    "pronouns", "possessives", "ordinal_articles", "demonstratives", "plural_determiners", "definite_determiners",
    "demonstrative_next", "ordinal_blocked_nouns", "dummy_it_verbs", "noun_determiners", "clause_verbs",
    "assent_after", "count_words", "kind_nouns", "function_words", "type_nouns", "label_suffixes",
    "value_heads", "value_head_markers", "day_periods", "unsaid_fillers",
    "user_yes", "user_no", "user_cancel", "user_forget", "user_corrections", "user_ordinals", "user_pronoun_questions",
)
"""Meanings read from every language whose words stand apart (the reference tables merge them,
the simulator speaks them): each such file must give them all."""


@pytest.mark.parametrize("language", spaced_languages())
def test_every_spaced_language_gives_the_meanings_read_from_all_of_them(language: str) -> None:
    missing = [m for m in SPACED_MEANINGS if not lexicon(language).has(m)]
    assert not missing, f"{language}.yaml lacks {missing}"


@pytest.mark.parametrize(("language", "separator", "last", "spaced"), [
    ("zh", "、", "和", False), ("en", ", ", " and ", True), ("es", ", ", " y ", True),
])
def test_each_file_says_how_its_language_is_written(language: str, separator: str, last: str, spaced: bool) -> None:
    written = writing(language)
    assert (written.list_separator, written.last_joiner, written.spaced) == (separator, last, spaced)


def test_a_language_without_a_file_is_written_as_english() -> None:
    assert writing("fr") == writing("en")


def test_the_error_for_a_missing_file_says_how_to_add_one() -> None:
    with pytest.raises(LexiconError, match=r"there are: zh, en, es \(a language is added with dialogkit/lexicon/"):
        lexicon("fr")


@pytest.mark.parametrize(("entry", "message"), [
    ({"script": "latin"}, "'writing' gives exactly script, spaced"),
    ({"script": "latin", "spaced": "yes", "list_separator": ", ", "last_joiner": " and ", "or_joiner": " or ",
      "colon": ": ", "comma": ", ", "clause_separator": "; ", "sentence_end": ".", "capitals": True, "auto": False}, "writing.spaced must be true or false"),
])
def test_a_malformed_writing_is_refused(entry: dict[str, object], message: str) -> None:
    with pytest.raises(LexiconError, match=message):
        _checked("xx", {"writing": entry})
