"""Yes/no slots: which question a yes or a no answers, and a slot named together with its answer.

"确认" / "yes" at the confirmation answers the confirmation, never "send a new card?"; a yes or a no
fills a yes/no slot when that slot was asked, or where the words name it ("no, no replacement"),
and "不要早餐" / "with breakfast" fill it in any turn.
"""

from __future__ import annotations

import re

from dialogkit.engine.slot_layout import SlotLayout, SlotOffer
from dialogkit.engine.yes_no_statements import stated_answer
from dialogkit.lexicon import alternation, word_pattern
from dialogkit.lexicon import words as lexicon_words
from dialogkit.model.interpretation import Interpretation
from dialogkit.spec.schema import SlotSpec
from dialogkit.strings.cjk import is_cjk_char

__all__ = ["answered", "echo_answer", "offer_named_answers", "offer_stated_answers"]


def answered(layout: SlotLayout, slots: tuple[SlotSpec, ...], pending_slot: str | None,
             interp: Interpretation) -> tuple[SlotSpec, ...]:
    """The yes/no slot a yes or a no answers: the one just asked, else one the words name ("no, no
    replacement" / "不，不用补寄"). A bare "确认" / "yes" answers the confirmation, or the question
    for another slot, and is no new value of "send a new card?". The names are found by the turn's
    reading (``interp.matches``), once a turn for this and ``offer_named_answers`` alike."""
    asked = tuple(s for s in slots if s.name == pending_slot)
    if asked:
        return asked
    return tuple(s for s in slots if interp.matches(layout.answer_names[s.name]))


def _either(meaning: str) -> str:
    """The patterns of ``meaning`` in every language as one alternation (none: never matches)."""
    return "|".join(lexicon_words(meaning)) or "(?!)"


_BEFORE_NAME = {False: re.compile(rf"(?:{_either('without_before_patterns')})\Z", re.IGNORECASE),
                True: re.compile(rf"(?:{_either('with_before_patterns')})\Z", re.IGNORECASE)}
_BEFORE_WINDOW = 16          # the words right before the name: the answer is never further away
_AFTER_NAME = {False: re.compile(rf"^\s*(?:{_either('without_after_patterns')})"),
               True: re.compile(rf"^\s*(?:{_either('with_after_patterns')})")}


def offer_named_answers(offer: SlotOffer, layout: SlotLayout, interp: Interpretation) -> None:
    """A yes/no slot named with its answer, in any turn: "不要早餐" / "早餐不要" / "no breakfast" is
    breakfast = no, "要早餐" / "with breakfast" yes (a leading "no" alone answers the question asked).
    The names are the turn's reading's; the answer is a look at the words right before and after one."""
    text = interp.text
    for name, pattern in layout.answer_names.items():
        if name in offer.values:
            continue
        for match in interp.matches(pattern):
            before, after = text[max(0, match.start() - _BEFORE_WINDOW):match.start()].rstrip(), text[match.end():]
            value = next((v for v in (False, True) if _BEFORE_NAME[v].search(before) or _AFTER_NAME[v].match(after)),
                         None)
            if value is not None:
                offer.values[name] = value
                offer.surfaces[name] = match.group()
                break


def offer_stated_answers(offer: SlotOffer, layout: SlotLayout, text: str) -> None:
    """A yes/no slot's answer said in a clause of its own, asked or not: "紧急：否", "没有人有危险",
    "很紧急，家里有老人" / "urgent: no", "nobody here is at risk", "it's urgent"."""
    for name, words in layout.answer_words.items():
        if name in offer.values:
            continue
        stated = stated_answer(words, text)
        if stated is not None:
            offer.values[name], offer.surfaces[name] = stated
            offer.labelled[name] = stated[1]      # the clause names the slot: no part of a free-text answer



_ZH_EDGES = "嗯哦噢啊呀吧呢了的啦，,。.!！~～ "
_ZH_NOT = re.compile(f"^(?:{alternation(lexicon_words('quality_negations'))})")
_ZH_DEGREE = re.compile(f"^(?:{alternation(lexicon_words('degree_adverbs'))})+")
_EN_FILLER = frozenset({"it", "its", "it's", "is", "was", "that", "this", "very", "really", "quite", "so", "too",
                        "pretty", "super", "a", "bit", "not", "isn't", "wasn't", "no", "yes", "kind", "of", "at",
                        "all"})
_EN_NOT = frozenset({"not", "isn't", "wasn't", "no"})


def echo_answer(questions: list[str], text: str) -> bool | None:
    """An answer that repeats the question's own word, or denies it: asked "这个问题紧急吗？" / "Is it
    urgent?", "很急" / "紧急" / "urgent" is yes and "不紧急" / "不急" / "not urgent" no. None when the
    words are not the question's. Only the first clause counts ("很紧急，家里有老人", "可以进门，钥匙在
    门卫"), unless what follows takes it back ("很急，但是可以等")."""
    stripped = text.strip(_ZH_EDGES)
    head, _, rest = _split(stripped)
    if rest and _TAKEN_BACK.search(rest):
        return None
    return _echo(questions, head)


_FIRST_CLAUSE_BREAK = re.compile(r"[,，。;；!！\n]")
_TAKEN_BACK = word_pattern("contrast")


def _split(text: str) -> tuple[str, str, str]:
    """The first clause, the break after it, and the rest."""
    found = _FIRST_CLAUSE_BREAK.search(text)
    return (text, "", "") if found is None else (text[:found.start()], found.group(), text[found.end():])


def _echo(questions: list[str], text: str) -> bool | None:
    zh = text.strip(_ZH_EDGES)
    if zh and all(is_cjk_char(ch) for ch in zh):
        negated = _ZH_NOT.match(zh)
        core = _ZH_DEGREE.sub("", zh[negated.end():] if negated else zh)
        if core and len(core) <= 4 and any(core in q for q in questions):
            return negated is None
        return None
    words = re.findall(r"[a-z']+", text.lower())
    content = [w for w in words if w not in _EN_FILLER]
    asked = {w for q in questions for w in re.findall(r"[a-z']+", q.lower())}
    if content and len(content) <= 2 and all(w in asked for w in content):
        return not any(w in _EN_NOT for w in words)
    return None
