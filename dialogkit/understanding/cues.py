"""Conversational cues: yes, no, cancel, correction, help, forget, greeting, any, alternatives;
and, read only when a rule asks, a farewell.

Cues are what the policy needs besides intents and entities. They are kept *precise*: a cue
fires for an utterance that is that act, not for one that merely contains the word.

- ``yes`` / ``no``: the utterance starts with an answer word (after fillers such as 嗯/oh) and
  is nothing else, or the rest is a short tail without digits ("对，就是这个", "yes, go ahead
  and do it"). "好的我要投诉手机碎了" is not a yes; a question ("可以吗？", "ok?") is neither,
  and nor is an answer word put off by its tail ("嗯……让我想想", "ok, wait", "yes, maybe later").
  A Chinese answer word must end where a word can ("不知道", "好像", "不好意思" are not answers;
  "确认创建" is, as 确认/确定/同意 take objects).
- ``correction``: 不对 / 不是…是 / 改成 / 改为 / 换成 / 应该是 / 其实…是 / actually / I meant / change it to /
  not X but Y / (no,) not X, Y ("no, not the terrace, inside please", as "不是露台，是室内") ...
  An offer of another value ("what about X?", "那X呢？") corrects too: it replaces the value held.
  In Chinese a leading 不/不是/不对 followed by the new value is *only* a
  correction ("不对，订单号是67890"), because there the negation is part of the correction phrase;
  in English a leading "no" stays an answer too, so "no, it's 67890" is ``correction`` + ``no``.
  The policy therefore checks ``correction`` before ``no``. "不对" alone is ``no``.
- ``cancel``: a clause made only of cancel words and fillers ("算了", "取消吧", "never mind",
  "please cancel it"). "我想取消订单" (which could be a flow of its own) and "forget what I just
  said" (a ``forget``) are not cancels. A cancel suppresses yes/no ("不用了" is a cancel).
- ``help``, ``forget``, ``greeting``: phrases; bare "help"/"帮助" only in a short utterance,
  greetings only at the start.
- a farewell (``says_farewell``): "再见" / "bye" / "thanks, goodbye" in a short utterance
  (``farewells`` in the lexicon). Few turns are asked: only those nothing else decided.
- ``any`` ("随便", "哪个医生都行", "I don't care", "any doctor") and ``alternatives`` ("还有别的吗",
  "any other options?"): answers about choosing, read by ``choices``. An ``any`` answer is no
  yes or no ("no preference").
"""

from __future__ import annotations

import re
from typing import NamedTuple

from dialogkit.lexicon import alternation, lexicon, lexicon_of_script, spaced_languages, word_pattern, words
from dialogkit.strings.cjk import count_cjk, has_cjk, is_cjk_char
from dialogkit.understanding.choices import asks_alternatives, is_any
from dialogkit.understanding.language import LATIN_WORD

CUE_WINDOW = 300  # cues are about how an utterance starts or what it is as a whole
_ZH = lexicon_of_script("han")

YES_WORDS = words("yes_words")
VERB_ANSWERS = frozenset(words("yes_verbs"))
NO_WORDS = words("no_words")
FILLERS = words("fillers")
CANCEL_WORDS = words("cancel")
CANCEL_FILLERS = (*FILLERS, *words("cancel_fillers"))

_SEPARATORS = " \t\r\n,，。.!！?？;；:：、~～…-—\"'“”‘’()（）[]【】"
_QUESTION_END = re.compile(rf"(?:{alternation(words('question_particles'))}|\?|？)[\s?？!！。.~]*$")


_ZH_CORRECTION = "|".join([alternation([*_ZH.words("correction"), *_ZH.words("change_to")]),
                           *_ZH.words("correction_patterns"), *_ZH.words("offer_patterns")])
_EN_CORRECTION = (
    r"\b(?:actually|i meant|i mean|change (?:it |that |this |(?:the |my )[a-z][a-z -]{0,30}? )?to|make it"
    r"|should be|correction"
    r"|i said|not [^,.;!?]{1,30}? but|that's wrong|thats wrong|wrong|instead|rather"
    r"|switch (?:it |that )?to|move it to|reschedule (?:it )?to"
    r"|^(?:no,?\s+)?not (?!sure|yet|now|really|quite|exactly)(?:the |a |an |my )?[a-z0-9][^,.;!?]{0,30}?,"
    r"\s*(?!thanks|thank|please|sorry|sure|maybe|perhaps)[a-z0-9]+)\b"
    + "".join(f"|{pattern}" for pattern in lexicon("en").words("offer_patterns"))
)
_OTHER_SPACED = [lexicon(code) for code in spaced_languages() if code != "en"]
"""Spaced languages besides English (es ...): their phrase patterns join the English halves."""


def _patterns_of_other_spaced(meaning: str) -> str:
    return "".join(f"|{p}" for lex in _OTHER_SPACED if lex.has(meaning) for p in lex.words(meaning))


_EN_CORRECTION += _patterns_of_other_spaced("correction_patterns")
_VALUE_AFTER_NO = re.compile("|".join([r"\d", *words("value_after_no_patterns")]))   # "no, it's B", "不，是B"
_ZH_HELP = alternation(_ZH.words("help"))
_EN_HELP = (
    r"\b(?:what can you do|what do you do|what can i do|what are my options|how does this work"
    r"|how do i use (?:this|you)|what can you help (?:me )?with)\b"
)
_ZH_FORGET = "|".join(_ZH.words("forget_patterns"))
_EN_FORGET = (
    r"\b(?:(?:forget|ignore|disregard|delete|never mind)\s+(?:what|everything)\s+i\s+(?:just\s+)?"
    r"(?:said|told you|wrote|typed)|scratch that|disregard (?:that|my last message)"
    r"|ignore (?:that|my last message))\b"
)
_EN_FORGET += _patterns_of_other_spaced("forget_patterns")


class _Phrases(NamedTuple):
    """The phrase patterns of the cues, Chinese and English halves alike or English alone."""

    correction: re.Pattern[str]
    help: re.Pattern[str]
    help_words: re.Pattern[str]
    forget: re.Pattern[str]


def _phrases(*, chinese: bool) -> _Phrases:
    def both(zh: str, en: str) -> re.Pattern[str]:
        return re.compile(f"{zh}|{en}" if chinese else en)

    return _Phrases(both(_ZH_CORRECTION, _EN_CORRECTION), both(_ZH_HELP, _EN_HELP),
                    both(alternation(_ZH.words("help_words")), r"\b(?:help|menu)\b"), both(_ZH_FORGET, _EN_FORGET))


_ALL_PHRASES = _phrases(chinese=True)
_ENGLISH_PHRASES = _phrases(chinese=False)
"""ASCII text (most English turns) can hold no Chinese phrase, so it is scanned with the English
halves alone: the Chinese half cost as much again."""
_FAREWELL = word_pattern("farewells")
_GREETING = re.compile(
    rf"^\s*(?:{alternation(_ZH.words('greetings'))}|"
    r"(?:hello|hi|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening))\b)"
)


class _Token(NamedTuple):
    kind: str
    start: int
    end: int


class _Lexicon:
    """Longest-match tokenizer over a small word list, compiled once.

    Latin entries end on a word boundary; Chinese answer words must be followed by a separator,
    a filler or the end, so "不知道", "好像", "不好意思" hold no answer. Verbs that take an object
    (确认/确定/同意: "确认创建") are the exception.
    """

    def __init__(self, entries: dict[str, str]) -> None:
        ordered = sorted(entries, key=len, reverse=True)
        parts = [re.escape(w) + ("" if has_cjk(w) else r"(?![a-z])") for w in ordered]
        self._pattern = re.compile("|".join(parts))
        self._kinds = entries
        self.starts = frozenset(w[0] for w in entries)   # the first token starts with one of these
        # Chinese answer words that must end where a word can, decided once per word, not per turn
        self._bound = frozenset(
            w for w, kind in entries.items() if kind in ("yes", "no") and has_cjk(w) and w not in VERB_ANSWERS
        )
        self._fillers = re.compile("|".join(re.escape(w) for w in FILLERS if has_cjk(w)))

    def tokens(self, text: str) -> tuple[list[_Token], int]:
        """Tokens from the start of ``text`` and the offset where unknown text begins."""
        out: list[_Token] = []
        at = 0
        while True:
            while at < len(text) and text[at] in _SEPARATORS:
                at += 1
            match = self._pattern.match(text, at) if at < len(text) else None   # no word is empty
            if match is None:
                return out, at
            word = match.group()
            end = match.end()
            if word in self._bound and not self._ends_word(text, end):
                return out, at
            out.append(_Token(self._kinds[word], at, end))
            at = end

    def _ends_word(self, text: str, at: int) -> bool:
        return (
            at >= len(text)
            or text[at] in _SEPARATORS
            or bool(self._fillers.match(text, at))
            or not is_cjk_char(text[at])
        )


_ANSWERS = _Lexicon(
    {
        **dict.fromkeys(FILLERS, "filler"),
        **dict.fromkeys(YES_WORDS, "yes"),
        **dict.fromkeys(NO_WORDS, "no"),
    }
)
_CANCELS = _Lexicon(
    {**dict.fromkeys(CANCEL_FILLERS, "filler"), **dict.fromkeys(CANCEL_WORDS, "cancel")}
)


def _is_short(text: str, *, cjk: int = 6, words: int = 4, digits: bool = False) -> bool:
    """Text that adds no content of its own: no digits (unless ``digits``), a few characters or words
    at most."""
    if not digits and any(ch.isdigit() for ch in text):
        return False
    return count_cjk(text) <= cjk and len(LATIN_WORD.findall(text)) <= words


class Answer(NamedTuple):
    """A yes/no answer at the start of an utterance."""

    value: bool
    start: int
    end: int
    correction: bool  # the answer leads into a replacement value
    whole: bool  # nothing but answer words and fillers


def leading_answer(text: str, *, tail_cjk: int = 6, tail_words: int = 4, tail_digits: bool = False) -> Answer | None:
    """The yes/no answer an utterance *is*, or None (see the module docstring for the rules).

    ``text`` is folded; matching is case-insensitive. Used for the ``yes``/``no`` cues and for the
    built-in ``yes_no`` entity type, so a slot and a confirmation read answers the same way.
    """
    lowered = text[:CUE_WINDOW].lower()
    if lowered.lstrip(_SEPARATORS)[:1] not in _ANSWERS.starts:
        return None  # most turns: no answer word or filler can start there, so no token either
    if _QUESTION_END.search(lowered.strip()):
        return None
    tokens, stop = _ANSWERS.tokens(lowered)
    answers = [t for t in tokens if t.kind != "filler"]
    if not answers or len({t.kind for t in answers}) > 1:
        return None  # "yes no" says nothing
    first = answers[0]
    tail = lowered[stop:].strip(_SEPARATORS)
    if first.kind == "no" and tail and _VALUE_AFTER_NO.search(tail):
        return Answer(False, first.start, first.end, correction=True, whole=False)
    # A doubt after a yes puts it off ("ok, wait"); after a no it is the no ("no, it can wait").
    if tail and (not _is_short(tail, cjk=tail_cjk, words=tail_words, digits=tail_digits) or _CONTRAST.search(tail)
                 or (first.kind == "yes" and _HESITATION.search(tail))):
        return None
    return Answer(first.kind == "yes", first.start, first.end, False, not tail)   # correction, whole


def reply_answer(text: str) -> Answer | None:
    """The answer a reply to a yes/no question gives: an answer word first, with more after it than a
    cue allows ("好的，尽快帮我建工单吧", "yes, we need 2"), though never a "but" or a doubt."""
    return leading_answer(text, tail_cjk=12, tail_words=10, tail_digits=True)


_ZH_ASKING = re.compile(alternation(_ZH.words("question_words")))
_EN_ASKING = re.compile(r"^\s*(?:what|when|where|how|why|who|which|whose|is|are|am|was|were|can|could|do|does|did|"
                        r"will|would|should|shall|may|have|has)\b", re.IGNORECASE)


def is_question(text: str) -> bool:
    """Whether an utterance asks something: a question mark, a Chinese question word or particle, or
    an English sentence opening like a question. "it crashes when I open Excel" states; "when is the
    IT desk open" and "服务台几点下班" ask."""
    return "?" in text or "？" in text or bool(_ZH_ASKING.search(text)) or bool(_EN_ASKING.match(text))


# A tail that puts the answer off ("嗯……让我想想", "ok, wait", "yes, maybe later") makes no answer:
# a filler or a word of assent in front of it is hesitation, never a confirmation.
_HESITATION = re.compile(
    rf"{alternation(_ZH.words('hesitations'))}|"
    r"\b(?:let me think|think about|wait|hold on|hang on|not sure|unsure|maybe|perhaps|later|"
    r"give me a (?:sec|second|minute|moment)|one (?:sec|second|moment))\b"
)


# "好的，但是先别寄" / "yes, but not yet": what follows takes the answer back, so there is none.
_CONTRAST = word_pattern("contrast")


_CLAUSE_BREAK = re.compile(r"[,，。.!！?？;；、\n]+")


_CANCEL_HINT = re.compile("|".join(re.escape(w) for w in CANCEL_WORDS))
"""A cancel is a clause holding a cancel word: text holding none (most turns) is no cancel."""


def _is_cancel(lowered: str) -> bool:
    if _CANCEL_HINT.search(lowered) is None:
        return False
    for clause in _CLAUSE_BREAK.split(lowered):
        tokens, stop = _CANCELS.tokens(clause)
        if stop >= len(clause.rstrip(_SEPARATORS)) and any(t.kind == "cancel" for t in tokens):
            return True
    return False


def cancels(text: str) -> bool:
    """Whether ``detect_cues(text)`` holds "cancel", with none of the other cues read (a cancel
    turn's clauses are each asked only this)."""
    lowered = text[:CUE_WINDOW].lower()
    phrases = _ENGLISH_PHRASES if lowered.isascii() else _ALL_PHRASES
    return phrases.forget.search(lowered) is None and _is_cancel(lowered)


def says_farewell(lowered: str) -> bool:
    """Whether a short utterance says goodbye: "再见", "谢谢，拜拜", "bye", "thank you, goodbye"."""
    return _FAREWELL.search(lowered) is not None and _is_short(lowered, cjk=16, words=12)


def detect_cues(text: str, lowered: str | None = None) -> set[str]:
    """The cues of one utterance (``text`` already folded; ``lowered``, ``text.lower()``, when the
    caller has it: a short turn's is the window's too)."""
    if lowered is None or len(text) > CUE_WINDOW:
        lowered = text[:CUE_WINDOW].lower()
    cues: set[str] = set()
    phrases = _ENGLISH_PHRASES if lowered.isascii() else _ALL_PHRASES
    if phrases.forget.search(lowered):
        cues.add("forget")
    elif _is_cancel(lowered):
        cues.add("cancel")
    answer = None if cues else leading_answer(lowered)
    if answer is not None:
        zh_negation = has_cjk(lowered[answer.start : answer.end])
        if answer.correction:
            cues.add("correction")
        if not (answer.correction and zh_negation):
            cues.add("yes" if answer.value else "no")
    if not (answer is not None and answer.whole) and phrases.correction.search(lowered):
        cues.add("correction")
    if phrases.help.search(lowered) or (
        phrases.help_words.search(lowered) and _is_short(lowered, cjk=8, words=5)
    ):
        cues.add("help")
    if _GREETING.search(lowered):
        cues.add("greeting")
    if is_any(lowered):
        cues.add("any")
        cues -= {"yes", "no"}   # "no preference", "不限" leave the choice open: no answer to a yes/no
    if asks_alternatives(lowered):
        cues.add("alternatives")
    return cues
