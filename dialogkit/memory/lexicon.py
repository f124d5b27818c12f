"""Word lists reference resolution needs, per language, kept apart from the matching logic.

Everything here is data: which pronoun points at which kinds of entity, which words are
demonstratives or ordinals, which nouns name an entity type. The resolver reads these tables;
extending a language means extending a table, not editing code.

Type nouns come from two places (see :func:`type_nouns`): the entity type's own name
(``order_id`` -> head word ``order``; ``delivery_address`` -> ``address`` and ``delivery address``)
and :data:`TYPE_NOUN_LEXICON`, a small bilingual dictionary of common heads (``order`` -> 订单).
A bot whose type name is not in the lexicon still gets its English head noun, and a type named
in Chinese is its own noun.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from dialogkit.lexicon import Lexicon, languages, lexicon, lexicon_of_script, spaced_languages
from dialogkit.strings.cjk import has_cjk

_HAN = lexicon_of_script("han")
_SPACED: tuple[Lexicon, ...] = tuple(lexicon(code) for code in spaced_languages())
"""The languages whose words stand apart (en, es ...): one set of word-bounded rules reads them
all, so each ``EN_`` table below holds the words of every one of them, English first."""


def _words(meaning: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for lex in _SPACED if lex.has(meaning) for w in lex.words(meaning)))


def _spellings(meaning: str) -> dict[str, str]:
    return {w: v for lex in reversed(_SPACED) if lex.has(meaning) for w, v in lex.spellings(meaning).items()}


def _values(meaning: str) -> dict[str, int]:
    return {w: v for lex in reversed(_SPACED) if lex.has(meaning) for w, v in lex.values(meaning).items()}

#: Kinds an "it"-like pronoun can refer to, with the preference used to break ties:
#: a concrete thing is a likelier referent than a place, and a place than an untyped value.
THING_KINDS: dict[str, int] = {"thing": 2, "place": 1, "other": 0}
PERSON_KINDS: dict[str, int] = {"person": 0}
#: What 这家 / 它家 points at: a place (a restaurant, a hotel), never a dish or a value.
PLACE_KINDS: dict[str, int] = {"place": 0}
ANY_KINDS: dict[str, int] = {"thing": 2, "person": 2, "place": 1, "other": 0}

#: Built-in value types that are answers, not things one talks about: never pronoun referents
#: unless the expected slot asks for exactly that type.
NON_REFERENTIAL_TYPES: frozenset[str] = frozenset({"number", "integer", "yes_no", "time", "date"})


@dataclass(frozen=True, slots=True)
class PronounEntry:
    """What a pronoun can point at: the kinds it accepts and whether it is plural."""

    kinds: dict[str, int]
    plural: bool = False


#: What a pronoun of the lexicon points at, by the name its file gives it.
_POINTS_AT: dict[str, PronounEntry] = {
    "thing": PronounEntry(THING_KINDS),
    "things": PronounEntry(THING_KINDS, plural=True),
    "person": PronounEntry(PERSON_KINDS),
    "people": PronounEntry(PERSON_KINDS, plural=True),
    "things_or_people": PronounEntry(ANY_KINDS, plural=True),
}


def _pronouns(table: dict[str, str]) -> dict[str, PronounEntry]:
    return {word: _POINTS_AT[points_at] for word, points_at in table.items()}


ZH_PRONOUNS: dict[str, PronounEntry] = _pronouns(_HAN.spellings("pronouns"))
EN_PRONOUNS: dict[str, PronounEntry] = _pronouns(_spellings("pronouns"))

#: Possessive pronouns: bound like the pronoun, written back as "order 12345's".
EN_POSSESSIVES: dict[str, PronounEntry] = _pronouns(_spellings("possessives"))

#: Characters around 他/她/它 that make it part of another word (其他 "other", 他人 "others", 吉他 "guitar").
ZH_PRONOUN_BLOCK_BEFORE = _HAN.chars("pronoun_blocked_before")
ZH_PRONOUN_BLOCK_AFTER = _HAN.chars("pronoun_blocked_after")

#: zh classifiers that may follow 这/那/第N (这个, 那位, 第二笔 ...); 位 marks a person.
ZH_CLASSIFIERS = _HAN.chars("classifiers")
ZH_PERSON_CLASSIFIERS = _HAN.chars("person_classifiers")
ZH_PLACE_CLASSIFIERS = _HAN.chars("place_classifiers")

#: What follows a pronoun that owns the next noun: 它们的电话 ("their phone number").
ZH_POSSESSIVE_MARKERS = _HAN.chars("possessive_markers")


def owning(kinds: dict[str, int]) -> dict[str, int]:
    """What a plural possessive ("their address", "它们的电话") points at: what the pronoun does, but
    values of no kind of their own said together (two cuisines, two grades) own no phone number or
    address. A singular "its" / "它的" may still be a category's ("它的口味" of a cuisine)."""
    return {kind: rank for kind, rank in kinds.items() if kind != "other"}

#: 这 points near, 那 far ("这个", "那位"); 个 is the classifier of anything.
ZH_NEAR = _HAN.chars("demonstratives_near")
ZH_FAR = _HAN.chars("demonstratives_far")
ZH_GENERIC_CLASSIFIER = _HAN.words("generic_classifier")[0]
ZH_WHICH = _HAN.words("which")

#: Words after a bare 这/那 that make it a demonstrative pronoun ("这还没到", "那是我的").
#: Anything else (这样, 那么, 那就, 这里 ...) is a different word and is left alone.
ZH_BARE_DEMONSTRATIVE_NEXT = _HAN.words("bare_demonstrative_next")

#: zh words that make a following type noun a definite description without a direction.
ZH_DEFINITE_PREFIXES = _HAN.words("definite_prefixes")

#: The numerals an ordinal counts with (第一 ... 第十): the everyday digits from one, and ten.
ZH_NUMERALS: dict[str, int] = (
    {w: v for w, v in (_HAN.values("numerals") | _HAN.values("counting_numerals")).items() if v > 0}
    | {w: v for w, v in _HAN.values("numeral_units").items() if v == 10})  # fmt: skip
ZH_ORDINAL_PREFIX = _HAN.words("ordinal_prefix")[0]

#: Position words over the last list: index (0-based, negative from the end).
ZH_POSITION_WORDS: dict[str, int] = _HAN.values("position_words")

EN_ORDINALS: dict[str, int] = _values("ordinals")
#: Articles before an ordinal that make it a reference ("the second", "el segundo").
EN_ORDINAL_ARTICLES = _words("ordinal_articles")

#: Nouns after "the first"/"the last" that make it about something else ("the first time").
EN_ORDINAL_BLOCKED_NOUNS = frozenset(_words("ordinal_blocked_nouns"))

#: Words after a bare this/that that show it stands for a thing ("that is broken", "this hasn't
#: arrived"); the end of the clause counts too. Anything else ("that it broke") is not a reference.
EN_DEMONSTRATIVE_NEXT = frozenset(_words("demonstrative_next"))
#: Verbs whose "it" is a dummy: "make it 8pm" names the new value, not something said before.
EN_DUMMY_IT_VERBS = frozenset(_words("dummy_it_verbs"))
#: Determiners that make the next word a noun: "the IT desk" is no "it".
EN_NOUN_DETERMINERS = frozenset(_words("noun_determiners"))
#: Words before "that" which take a that-clause: "I think that ...", "so that ...".
EN_CLAUSE_VERBS = frozenset(_words("clause_verbs"))
#: Predicates after "that's"/"that is" that are assent, not a statement about a thing.
EN_ASSENT_AFTER = frozenset(_words("assent_after"))

#: Quantities before "of them/these/those" that make a count ("2 of them", "both of them").
EN_COUNT_WORDS: tuple[str, ...] = _words("count_words")

#: Words whose following type noun forms a definite description.
EN_DEFINITE_DETERMINERS = _words("definite_determiners")
#: Demonstratives and where they point: this/este near, that/ese far; a bare one may stand for a thing.
EN_DEMONSTRATIVES: dict[str, str] = _spellings("demonstratives")
#: Determiners of more than one thing: "those tickets", "esos pedidos".
EN_PLURAL_DETERMINERS = frozenset(_words("plural_determiners"))

#: Nouns that restrict a description to a kind instead of a type ("那个人", "that person").
KIND_NOUNS: dict[str, str] = _HAN.spellings("kind_nouns") | _spellings("kind_nouns")

#: Dictionary of common type heads: head word -> language -> its nouns (en: beside the head itself).
TYPE_NOUN_LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    head: {code: lexicon(code).groups("type_nouns").get(head, ()) for code in languages()}
    for head in _HAN.groups("type_nouns")}

#: Trailing parts of a type name that say how it is written, not what it is (order_id -> order).
_TYPE_SUFFIXES = frozenset({"id", "no", "num", "number", "code", "ref", "key", "name", "type", "kind"})
_AMBIGUOUS_HEADS = frozenset({"phone", "date", "time"})


def type_head(type_name: str) -> tuple[str, str]:
    """The head word and the full phrase of a type name: ``order_id`` -> (``order``, ``order``)."""
    words = [w for w in re.split(r"[_\-\s]+", type_name.strip().lower()) if w]
    while len(words) > 1 and words[-1] in _TYPE_SUFFIXES:
        words.pop()
    if not words:
        return type_name, type_name
    return words[-1], " ".join(words)


def type_nouns(type_name: str, language: str) -> list[str]:
    """Nouns that name ``type_name`` in ``language``, the preferred one first.

    The preferred noun is the one labels use ("订单12345", "order 12345").
    """
    return list(_type_nouns(type_name, language))


@functools.lru_cache(maxsize=1024)
def _type_nouns(type_name: str, language: str) -> tuple[str, ...]:
    # Cached: resolution asks for the same few types on every turn.
    return tuple(_compute_type_nouns(type_name, language))


def _compute_type_nouns(type_name: str, language: str) -> list[str]:
    if has_cjk(type_name):
        return [type_name] if not _is_spaced(language) else []
    head, phrase = type_head(type_name)
    own = list(TYPE_NOUN_LEXICON.get(head, {}).get(language, ()))
    if language not in _NAMED_IN:
        return own         # zh, es ...: the lexicon's nouns; the type's English name is no noun of theirs
    en = own
    if head in _AMBIGUOUS_HEADS:
        # Bare "phone"/"date"/"time" name products and moments more often than these types.
        return list(en)
    nouns = [phrase, head] if phrase != head else [head]
    return nouns + [noun for noun in en if noun not in nouns]


@functools.lru_cache(maxsize=4)
def lexicon_nouns(language: str) -> dict[str, frozenset[str]]:
    """Every lexicon noun of ``language`` mapped to the type heads it names (cached: read-only)."""
    return {noun: frozenset(heads) for noun, heads in _lexicon_nouns(language).items()}


def _lexicon_nouns(language: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for head, nouns in TYPE_NOUN_LEXICON.items():
        own = nouns.get(language, ())
        for noun in (head, *own) if language in _NAMED_IN else own:
            found.setdefault(noun, set()).add(head)
    return found


_NAMED_IN = frozenset({"en"})
"""The language type names are written in (order_id's head "order" is an English noun)."""


def _is_spaced(language: str) -> bool:
    return any(lex.language == language for lex in _SPACED)

#: English words of three letters or more that name nothing: a clarification answer sharing one
#: with a candidate's label ("the" in "the budget") does not pick that candidate.
EN_FUNCTION_WORDS = frozenset(_words("function_words"))
