"""Which language a turn is in, and the text normalisation every rule shares.

Chinese and English are equals: the language of a turn only decides which prompt text a reply
uses, never which rules run. Every rule sees the same *folded* text, which is built so that
character offsets stay valid for the original: mentions report spans into what the user wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dialogkit.lexicon import auto_languages, languages, writing
from dialogkit.strings.cjk import has_cjk
from dialogkit.strings.limits import MAX_UNDERSTOOD_CHARS
from dialogkit.strings.width import WIDTH_FOLD

LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:['\u2019][A-Za-z]+)?")

MIN_LATIN_WORDS = 3

_LATIN_LETTER = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]")
"""Every character an ASCII letter of a case-blind pattern matches: the ASCII letters and the four
that ``re.I`` folds to one (İ, dotless ı, long ſ, the Kelvin sign K)."""


_RE_I_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def case_blind(word: str) -> str:
    """``word`` lower-cased the way a case-blind pattern read it: "ſunday" matched the weekday
    pattern as "sunday" did, so a table keyed by ASCII words must find it as "sunday" too."""
    return word.translate(_RE_I_FOLDS).lower()


def may_hold_latin(text: str) -> bool:
    """Whether a case-blind pattern that needs an ASCII letter could match in ``text``: a scan in C
    that lets most Chinese turns skip the Latin half of an alternation."""
    return _LATIN_LETTER.search(text) is not None


class LatinSplit:
    """An alternation of words (aliases, keywords), and the part of it that text holding no Latin
    letter (``may_hold_latin``: most Chinese turns) can match: the words holding a Han character,
    when every other word needs an ASCII letter; else the whole. Scanning a Chinese turn without
    the Latin half costs a third as much. ``build`` compiles a list of words (None: no pattern)."""

    def __init__(self, words: list[str], build: Callable[[list[str]], re.Pattern[str] | None]) -> None:
        self.full = build(words)
        if all(any(ch.isascii() and ch.isalpha() for ch in w) for w in words if not has_cjk(w)):
            self.unlettered = build([w for w in words if has_cjk(w)])
        else:
            self.unlettered = self.full

    def pattern(self, latin: bool) -> re.Pattern[str] | None:
        """The pattern for text that may hold a Latin letter (``latin``) or holds none."""
        return self.full if latin else self.unlettered


def _fold_table() -> dict[int, int]:
    """Full-width ASCII -> ASCII, ideographic space and control characters -> space.

    Every mapping is one code point to one code point, so offsets into the folded text are
    offsets into the original. "１２３４５" is an order number and "１５：３０" a time.
    """
    table = dict(WIDTH_FOLD)
    for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]:
        table[code] = 0x20
    return table


_FOLD = _fold_table()


def fold(text: str) -> str:
    """Length-preserving normalisation: capped at ``MAX_UNDERSTOOD_CHARS``, full-width folded,
    controls blanked."""
    return text[:MAX_UNDERSTOOD_CHARS].translate(_FOLD)


def fold_whole(text: str) -> str:
    """``fold`` without the cap: for the bot's own words (a catalogue's aliases), read once."""
    return text.translate(_FOLD)


# Text typed "in no language" tells nothing about the language: an e-mail address (its local
# part and its domain each ASCII or each not: "zhang.wei@example.com", "张伟@例子.中国") or a URL
# hides its Han characters and its Latin words alike; a token holding a digit ("CA981", "A10023",
# "3pm") is no Latin word.
# A local part is tried only where its run starts (the lookbehinds), which keeps a long run of
# letters with no "@" linear instead of quadratic; the matches are the same.
_EMAIL = (r"(?:(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+|(?<![^\W\d_A-Za-z])[^\W\d_A-Za-z]+)"
          r"@(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|[^\W_]+(?:\.[^\W_]+)+)")
_URL = r"(?:https?://|www\.)[^\s，。！？、]+"
_ADDRESS = re.compile(f"{_URL}|{_EMAIL}", re.IGNORECASE)
_LETTER = "A-Za-z\u00c0-\u024f"
_WORD = re.compile(rf"[{_LETTER}](?<![0-9{_LETTER}].)[{_LETTER}]*(?:['\u2019][A-Za-z]+)?(?![0-9{_LETTER}])")
"""A Latin-script word that is no part of a code: "order" yes, the "CA" of "CA981" no. Its first
letter comes before the check that nothing of a word or code precedes it (the look-behind spans
that letter), so the regex engine scans in C for a letter rather than trying every position."""


def detect_language(text: str, current: str) -> str:
    """The language of one user turn (the bot file's ``language: auto``, docs/bot-file.md).

    Any Han character makes the turn zh; three or more Latin-script words and no Han make it the
    session's language when that is written in Latin letters (a Spanish bot's turn stays es), else
    en; anything else ("200", "ok", "yes", an emoji) is too short to tell and keeps ``current``.
    The languages come from the lexicon: the one ``auto`` picks for each script.
    E-mail addresses, URLs and tokens holding a digit count for neither language: "我的邮箱是
    zhang.wei@example.com" is zh, "my email is 张伟@例子.中国" en, and "CA981 MU5101 ABC123"
    keeps the session's language.
    """
    sample = text[:MAX_UNDERSTOOD_CHARS]
    if "@" in sample or "://" in sample or "www." in sample or "WWW." in sample:   # first looks, in C
        sample = _ADDRESS.sub(" ", sample)
    if has_cjk(sample):
        return _AUTO_BY_SCRIPT["han"]
    for count, _ in enumerate(_WORD.finditer(sample), start=1):
        if count >= MIN_LATIN_WORDS:   # stop early: a 1 MB message of words needs only three
            return current if current in _LATIN_LANGUAGES else _AUTO_BY_SCRIPT["latin"]
    return current


_AUTO_BY_SCRIPT = {writing(code).script: code for code in reversed(auto_languages())}
"""The language ``auto`` picks for a turn in each script (the first file naming the script)."""
_LATIN_LANGUAGES = frozenset(code for code in languages() if writing(code).script == "latin")
