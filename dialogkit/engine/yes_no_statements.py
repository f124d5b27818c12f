"""A yes/no slot answered in a clause of its own, in any turn and any common form.

The label with its answer ("紧急：否" / "urgent: no"), the thing the slot asks about denied ("不紧急",
"家里没有人有危险" / "not urgent", "nobody here is at risk") or stated ("有危险", "很紧急" / "it's
urgent", "someone is at risk"); what the clause says after it ("很紧急，家里有老人") is another clause.
A clause answers only when every word of it is the slot's own, a negation, an assertion or a
filler: "我的卡丢了" names no answer though it holds a word of "补寄新卡".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dialogkit.lexicon import lexicon_of_script, words
from dialogkit.spec.schema import SlotSpec
from dialogkit.understanding.cues import is_question, leading_answer
from dialogkit.understanding.language import fold

__all__ = ["AnswerWords", "answer_words", "stated_answer"]

# Chinese: the words a statement about the slot may be made of besides the label's own.
_HAN = lexicon_of_script("han")
ZH_NEGATIONS = _HAN.words("statement_negations")
ZH_ASSERTIONS = _HAN.words("statement_assertions")
ZH_FILLERS = _HAN.words("statement_fillers")
# English, word by word.
EN_NEGATIONS = frozenset({"not", "no", "nobody", "none", "never", "nothing", "neither", "isn't", "aren't", "wasn't",
                          "weren't", "don't", "doesn't", "didn't", "won't", "nope"})
EN_ASSERTIONS = frozenset({"is", "are", "am", "was", "were", "it's", "there's", "that's", "i'm", "we're", "very",
                           "really", "quite", "so", "too", "pretty", "super", "extremely", "definitely", "indeed",
                           "need", "needs", "want", "wants", "would", "like", "with", "do", "does", "have", "has",
                           "yes"})
EN_FILLERS = frozenset({"it", "its", "this", "that", "there", "here", "we", "i", "me", "my", "our", "us", "the", "a",
                        "an", "one", "someone", "somebody", "anyone", "anybody", "everyone", "at", "all", "bit",
                        "kind", "of", "now", "currently", "right", "in", "for", "please", "thanks", "actually",
                        "well", "though", "just", "be", "been", "any", "some", "home", "person", "people"})
_EN_FUNCTION = EN_NEGATIONS | EN_ASSERTIONS | EN_FILLERS

_CLAUSES = re.compile(r"[^,，。.;；!！?？\n]+")
_EN_JOINS = re.compile(r"(?<!\s)\s+\b(?:and|but)\b\s+", re.IGNORECASE)   # (?<!\s): a run of spaces scanned once
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_LABEL_JOINER = re.compile(r"\s*(?:[:：=]\s*)?")
_COPULA = re.compile(rf"\s*(?:{'|'.join(words('label_copula_patterns'))})?\s*", re.IGNORECASE)
_ZH_FUNCTION_CHARS = frozenset(w for w in (*ZH_NEGATIONS, *ZH_ASSERTIONS, *ZH_FILLERS) if len(w) == 1)


@dataclass(frozen=True, slots=True)
class AnswerWords:
    """The words one yes/no slot is known by: its labels (for "label: answer"), the Chinese runs of
    its label (any two characters or more of them name it), their last two characters (what a
    statement asserts), and its English words (all of them content words for a yes)."""

    label: re.Pattern[str]
    zh_label: str
    en_words: frozenset[str]


def answer_words(slot: SlotSpec) -> AnswerWords:
    names = {slot.name, slot.name.replace("_", " ")}
    if isinstance(slot.label, str):
        names.add(slot.label)
    elif slot.label is not None:
        names.update(n for n in (slot.label.zh, slot.label.en) if n)
    ordered = sorted(names, key=len, reverse=True)
    zh = max((run for n in names for run in re.findall(r"[\u4e00-\u9fff]+", n)), key=len, default="")
    en = frozenset(w for n in names if not re.search(r"[\u4e00-\u9fff]", n) for w in _EN_WORD.findall(n.lower())
                   if w not in _EN_FUNCTION)
    label = re.compile("|".join(rf"(?<![A-Za-z]){re.escape(n)}(?![A-Za-z])" for n in ordered), re.IGNORECASE)
    return AnswerWords(label, zh, en)


def stated_answer(words: AnswerWords, text: str) -> tuple[bool, str] | None:
    """The answer a clause of ``text`` states for the slot, with that clause as written; None when
    no clause does, or two say different things."""
    found: dict[bool, str] = {}
    folded = fold(text)              # as long as the text: a clause's span is the same in both
    for start, end in _clauses(folded):
        clause = folded[start:end]
        if is_question(clause):
            continue
        value = _labelled(words, clause)
        if value is None:
            value = _zh_statement(words.zh_label, clause) if words.zh_label else None
        if value is None and words.en_words:
            value = _en_statement(words.en_words, clause)
        if value is not None:
            found.setdefault(value, text[start:end].strip())
    return next(iter(found.items())) if len(found) == 1 else None


def _clauses(text: str) -> list[tuple[int, int]]:
    """The spans of the clauses: between punctuation, and around "and" / "but"."""
    spans: list[tuple[int, int]] = []
    for piece in _CLAUSES.finditer(text):
        at = piece.start()
        for join in _EN_JOINS.finditer(piece.group()):
            spans.append((at, piece.start() + join.start()))
            at = piece.start() + join.end()
        spans.append((at, piece.end()))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _labelled(words: AnswerWords, clause: str) -> bool | None:
    """"紧急：否", "有人处于危险：是", "urgent: no", "the urgent is no": the label, then an answer that
    is the whole rest of the clause ("早餐是自助的" answers nothing)."""
    for match in words.label.finditer(clause):
        rest = clause[match.end():]
        for joiner in (_LABEL_JOINER, _COPULA):
            joined = joiner.match(rest)
            answer = leading_answer(rest[joined.end():]) if joined else None
            if answer is not None and answer.whole and not answer.correction:
                return answer.value
    return None


def _zh_tokens(label: str, clause: str) -> list[tuple[str, str]] | None:
    """The clause cut into (kind, word), longest word first; None when a word is none of them."""
    parts = {label[i:j] for i in range(len(label)) for j in range(i + 2, len(label) + 1)}
    vocab = [*(("label", p) for p in parts), *(("no", w) for w in ZH_NEGATIONS), *(("yes", w) for w in ZH_ASSERTIONS),
             *(("filler", w) for w in ZH_FILLERS)]
    vocab.sort(key=lambda kw: len(kw[1]), reverse=True)
    tokens: list[tuple[str, str]] = []
    text, at = clause.strip(" \t"), 0
    while at < len(text):
        found = next(((k, w) for k, w in vocab if text.startswith(w, at)), None)
        if found is None:
            return None
        tokens.append(found)
        at += len(found[1])
    return tokens


def _zh_statement(label: str, clause: str) -> bool | None:
    tokens = _zh_tokens(label, clause)
    if not tokens:
        return None
    named = [w for k, w in tokens if k == "label" and not set(w) <= _ZH_FUNCTION_CHARS]
    if not named:
        return None
    kinds = {k for k, _ in tokens}
    if "no" in kinds:
        return False
    said_whole = "".join(w for k, w in tokens if k == "label") == label and len(label) > 2
    return True if ("yes" in kinds and any(w.endswith(label[-2:]) for w in named)) or said_whole else None


def _en_statement(content: frozenset[str], clause: str) -> bool | None:
    said = _EN_WORD.findall(clause.lower())
    if not said or not all(w in _EN_FUNCTION or w in content for w in said):
        return None
    named = content.intersection(said)
    if not named:
        return None
    if EN_NEGATIONS.intersection(said):
        return False
    return True if named == content and EN_ASSERTIONS.intersection(said) else None
