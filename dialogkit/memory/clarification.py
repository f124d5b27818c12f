"""Asking which one was meant, and understanding the answer.

A clarification lists the candidates in order of first mention, so an ordinal in the answer
("第二个", "the latter") indexes the same list the user saw. The question and its quick replies
name each candidate in the turn's language, even when it is asked again in the other one: a
value the bot file declares by its label (see ``Texts.declared_label``), anything else as the
user or the value wrote it. ``Candidate.value`` stays canonical. The answer may name a candidate by
value, label or an extracted mention; an answer naming none of them is not an answer
(``None``): the caller drops the question and treats the text as a new turn.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from dialogkit.lexicon import alternation, words
from dialogkit.memory import lexicon as lx
from dialogkit.memory.references import Ambiguity
from dialogkit.memory.tracker import display_label, is_identifier, type_nouns_of, value_key
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Candidate, Entity, PendingClarification
from dialogkit.strings.cjk import HAN_RANGES, has_cjk
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import alternatives, format_value, phrase, spaced

__all__ = ["answer_clarification", "candidate_label", "candidates_of", "clarification_question", "make_pending",
           "option_labels"]

_ZH_ORDINAL = re.compile(rf"{lx.ZH_ORDINAL_PREFIX}\s*([{''.join(lx.ZH_NUMERALS)}\d]+)")
_EN_ORDINAL = re.compile(rf"\b({'|'.join(lx.EN_ORDINALS)})\b", re.IGNORECASE)
_ORDINAL_WORDS = re.compile(f"{_ZH_ORDINAL.pattern}|{_EN_ORDINAL.pattern}|"
                            + "|".join(map(re.escape, sorted(lx.ZH_POSITION_WORDS, key=len, reverse=True))),
                            re.IGNORECASE)
_NEGATIONS = words("option_negations")
_NEGATION = re.compile(rf"({alternation(_NEGATIONS)})\s*$", re.IGNORECASE)
_NEGATION_WIDTH = max(map(len, _NEGATIONS))     # the longest word _NEGATION ends with
_CJK_LATIN_GAP = re.compile(f"(?<=[{HAN_RANGES}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{HAN_RANGES}])")


def candidates_of(ambiguity: Ambiguity | Sequence[Candidate], language: str,
                  labels: Callable[[Entity], str] | None = None, texts: Texts | None = None) -> list[Candidate]:
    """The question's options as plain data, in order of first mention."""
    if isinstance(ambiguity, Ambiguity):
        return [Candidate(value=e.value, type=e.type, entity_id=e.id or None,
                          label=labels(e) if labels else display_label(e, language, texts))
                for e in ambiguity.candidates]
    return list(ambiguity)


def candidate_label(candidate: Candidate, language: str, texts: Texts | None = None) -> str:
    """How the question names one candidate in ``language``: the bot's label for a value it
    declares, else the label stored when the question was made, else the value."""
    declared = texts.declared_label(candidate.type, candidate.value, language) if texts is not None else None
    return declared or candidate.label or format_value(candidate.value)


def option_labels(candidates: Sequence[Candidate], language: str, texts: Texts | None = None) -> list[str]:
    """The quick replies of a clarification (``reply.options``) in ``language``, in the question's order."""
    return [candidate_label(c, language, texts) for c in candidates]


def _question_labels(options: Sequence[Candidate], language: str, texts: Texts | None) -> list[str]:
    """Bare labels, with the shared type noun put once before the first ("订单 12345 还是 67890")."""
    names = option_labels(options, language, texts)
    same_type = len({c.type for c in options}) == 1
    if same_type and all(is_identifier(c.value) and t == str(c.value) for c, t in zip(options, names, strict=True)):
        nouns = type_nouns_of(options[0].type, language, texts)
        if nouns:
            names[0] = f"{nouns[0]} {names[0]}"
    return names


def clarification_question(ambiguity: Ambiguity | Sequence[Candidate], language: str,
                           labels: Callable[[Entity], str] | None = None, texts: Texts | None = None) -> str:
    """"您指的是订单 12345 还是 67890？" / "Do you mean Joe Brown or John Smith?"."""
    names = _question_labels(candidates_of(ambiguity, language, labels, texts), language, texts)
    question = phrase("which_one", language, options=alternatives(names, language))
    return question if spaced(language) else _CJK_LATIN_GAP.sub(" ", question)


def make_pending(ambiguity: Ambiguity | Sequence[Candidate], *, original_text: str, language: str, turn: int,
                 kind: str = "reference", slot: str | None = None, flow: str | None = None,
                 labels: Callable[[Entity], str] | None = None, texts: Texts | None = None) -> PendingClarification:
    """The question as session data, so the answer can be understood in the next turn."""
    expression = ambiguity.reference.expression if isinstance(ambiguity, Ambiguity) else ""
    return PendingClarification(kind="slot_value" if kind == "slot_value" else "reference",
                                candidates=candidates_of(ambiguity, language, labels, texts),
                                original_text=original_text, expression=expression, slot=slot, flow=flow,
                                language=language, turn=turn)


def _negated(text: str, start: int) -> bool:
    """A negation word right before ``start`` (blanks between): read back a few characters, not
    the whole text before it, so an answer naming hundreds of values stays linear."""
    end = start
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return bool(_NEGATION.search(text[max(0, end - _NEGATION_WIDTH):end]))


def _named(pending: PendingClarification, text: str, mentions: Sequence[Mention]) -> set[int]:
    """Indices of candidates the answer names (by mention, value or label), minus negated ones.

    A name written inside another value is not said: the "11" of "2026年5月11日" or "May 11 2026"
    is part of a date, not the candidate 11."""
    chosen: set[int] = set()
    rejected: set[int] = set()
    folded = text.casefold()
    # Each mention's keys once, looked up by key: an answer naming hundreds of values meets as
    # many candidates, and comparing every candidate with every mention would be quadratic.
    keyed = [(value_key(m.value), value_key(m.text), m) for m in mentions]
    by_key: dict[str, list[Mention]] = {}
    for value, written, m in keyed:
        by_key.setdefault(value, []).append(m)
        if written != value:
            by_key.setdefault(written, []).append(m)
    others = _Spans(keyed if len(folded) == len(text) else [])
    for i, cand in enumerate(pending.candidates):
        key = value_key(cand.value)
        for m in by_key.get(key, ()):
            if value_key(m.text) == key or m.type in (cand.type, ""):
                (rejected if _negated(text, m.start) else chosen).add(i)
        for name in {str(cand.value), cand.label}:
            word = name.casefold().strip()
            for start, end in (_said(folded, word) if word else ()):
                if not others.inside_another(start, end, key):
                    (rejected if _negated(folded, start) else chosen).add(i)
    if not chosen:
        chosen = _by_name_part(pending, folded)
    return chosen - rejected


def _said(folded: str, word: str) -> list[tuple[int, int]]:
    """Where ``word`` stands on its own in ``folded``: anywhere for Chinese, between non-alphanumerics
    otherwise ("11" is not said in "2011"). A search for the word, no pattern compiled per word."""
    found: list[tuple[int, int]] = []
    whole = not has_cjk(word)
    at = folded.find(word)
    while at >= 0:
        end = at + len(word)
        if whole and ((at and _ALNUM.match(folded, at - 1)) or _ALNUM.match(folded, end)):
            at = folded.find(word, at + 1)
            continue
        found.append((at, end))
        at = folded.find(word, end)
    return found


_ALNUM = re.compile(r"[A-Za-z0-9]")


class _Spans:
    """The mentions' spans in text order, to ask whether a name stands inside a mention of another
    value (the "11" of "2026年5月11日"). Only spans starting within the longest mention's length
    before a name can hold it, found by bisection (where the casefolded text keeps the offsets:
    it does for every digit, Han character and ASCII letter)."""

    def __init__(self, keyed: Sequence[tuple[str, str, Mention]]) -> None:
        self._spans = sorted((m.start, m.end, value, written) for value, written, m in keyed)
        self._starts = [span[0] for span in self._spans]
        self._longest = max((end - start for start, end, _, _ in self._spans), default=0)

    def inside_another(self, start: int, end: int, key: str) -> bool:
        lo = bisect_left(self._starts, end - self._longest)
        hi = bisect_right(self._starts, start)
        return any(e >= end and key not in (value, written) for _, e, value, written in self._spans[lo:hi])


_COUNTS = frozenset({"number", "integer"})
_BARE_REMAINDER = 3


def _nearly_all(text: str, mention: Mention) -> bool:
    """A number answers only said nearly alone ("1", "就2个"): in running text ("我刚喝了一杯咖啡")
    it counts something else."""
    rest = text[:mention.start] + text[mention.end:]
    return sum(ch.isalnum() for ch in rest) <= _BARE_REMAINDER


def _names_others(pending: PendingClarification, mentions: Sequence[Mention]) -> bool:
    """Whether the answer names a value of the candidates' type that is none of them ("I have
    patient ID A and patient ID B" while A or C is asked about): a new statement, not an answer."""
    types = {c.type for c in pending.candidates if c.type}
    values = {value_key(c.value) for c in pending.candidates}
    return any(m.type in types and value_key(m.value) not in values for m in mentions)


def _by_name_part(pending: PendingClarification, folded: str) -> set[int]:
    """"Joe" picks "Joe Brown" when no other candidate has that word."""
    words = set(re.findall(r"[a-z]{3,}", folded)) - lx.EN_FUNCTION_WORDS
    hits = set()
    for i, cand in enumerate(pending.candidates):
        parts = set(re.findall(r"[a-z]{3,}", (cand.label or "").casefold()))
        if parts & words:
            hits.add(i)
    return hits if len(hits) == 1 else set()


def _ordinal(text: str, count: int) -> int | None:
    """0-based index an ordinal answer names, or None."""
    for word, index in lx.ZH_POSITION_WORDS.items():
        if word in text:
            return index % count
    m = _ZH_ORDINAL.search(text)
    if m:
        raw = m.group(1)
        number = int(raw) if raw.isdecimal() else lx.ZH_NUMERALS.get(raw) if len(raw) == 1 else None
        return number - 1 if number and number <= count else None
    m = _EN_ORDINAL.search(text)
    if m:
        index = lx.EN_ORDINALS[m.group(1).lower()]
        return index % count if -count <= index < count else None
    bare = text.strip().strip("#.。!！")
    if bare.isdecimal() and 1 <= int(bare) <= count:     # "②" and "²" are digits, not decimals
        return int(bare) - 1
    return None


def answer_clarification(pending: PendingClarification, text: str, mentions: Sequence[Mention]) -> Candidate | None:
    """The candidate the answer picks, or None when it names none (or several) of them."""
    if not pending.candidates:
        return None
    mentions = [m for m in mentions if m.type not in _COUNTS or _nearly_all(text, m)]
    if _names_others(pending, mentions):
        return None
    named = _named(pending, text, mentions)
    if len(named) == 1:
        return pending.candidates[named.pop()]
    if named:
        return None
    index = _ordinal(_outside_values(text, mentions), len(pending.candidates))
    return pending.candidates[index] if index is not None else None


def _outside_values(text: str, mentions: Sequence[Mention]) -> str:
    """``text`` with the values the bot declares blanked out where they are more than an ordinal:
    "first" in "make it first class" is a cabin, not the first candidate; an alias that is only an
    ordinal word ("first") still counts as one."""
    for m in sorted((m for m in mentions if not m.builtin), key=lambda m: m.start, reverse=True):
        rest = _ORDINAL_WORDS.sub("", m.text)
        if any(ch.isalnum() for ch in rest) and text[m.start:m.end] == m.text:
            text = text[:m.start] + " " * (m.end - m.start) + text[m.end:]
    return text
