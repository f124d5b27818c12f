"""Asking which one was meant, and understanding the answer.

A clarification lists the candidates in order of first mention, so an ordinal in the answer
("第二个", "the latter") indexes the same list the user saw. The answer may name a candidate by
value, label or an extracted mention; an answer naming none of them is not an answer
(``None``): the caller drops the question and treats the text as a new turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from dialogkit.memory import lexicon as lx
from dialogkit.memory.references import Ambiguity
from dialogkit.memory.tracker import is_identifier, short_label, value_key
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Candidate, Entity, PendingClarification
from dialogkit.strings.cjk import HAN_RANGES, has_cjk

__all__ = ["answer_clarification", "candidates_of", "clarification_question", "make_pending"]

_ZH_ORDINAL = re.compile(r"第\s*([一二两三四五六七八九十\d]+)")
_EN_ORDINAL = re.compile(r"\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last|former|latter)\b",
                         re.IGNORECASE)
_NEGATION = re.compile(r"(不是|不要|别|并非|not|no|isn't|n't)\s*$", re.IGNORECASE)
_CJK_LATIN_GAP = re.compile(f"(?<=[{HAN_RANGES}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{HAN_RANGES}])")


def candidates_of(ambiguity: Ambiguity | Sequence[Candidate], language: str,
                  labels: Callable[[Entity], str] | None = None) -> list[Candidate]:
    """The question's options as plain data, in order of first mention."""
    if isinstance(ambiguity, Ambiguity):
        return [Candidate(value=e.value, type=e.type, entity_id=e.id or None,
                          label=labels(e) if labels else short_label(e, language))
                for e in ambiguity.candidates]
    return list(ambiguity)


def _option_labels(options: Sequence[Candidate], language: str) -> list[str]:
    """Bare labels, with the shared type noun put once before the first ("订单 12345 还是 67890")."""
    texts = [c.label or str(c.value) for c in options]
    same_type = len({c.type for c in options}) == 1
    if same_type and all(is_identifier(c.value) and t == str(c.value) for c, t in zip(options, texts, strict=True)):
        nouns = lx.type_nouns(options[0].type, language)
        if nouns:
            texts[0] = f"{nouns[0]} {texts[0]}"
    return texts


def clarification_question(ambiguity: Ambiguity | Sequence[Candidate], language: str,
                           labels: Callable[[Entity], str] | None = None) -> str:
    """"您指的是订单 12345 还是 67890？" / "Do you mean Joe Brown or John Smith?"."""
    texts = _option_labels(candidates_of(ambiguity, language, labels), language)
    if language == "zh":
        body = texts[0] if len(texts) == 1 else "、".join(texts[:-1]) + "还是" + texts[-1]
        return _CJK_LATIN_GAP.sub(" ", f"您指的是{body}？")
    body = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
    return f"Do you mean {body}?"


def make_pending(ambiguity: Ambiguity | Sequence[Candidate], *, original_text: str, language: str, turn: int,
                 kind: str = "reference", slot: str | None = None, flow: str | None = None,
                 labels: Callable[[Entity], str] | None = None) -> PendingClarification:
    """The question as session data, so the answer can be understood in the next turn."""
    expression = ambiguity.reference.expression if isinstance(ambiguity, Ambiguity) else ""
    return PendingClarification(kind="slot_value" if kind == "slot_value" else "reference",
                                candidates=candidates_of(ambiguity, language, labels),
                                original_text=original_text, expression=expression, slot=slot, flow=flow,
                                language=language, turn=turn)


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATION.search(text[:start]))


def _named(pending: PendingClarification, text: str, mentions: Sequence[Mention]) -> set[int]:
    """Indices of candidates the answer names (by mention, value or label), minus negated ones."""
    chosen: set[int] = set()
    rejected: set[int] = set()
    folded = text.casefold()
    for i, cand in enumerate(pending.candidates):
        for m in mentions:
            if (value_key(m.value) == value_key(cand.value) and m.type in (cand.type, "")) or \
                    value_key(m.text) == value_key(cand.value):
                (rejected if _negated(text, m.start) else chosen).add(i)
        for name in {str(cand.value), cand.label}:
            key = name.casefold().strip()
            if not key:
                continue
            pattern = re.escape(key) if has_cjk(key) else rf"(?<![A-Za-z0-9]){re.escape(key)}(?![A-Za-z0-9])"
            for hit in re.finditer(pattern, folded):
                (rejected if _negated(folded, hit.start()) else chosen).add(i)
    if not chosen:
        chosen = _by_name_part(pending, folded)
    return chosen - rejected


def _by_name_part(pending: PendingClarification, folded: str) -> set[int]:
    """"Joe" picks "Joe Brown" when no other candidate has that word."""
    words = set(re.findall(r"[a-z]{3,}", folded))
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
        number = int(raw) if raw.isdigit() else lx.ZH_NUMERALS.get(raw) if len(raw) == 1 else None
        return number - 1 if number and number <= count else None
    m = _EN_ORDINAL.search(text)
    if m:
        index = lx.EN_ORDINALS[m.group(1).lower()]
        return index % count if -count <= index < count else None
    bare = text.strip().strip("#.。!！")
    if bare.isdigit() and 1 <= int(bare) <= count:
        return int(bare) - 1
    return None


def answer_clarification(pending: PendingClarification, text: str, mentions: Sequence[Mention]) -> Candidate | None:
    """The candidate the answer picks, or None when it names none (or several) of them."""
    if not pending.candidates:
        return None
    named = _named(pending, text, mentions)
    if len(named) == 1:
        return pending.candidates[named.pop()]
    if named:
        return None
    index = _ordinal(text, len(pending.candidates))
    return pending.candidates[index] if index is not None else None
