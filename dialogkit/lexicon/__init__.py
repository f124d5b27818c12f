"""The words of each language, read from ``lexicon/<language>.yaml``: language knowledge as data.

Code asks the lexicon by meaning — ``lexicon("zh").words("cancel")``, ``words("yes_words")``, ``.values("numerals")`` —
never by spelling a word, so supporting a language, or a better word for one, is an edit of a
YAML file. Each file maps a meaning to one of three shapes:

- a list of words or phrases (``words``): yes, no, cancel, pronouns, joiners ...;
- words mapped to numbers (``values``): numerals, ordinals, position words;
- words mapped to words (``spellings``): what a word is short for (廿 -> 二十), what a pronoun
  points at (它 -> thing);
- names mapped to lists of words (``groups``): the nouns of each common entity type.

A meaning whose entries are regular-expression fragments rather than plain words ends in
``_patterns`` (a correction phrase "不是…是" has a gap in it); code joins them into its regexes at
import time, once. The files are read once per process and cached; a file that breaks the
shapes is refused with the meaning and the entry named, so a typo never reaches a turn.

A bot file may add words of its own under ``lexicon:`` (``BotLexicon`` in the schema): today the
nouns that name a slot (包裹 / parcel for a tracking number).

The languages are the files present: adding ``es.yaml`` adds Spanish. Each file's ``writing:``
meaning says how the language is written (``Writing``): its script, whether words stand apart,
its list separator and colon, whether ``language: auto`` picks it. Code that renders a list or
decides where a space goes asks it instead of testing for one language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

import yaml

from dialogkit.errors import DialogkitError

__all__ = ["Lexicon", "LexiconError", "Writing", "alternation", "auto_languages", "languages", "lexicon",
           "lexicon_of_script", "spaced_languages", "starts", "word_pattern", "words", "writing", "written_in"]

_FIRST = ("zh", "en")
"""The two founding languages lead the merge order (``words(meaning)``); others follow by code."""


def _present() -> tuple[str, ...]:
    files = {entry.name.removesuffix(".yaml") for entry in resources.files(__package__).iterdir()
             if entry.name.endswith(".yaml")}
    return tuple(sorted(files, key=lambda code: (code not in _FIRST, _FIRST.index(code) if code in _FIRST else 0,
                                                 code)))


LANGUAGES: tuple[str, ...] = _present()
"""The languages with a lexicon file, in the order their words are merged (``words(meaning)``)."""


class LexiconError(DialogkitError):
    """A lexicon file that does not have the shapes this module reads."""


@dataclass(frozen=True, slots=True)
class Writing:
    """How a language is written, from its file's ``writing:`` meaning: what rendering and the
    choice of a turn's language need to know instead of testing for a language code."""

    script: str                 # "han" or "latin": the letters a turn in this language is written in
    spaced: bool                # words stand apart ("the order") or run together (订单)
    list_separator: str         # between the items of a list: "、" / ", "
    last_joiner: str            # before a list's last item: "和" / " and "
    or_joiner: str              # before the last of alternatives: "还是" / " or "
    colon: str                  # "：" / ": "
    comma: str                  # between the details of one thing: "，" / ", "
    clause_separator: str       # between whole clauses (a summary's tasks): "；" / "; "
    sentence_end: str           # the stop a sentence gets: "。" / "."
    capitals: bool              # a sentence starts with a capital
    auto: bool                  # ``language: auto`` picks this language for a turn in its script

    _FIELDS: ClassVar[tuple[str, ...]] = ("script", "spaced", "list_separator", "last_joiner", "or_joiner", "colon",
                                          "comma", "clause_separator", "sentence_end", "capitals", "auto")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's words by meaning (read-only; get one with :func:`lexicon`)."""

    language: str
    entries: Mapping[str, Any]

    def words(self, meaning: str) -> tuple[str, ...]:
        """The words with this meaning, in the file's order (a word map gives its words)."""
        entry = self._entry(meaning)
        return tuple(entry)

    def values(self, meaning: str) -> dict[str, int]:
        """Words mapped to numbers: a numeral's value, an ordinal's 0-based position."""
        entry = self._entry(meaning)
        if not isinstance(entry, dict) or not all(isinstance(v, int) for v in entry.values()):
            raise LexiconError(f"lexicon {self.language}: {meaning!r} maps words to numbers")
        return dict(entry)

    def spellings(self, meaning: str) -> dict[str, str]:
        """Words mapped to the words they stand for."""
        entry = self._entry(meaning)
        if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
            raise LexiconError(f"lexicon {self.language}: {meaning!r} maps words to words")
        return dict(entry)

    def groups(self, meaning: str) -> dict[str, tuple[str, ...]]:
        """Names mapped to lists of words (order -> 订单, 单子)."""
        entry = self._entry(meaning)
        if not isinstance(entry, dict) or not all(isinstance(v, list) for v in entry.values()):
            raise LexiconError(f"lexicon {self.language}: {meaning!r} maps names to lists of words")
        return {name: tuple(group) for name, group in entry.items()}

    def chars(self, meaning: str) -> str:
        """A meaning made of single characters (classifiers, counters) as one string."""
        return "".join(self.words(meaning))

    @property
    def writing(self) -> Writing:
        return _writing(self.language, self._entry("writing"))

    def has(self, meaning: str) -> bool:
        return meaning in self.entries

    def _entry(self, meaning: str) -> Any:
        try:
            return self.entries[meaning]
        except KeyError:
            raise LexiconError(f"lexicon {self.language} has no words for {meaning!r}") from None


@functools.cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of ``language`` (read once per process)."""
    if language not in LANGUAGES:
        raise LexiconError(f"no lexicon for language {language!r}; there are: {', '.join(LANGUAGES)} "
                           "(a language is added with dialogkit/lexicon/<code>.yaml)")
    text = resources.files(__package__).joinpath(f"{language}.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(text, Loader=loader)   # a safe loader, the C one when built
    return Lexicon(language, _checked(language, data))


def languages() -> tuple[str, ...]:
    """Every language with a lexicon file."""
    return LANGUAGES


@functools.cache
def writing(language: str) -> Writing:
    """How ``language`` is written (a language without a lexicon is written as English is)."""
    return lexicon(language if language in LANGUAGES else "en").writing


@functools.cache
def auto_languages() -> tuple[str, ...]:
    """The languages ``language: auto`` chooses between, turn by turn, by the script a turn is in."""
    return tuple(lang for lang in LANGUAGES if lexicon(lang).writing.auto)


@functools.cache
def spaced_languages() -> tuple[str, ...]:
    """The languages whose words stand apart: their words are read by the same word-bounded rules."""
    return tuple(lang for lang in LANGUAGES if lexicon(lang).writing.spaced)


@functools.cache
def written_in(script: str) -> tuple[str, ...]:
    """The languages written in ``script`` ("han", "latin"): code that reads a script's words
    (Han numerals, measure words) asks by the script instead of naming a language."""
    return tuple(lang for lang in LANGUAGES if lexicon(lang).writing.script == script)


def lexicon_of_script(script: str) -> Lexicon:
    """The lexicon of the (first) language written in ``script``: the words a reader of that
    script's text runs on, e.g. the Han numerals and measure words."""
    found = written_in(script)
    if not found:
        raise LexiconError(f"no lexicon is written in the script {script!r}; the scripts are: "
                           + ", ".join(sorted({lexicon(lang).writing.script for lang in LANGUAGES})))
    return lexicon(found[0])


def _writing(language: str, entry: Any) -> Writing:
    if not isinstance(entry, dict) or set(entry) != set(Writing._FIELDS):
        raise LexiconError(f"lexicon {language}: 'writing' gives exactly {', '.join(Writing._FIELDS)}")
    flags = ("spaced", "capitals", "auto")
    bad = next((k for k, v in entry.items() if not isinstance(v, bool if k in flags else str)), None)
    if bad is not None:
        raise LexiconError(f"lexicon {language}: writing.{bad} must be "
                           + ("true or false" if bad in flags else "a string"))
    return Writing(**entry)


def words(meaning: str, language: str | None = None) -> tuple[str, ...]:
    """The words of ``meaning`` in ``language``, or in every language (their order, no repeats)."""
    if language is not None:
        return lexicon(language).words(meaning)
    merged = (w for lang in LANGUAGES if lexicon(lang).has(meaning) for w in lexicon(lang).words(meaning))
    return tuple(dict.fromkeys(merged))


def alternation(items: Iterable[str]) -> str:
    """Words as one regex alternation, escaped, the longest first so the longest match wins."""
    return "|".join(re.escape(w) for w in sorted(dict.fromkeys(items), key=len, reverse=True))


def starts(items: Iterable[str]) -> str:
    """A lookahead on the first characters of ``items``, to put before a pattern whose every match
    starts with one of them (an alternation in a group: before a bare one it guards the first word
    alone). The regex engine finds no literal start in a case-blind alternation, nor behind a
    lookbehind, so it tries each word at each position; the lookahead makes a position no word
    starts at cost one character test. "" when an item is empty: an empty word matches anywhere."""
    said = list(items)
    if not said or not all(said):
        return ""
    return "(?=[" + "".join(re.escape(c) for c in sorted({w[0] for w in said})) + "])"


def word_pattern(meaning: str) -> re.Pattern[str]:
    """The words of ``meaning`` in every language as one case-blind pattern, each standing alone
    where letters would join it ("near", not the start of "nearly"; Chinese words anywhere). A
    meaning no language fills gives a pattern that matches nothing, never the empty string."""
    said = words(meaning)
    if not said:
        return re.compile(r"(?!)")
    return re.compile(rf"{starts(said)}(?<![a-z])(?:{alternation(said)})(?![a-z])", re.IGNORECASE)


def _checked(language: str, data: Any) -> dict[str, Any]:
    """The file's meanings, each a list of strings or a map of strings to numbers or strings."""
    if not isinstance(data, dict):
        raise LexiconError(f"lexicon {language}: the file must map meanings to words")
    for meaning, entry in data.items():
        if not isinstance(meaning, str):   # YAML reads a bare yes/no/on/off key as a boolean
            raise LexiconError(f"lexicon {language}: the meaning {meaning!r} must be a name (quote it)")
        if meaning == "writing":
            _writing(language, entry)
            continue
        if isinstance(entry, list):
            bad = next((w for w in entry if not isinstance(w, str) or not w), None)
        elif isinstance(entry, dict):
            bad = next((f"{k}: {v}" for k, v in entry.items() if not isinstance(k, str) or not _entry_value(v)), None)
        else:
            bad = repr(entry)
        if bad is not None:
            raise LexiconError(f"lexicon {language}: {meaning!r} holds {bad!r}; a meaning holds words, "
                               "or words mapped to numbers, words or lists of words")
    return data


def _entry_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(isinstance(w, str) and w for w in value)
    return isinstance(value, int | str) and not isinstance(value, bool)
