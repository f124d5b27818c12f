"""(e) Every reply is in the turn's language."""

from __future__ import annotations

import ahocorasick

from dialogkit.lexicon import writing
from dialogkit.simulation.catalog import Catalog, word_pattern
from dialogkit.simulation.invariants.base import Finding, ForeignForms, Invariant, Judge
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.word_finder import WordFinder
from dialogkit.strings.cjk import HAN_RANGES, has_cjk

CHINESE = f"/[{HAN_RANGES}]/"
NO_CHINESE = f"/^[^{HAN_RANGES}]*$/"


def foreign_forms(catalog: Catalog, language: str) -> ForeignForms:
    """The other languages' forms of every value that has a form in ``language``.

    A form that is part of one in ``language`` is left out ("A101" inside the label
    "一号会议室A101"): showing the label shows it too. So is one the bot file gives as the value's
    label in ``language`` itself ("SUV" as the zh label of an SUV).
    """
    own = [form.lower() for e in catalog.entities.values() for v in e.values
           for form in [*v.said.get(language, ()), v.shown.get(language, "")] if form]
    foreign = [(form.lower(), value.canonical) for entity in catalog.entities.values() for value in entity.values
               if value.said.get(language) for other, forms in value.said.items() if other != language
               for form in forms]
    inside = _inside(own, {form for form, _ in foreign})
    owner: dict[str, str] = {}
    for form, canonical in foreign:
        if form not in inside:
            owner.setdefault(form, canonical)
    return ForeignForms(WordFinder(owner) if owner else None, owner)


def _inside(texts: list[str], words: set[str]) -> set[str]:
    """The ``words`` found inside some of ``texts``: one automaton pass over the texts, where
    trying every word against every text took minutes for a catalogue of 10,000 values."""
    automaton = ahocorasick.Automaton()
    for word in words:
        automaton.add_word(word, word)
    if not words:
        return set()
    automaton.make_automaton()
    return {word for text in texts for _, word in automaton.iter(text)}


def _absent(form: str) -> str:
    """A ``bot:`` expectation that ``form`` does not occur in the reply."""
    return f"/^(?![\\s\\S]*(?i:{word_pattern(form)}))/"


def _free_text(turn: TurnRecord, judge: Judge) -> list[str]:
    """The values of free-text slots (no entity type) the reply may echo: the user's own words,
    shown as typed in whatever language they were typed."""
    if turn.reply is None:
        return []
    out = []
    for holder in (turn.reply.slots, turn.before.slots):
        for name, value in holder.items():
            slots = [judge.catalog.slot(f, name) for f in (turn.reply.flow, turn.before.flow) if f]
            if isinstance(value, str) and any(s is not None and s.entity is None for s in slots):
                out.append(value.lower())
    return out


def reply_in_turn_language(turn: TurnRecord, judge: Judge) -> Finding | None:
    """The reply is in the turn's language from end to end: ``reply.language`` is the turn's, a
    zh reply holds Chinese, and no value shows its label or alias in the other language where it
    has one in the turn's language (docs/behaviours.md, item 21).

    The turn's language follows docs/bot-file.md: Chinese characters make zh, three Latin words
    make en, anything shorter keeps the session's language. A free-text slot's value is the
    user's own words and may be echoed as typed.
    """
    reply, language = turn.reply, turn.language
    if reply is None:
        return None
    han = writing(language).script == "han"
    expect_script = {"bot": CHINESE if han else NO_CHINESE}
    if reply.language != language:
        return Finding("wrong_language", f"the reply is in {reply.language}, the turn in {language}", expect_script)
    if han and not has_cjk(reply.text):
        return Finding("no_chinese", "the zh reply holds no Chinese", expect_script)
    foreign = judge.facts.foreign[language]
    typed = _free_text(turn, judge)
    matches = foreign.pattern.finditer(reply.text) if foreign.pattern is not None else iter(())
    match = next((m for m in matches if not any(m.group().lower() in t for t in typed)), None)
    if match is None:
        return None
    form = match.group()
    value = foreign.owner.get(form.lower(), form)
    message = f"the {language} reply shows {form!r}, a form of {value!r} in another language"
    return Finding("other_language_label", message, {"bot": _absent(form)})


INVARIANT = Invariant("reply_language", "e", "the reply is in the turn's language", reply_in_turn_language)
