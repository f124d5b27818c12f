"""Answers about choosing: "any will do" and "what else is there?".

- ``any``: the utterance *is* an answer that leaves the choice to the bot: "随便", "都可以",
  "无所谓", "哪个都行", "什么时间都行", "任何医生", "随便哪个医生", "医生随便", "any", "any
  doctor", "anything", "whichever", "I don't care", "doesn't matter", "no preference", "up to
  you". In answer to a slot question it means the value the slot's entity type names in
  ``any:`` (docs/bot-file.md). The whole utterance must be that answer, fillers aside, so the
  word inside a request or a question ("do you have any appointments?", "anyway", "many",
  "company", "任何问题都可以问吗？") is no such answer, nor is 随便 doing something ("随便聊聊").
- ``alternatives``: the user asks for other choices than those offered: "还有别的吗", "有没有
  别的", "其他的呢", "换一个", "anything else?", "any other options?", "what else do you have",
  "show me more". Not "没有别的了" or "nothing else", which end a list; not "what else can you
  do", which asks for help.
- ``declines``: the utterance gives nothing: "没有", "不知道", "No.", "nope", "I don't know", "I
  don't have one". Where the slot asked takes an ``any`` value, the user has no preference to give.
- ``named_any_pattern``: no preference for a thing the words name, wherever it stands in the
  utterance: "I don't care about the price", "the area doesn't matter", "no preference for the
  cuisine", "any price is fine", "价格无所谓", "区域都行", "我不在乎价格", "什么菜系都可以". The
  caller gives the names (a bot's words for its slots); the pattern says which one was named.

The text given is folded and lower-cased.
"""

from __future__ import annotations

import re
from functools import cache

from dialogkit.lexicon import alternation, languages, lexicon, word_pattern, words
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.language import may_hold_latin


def _whole_answers(codes: tuple[str, ...], meaning: str = "any_answer") -> str:
    """Each language's answer of ``meaning`` (by default one that leaves the choice to the bot),
    whole: lead, answer, tail (``{meaning}_tail_patterns``: "no, thank you" declines an offer)."""
    parts: list[str] = []
    for language in codes:
        lex = lexicon(language)
        if not lex.has(f"{meaning}_patterns"):
            continue
        lead, tail = (("".join(lex.words(m)) if lex.has(m) else "")
                      for m in ("any_answer_lead_patterns", f"{meaning}_tail_patterns"))
        parts.append(f"^{lead}(?:{'|'.join(lex.words(f'{meaning}_patterns'))}){tail}$")
    return "|".join(parts) or "(?!)"


def _answering(han: bool) -> tuple[str, ...]:
    """The languages with any-answers written in Han characters (or, ``han=False``, without them)."""
    return tuple(lang for lang in languages() if lexicon(lang).has("any_answer_patterns")
                 and any(has_cjk(p) for p in lexicon(lang).words("any_answer_patterns")) == han)


@cache
def _any() -> re.Pattern[str]:
    """The any-answer pattern, compiled on first use: the largest here (3 ms), needed only for
    short answers, so ``dialogkit validate`` and other callers that never see one skip it."""
    return re.compile(_whole_answers(_answering(True) + _answering(False)))


@cache
def _one_language(ascii_text: bool) -> re.Pattern[str]:
    """The answers of languages written without Han characters, for ASCII text (every Chinese
    answer holds a Han character), or those with them, for text without a Latin letter."""
    return re.compile(_whole_answers(_answering(not ascii_text)))


_ALTERNATIVES_HINT = re.compile(alternation(words("alternatives_hint")))
"""Every phrase of ``_ALTERNATIVES`` and ``_ANOTHER`` holds one of these."""
_ANOTHER = re.compile("|".join(words("another_one_patterns")) or "(?!)")
"""Alone, "换一个" asks for another choice; in "我想换一个键盘" it is an exchange."""
_NEGATION = re.compile("|".join(words("none_wanted_patterns")) or "(?!)")
_END = " \t,，。.!！~～…"
_ANY_LENGTH = 50        # an any-answer is short; a long text is something else

_ALTERNATIVES = re.compile("|".join(words("alternatives_patterns")) or "(?!)")

ANY_WORDS = words("any_words")
"""The words "any" is said with. Before a noun they determine it ("is there any cheap restaurant",
"任何餐厅"); a bot's no-preference value may be spelled with them alone, or with a noun after them
("any cuisine" names the cuisine)."""


_WORD_NEXT = re.compile(r"(?<!\s)\s*[^\W\d_]")   # a word follows (letters or Han characters); (?<!\s): a
# run of spaces is scanned from its start only, never once from each of its positions


def is_any_word(text: str) -> bool:
    """Whether ``text`` is just one of ``ANY_WORDS``."""
    return text.strip().lower() in ANY_WORDS


def determines(said: str, text: str, end: int) -> bool:
    """Whether ``said``, ending at ``end`` of ``text``, is an any-word with a word after it: "any" in
    "is there any cheap restaurant" is no value, though a bot spells its no-preference value "any".
    Said alone, or last ("in any"), it is one."""
    return is_any_word(said) and _WORD_NEXT.match(text, end) is not None


def named_any_pattern(alternation: str) -> re.Pattern[str]:
    """No preference for one of the things ``alternation`` names (a regex alternation of lower-cased
    names); ``named(match)`` is the name said. Searched anywhere in the folded, lower-cased text."""
    parts: list[str] = []
    for language in languages():
        lex = lexicon(language)
        if not lex.has("named_any_patterns"):
            continue
        thing = "".join(lex.words("named_thing_patterns")) if lex.has("named_thing_patterns") else "{names}"
        for part in lex.words("named_any_patterns"):
            said = thing.replace("{names}", f"(?P<n{len(parts)}>{alternation})")
            parts.append(part.replace("{thing}", said))
    return re.compile("|".join(f"(?:{part})" for part in parts) or "(?!)")


@cache
def named_list_gap() -> re.Pattern[str]:
    """What stands between two names of one list ("the rent or the area", "租金和区域"): the end of
    one thing, a comma or a joiner, the start of the next. Matched against the whole gap."""
    parts: list[str] = []
    for language in languages():
        lex = lexicon(language)
        joiners = [word for meaning in ("value_joiners", "alternative_joiners") if lex.has(meaning)
                   for word in lex.words(meaning)]
        if not joiners:
            continue
        thing = "".join(lex.words("named_thing_patterns")) if lex.has("named_thing_patterns") else "{names}"
        before, _, after = thing.partition("{names}")
        joined = alternation(joiners)
        parts.append(rf"{after}\s*(?:[,，、]\s*(?:(?:{joined})\s*)?|(?:{joined})\s*){before}")
    return re.compile("|".join(f"(?:{part})" for part in parts) or "(?!)")


def named(match: re.Match[str]) -> str:
    """The name a ``named_any_pattern`` match said."""
    return next(said for key, said in match.groupdict().items() if said and key.startswith("n"))


_SENTENCE_END = re.compile(r"[.!;。！；]\s*|(?<!\s)\s+(?=as\s+long\s+as\b)")
_CONTRAST = word_pattern("contrast").pattern      # "dont care but I'd like ...": a clause ends before it
_CLAUSE_END = re.compile(rf"[,，]\s*|(?<!\s)\s*(?={_CONTRAST})", re.IGNORECASE)
"""Where an answer's first sentence or clause ends: "no, I don't care. Just pick one", "随便，你推荐一个"."""
_DIGIT = re.compile(r"\d")
"""A later clause holding a number ("不对，订单号是 12345") gives something: no answer that leaves a choice."""
_LEADING_CONTRAST = re.compile(rf"^\s*(?:{_CONTRAST})\s*", re.IGNORECASE)
"""The contrast word a later clause starts with ("but I don't mind")."""
_BREAK = re.compile(rf"[.!;。！；,，]|{_CONTRAST}", re.IGNORECASE)
"""Every sentence or clause end above holds one of these, or "as" ("as long as"): a cheap first look."""
_LONGEST_TURN = 300
_QUESTION_ENDS = ("?", "？", *words("question_endings"))


def is_any(lowered: str) -> bool:
    """True when the utterance, or its first clause, or a later sentence or clause holding no
    number, leaves the choice to the bot (see the module docstring): "I don't care, but I'd like it
    cheap" and "a studio would be great. Any is fine." leave the thing asked about open."""
    if len(lowered) > _LONGEST_TURN:
        return False
    whole = lowered.strip(_END)
    if "as" not in whole and _BREAK.search(whole) is None:
        return _is_any_answer(whole)    # one clause (most turns): read once, with no split looked for
    sentences = _SENTENCE_END.split(whole)
    sentence = sentences[0]
    clauses = _CLAUSE_END.split(sentence)
    clause = clauses[0]
    if len(clause.strip(_END)) <= _ANY_LENGTH and (
            _is_any_answer(clause) or (sentence != clause and _is_any_answer(sentence))
            or (whole != sentence and len(lowered) <= 2 * _ANY_LENGTH and _is_any_answer(whole))):
        return True     # each part is read stripped, so the whole text is read as ``whole``
    # "要开间。随便吧" / "a studio, but I don't mind": a later sentence or clause that is one answers too
    later = list(clauses[1:])
    for rest in sentences[1:]:
        parts = _CLAUSE_END.split(rest)
        later.extend(parts if len(parts) == 1 else (rest, *parts))
    return any(_is_any_answer(_LEADING_CONTRAST.sub("", part)) for part in later
               if part and not _DIGIT.search(part))


def _is_any_answer(lowered: str) -> bool:
    if len(lowered) > 2 * _ANY_LENGTH:
        return False
    text = lowered.strip(_END)
    if not text or len(text) > _ANY_LENGTH or text.endswith(_QUESTION_ENDS):
        return False
    if text.isascii():
        return _one_language(True).match(text) is not None
    pattern = _any() if may_hold_latin(text) else _one_language(False)
    return pattern.match(text) is not None


@cache
def _declined() -> re.Pattern[str]:
    return re.compile(_whole_answers(languages(), "declined_answer"))


def declines(lowered: str) -> bool:
    """True when the utterance gives nothing: "没有", "不知道", "No.", "I don't know", "I don't have
    one", in each of its sentences ("No. I don't have a preferred one") but those that ask ("No.
    What is their address?"). Asked for a slot that takes a no-preference value, the user has none
    to give."""
    if len(lowered) > _LONGEST_TURN:
        return False
    first, *rest = _SENTENCE_END.split(lowered.strip(_END))
    if not _declined_answer(first):
        return False
    return all(_declined_answer(said) or said.rstrip().endswith(_QUESTION_ENDS) for said in rest if said)


def _declined_answer(said: str) -> bool:
    text = said.strip(_END)
    if not text or len(text) > _ANY_LENGTH or text.endswith(_QUESTION_ENDS):
        return False
    return _declined().match(text) is not None


def asks_alternatives(lowered: str) -> bool:
    """True when the utterance asks for other choices than those offered; a negation before the
    words ("I don't need anything else", "不用换一个") ends the choosing instead."""
    if _ALTERNATIVES_HINT.search(lowered) is None:   # most turns: a cheap first look, then nothing
        return False
    match = _ALTERNATIVES.search(lowered)
    if match is None:
        return _ANOTHER.fullmatch(lowered.strip(_END)) is not None
    return _NEGATION.search(lowered, 0, match.start()) is None
