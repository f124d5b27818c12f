"""The words a simulated user says that belong to no bot: yes, no, cancel, forget, small talk,
pronouns, ordinals, and the frames that carry a bot's own values.

Everything else a simulated user says comes from the bot file (``catalog``). The phrases here are
the ones every bot must understand in each language (docs/behaviours.md). They are read from the
lexicon (the ``user_*`` meanings of ``dialogkit/lexicon/<language>.yaml``), so the simulator
speaks every language the lexicon has (``languages.spoken_languages`` picks those a bot's users
speak), and a test can still see exactly what it may say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from dialogkit.lexicon import languages, lexicon

Phrases = Mapping[str, tuple[str, ...]]
"""Phrases per language."""

LANGUAGES: Final[tuple[str, ...]] = languages()


def _phrases(meaning: str) -> Phrases:
    return {lang: lexicon(lang).words(meaning) for lang in LANGUAGES}


def _frame(meaning: str) -> Mapping[str, str]:
    return {lang: lexicon(lang).words(meaning)[0] for lang in LANGUAGES}


YES: Final[Phrases] = _phrases("user_yes")
NO: Final[Phrases] = _phrases("user_no")
CANCEL: Final[Phrases] = _phrases("user_cancel")
FORGET: Final[Phrases] = _phrases("user_forget")
LIST_TOGETHER: Final[Phrases] = _phrases("user_list_together")
LIST_ADD: Final[Phrases] = _phrases("user_list_add")
LIST_DROP: Final[Phrases] = _phrases("user_list_drop")

OFF_TOPIC: Final[Phrases] = _phrases("user_small_talk")
"""Small talk with no date or time word, no number and no request; phrases holding a bot's alias
or trigger keyword are left out for that bot (``catalog.Catalog.off_topic``)."""

FREE_TEXT: Final[Phrases] = _phrases("user_free_text")
"""Answers for slots without an entity type (free text)."""

CORRECTIONS: Final[Phrases] = _phrases("user_corrections")
"""``{label}`` frames name the slot; the others fit the value to the slot its type belongs to."""

SEVERAL: Final[Phrases] = {lang: (_frame("user_labelled_value")[lang], _frame("user_value_joiner")[lang])
                           for lang in LANGUAGES}
"""One labelled value, and the joiner between several."""

YES_NO_VALUES: Final[Mapping[str, tuple[tuple[str, bool], ...]]] = {
    lang: ((_frame("user_yes_value")[lang], True), (_frame("user_no_value")[lang], False)) for lang in LANGUAGES
}
"""A ``yes_no`` slot's values as a user says them: alone to its question, or after its label."""

NAMED_YES_NO: Final[Mapping[str, str]] = _frame("user_named_yes_no")
"""A yes/no value named with its slot's label ("紧急：否", "urgent: no"), where SEVERAL's frame
would say "the urgent is no"."""

WITH_VALUES: Final[Mapping[str, str]] = _frame("user_request_with_values")
"""A trigger example followed by slot values in the same utterance."""

TWO_CANDIDATES: Final[Mapping[str, str]] = _frame("user_two_candidates")

_FAMILIES = ("thing", "person")

PRONOUNS: Final[Mapping[str, Phrases]] = {
    family: {lang: lexicon(lang).groups("user_pronoun_questions")[family] for lang in LANGUAGES}
    for family in _FAMILIES
}
"""Small questions with a pronoun that fits either of two candidates of one kind (a thing or a
person), so that naming two just before leaves them ambiguous."""

PRONOUN_WORDS: Final[Mapping[str, Mapping[str, tuple[str, ...]]]] = {
    family: {lang: tuple(w for w, points_at in lexicon(lang).spellings("pronouns").items() if points_at == family)
             for lang in LANGUAGES}
    for family in _FAMILIES
}
"""How to spot a pronoun in a bot's own trigger examples ("问他项目进度"): such an example is a
request that needs the pronoun resolved (the lexicon's pronouns of one thing or one person)."""

DEMONSTRATIVES: Final[Phrases] = _phrases("user_demonstratives")
ORDINALS: Final[Phrases] = _phrases("user_ordinals")
