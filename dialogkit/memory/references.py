"""Reference resolution: what "它", "that one", "第二个" and "the same order" point at.

Finding references (:func:`find_references`) only reads the text; binding them
(:func:`resolve`) reads the session's entity memory. Candidates are filtered by kind (a hard
rule: 他 never means an order), then ranked by the expected slot's type and kind, by how
concrete their kind is, and by recency. Two candidates that tie on all of that — typically
mentioned in the same turn — make the reference ambiguous, and the caller asks which one was
meant instead of guessing. Entities named in the utterance itself are never its pronouns'
referents ("订单12345，它…" is about 12345 only through the text, not through memory), except
that a plural pronoun may take the utterance's own list ("张经理和李主管，让他们…").
"""

from __future__ import annotations

import functools
import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dialogkit.lexicon import alternation, auto_languages, lexicon_of_script, words, writing
from dialogkit.memory import lexicon as lx
from dialogkit.memory.tracker import entity_label, find_entity, is_identifier, short_label, type_nouns_of, value_key
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Entity, Session
from dialogkit.strings.cjk import has_cjk
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import spoken_list

ReadsAs = Callable[[Collection[str]], Sequence[Mention]]
"""entity types -> the values of those types in the turn's words, wherever another type claimed
them (the turn's ``Interpretation.read_as``)."""

__all__ = ["Ambiguity", "Binding", "ReadsAs", "Reference", "Resolution", "bind_choice", "find_references",
           "referent_text", "resolve", "task_phrase"]

Edit = tuple[int, int, str, str]
"""(start, end, replacement read by understanding, replacement shown) in the original utterance."""

MAX_REFERENCES = 32
"""The most references one turn binds: the first ones, in the order written.

A person points back a handful of times in one message. A pasted or hostile run of pronouns
("它" x 4,000, a 64 KiB body of "it it it") would otherwise cost a ranking of the candidates, a
binding and a rewrite of the text for each one; past the cap the rest of the run is left as
written, which is all such a message can mean anyway.
"""


@dataclass(slots=True)
class Reference:
    """An expression that points back: where it is, and what it can point at.

    ``category`` is pronoun | demonstrative | ordinal | definite | ellipsis. ``kinds`` maps the
    entity kinds it accepts to a preference (None: any kind); ``direction`` is "near" for
    这/this and "far" for 那/that; ``index`` is the 0-based position an ordinal names (negative
    from the end); ``noun`` is the type noun of a definite description ("订单", "order");
    ``possessive`` marks "its"/"his"/"their", written back as "order 12345's".
    An ellipsis has an empty ``expression`` and ``start == end`` where the object is missing.
    """

    expression: str
    start: int
    end: int
    category: str
    kinds: dict[str, int] | None = None
    plural: bool = False
    direction: str | None = None
    index: int | None = None
    noun: str | None = None
    possessive: bool = False


@dataclass(slots=True)
class Binding:
    reference: Reference
    entity: Entity


@dataclass(slots=True)
class Ambiguity:
    """A reference with several equally good candidates, listed in order of first mention."""

    reference: Reference
    candidates: list[Entity]


@dataclass(slots=True)
class Resolution:
    """The utterance, the text with its references written out, and what they bound.

    The references are written out twice. ``resolved_text`` is self-contained, for
    understanding to read again: an identifier comes with its type noun ("它现在怎么样？" ->
    "订单12345现在怎么样？"), which is what tells a status question from a bare number.
    ``shown_text`` is for the user to see (``reply.resolved``): the referent as the user's language
    writes it, with no type word or capital the user did not write ("12345现在怎么样？");
    it defaults to ``resolved_text``. ``edits`` are the rewrites made, kept so that binding the
    ambiguous reference later (:func:`bind_choice`) writes it exactly like the others.
    """

    text: str
    resolved_text: str
    bindings: list[Binding]
    ambiguity: Ambiguity | None = None
    edits: list[Edit] = field(default_factory=list)
    shown_text: str = ""

    def __post_init__(self) -> None:
        if not self.shown_text:
            self.shown_text = self.resolved_text


_HAN = lexicon_of_script("han")
_ZH_NUM = "".join(lx.ZH_NUMERALS)
_ZH_ONE = next(w for w, v in lx.ZH_NUMERALS.items() if v == 1)   # 这一个
_ZH_PUNCT = "，。！？、；：,.!?;:~… "
_ZH_COURTESY = f"(?:{alternation(_HAN.words('courtesy'))})?"
_ZH_ELLIPSIS_VERBS = _HAN.words("ellipsis_verbs")
_ZH_DEMONSTRATIVE = f"[{lx.ZH_NEAR}{lx.ZH_FAR}]"
_ZH_OBJECT_MARKER = _HAN.words("ellipsis_object_marker")[0]
_EN_ELLIPSIS = re.compile(
    r"^\s*(?:(?:please|can you|could you|can we|could we|let's|lets|i want to|i'd like to|i need to)\s+)?"
    r"(move|change|reschedule|push|postpone|shift|switch|update|delay|bring|set)\b(\s+it\b)?"
    r"(?=\s+(?:to|for|until|till|back|forward|later|earlier)\b)", re.IGNORECASE)


def _alternation(words: Iterable[str]) -> str:
    return _alternation_of(frozenset(words))


@functools.lru_cache(maxsize=256)
def _alternation_of(words: frozenset[str]) -> str:
    # Cached: the same word lists are joined on every turn; longest first so the longest wins.
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)) if w)


_ZH_TEN = next(w for w, v in lx.ZH_NUMERALS.items() if v == 10)


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if len(text) == 1:
        return lx.ZH_NUMERALS.get(text)
    if text.startswith(_ZH_TEN):
        return 10 + (lx.ZH_NUMERALS.get(text[1:], 0))
    if text.endswith(_ZH_TEN):
        return lx.ZH_NUMERALS.get(text[0], 0) * 10
    if len(text) == 3 and text[1] == _ZH_TEN:
        return lx.ZH_NUMERALS.get(text[0], 0) * 10 + lx.ZH_NUMERALS.get(text[2], 0)
    return None


def _clause_end(text: str, pos: int) -> bool:
    return pos >= len(text) or text[pos] in _ZH_PUNCT + "\"')"


@functools.lru_cache(maxsize=128)
def _zh_noun_patterns(nouns: frozenset[str]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, re.Pattern[str]]:
    """The noun-dependent zh patterns, compiled once per noun set (the set object is cached too,
    so a turn pays one dictionary look-up, not a rebuild and re-hash of long pattern strings)."""
    noun_alt = _kind_noun_alternation(nouns, True)
    cls = lx.ZH_CLASSIFIERS
    noun_part = rf"({noun_alt})?" if noun_alt else "()"
    ordinal = re.compile(rf"{lx.ZH_ORDINAL_PREFIX}([{_ZH_NUM}\d]+)([{cls}])?{noun_part}")
    if not noun_alt:
        return None, None, ordinal
    prefix = _alternation(lx.ZH_DEFINITE_PREFIXES)
    return (re.compile(rf"(?:{prefix})(?:{_ZH_DEMONSTRATIVE}{lx.ZH_GENERIC_CLASSIFIER})?({noun_alt})"),
            re.compile(rf"({_ZH_DEMONSTRATIVE}){_ZH_ONE}?[{cls}]?({noun_alt})"), ordinal)


@functools.lru_cache(maxsize=128)
def _en_noun_patterns(nouns: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The noun-dependent en patterns (ordinals with an optional noun, definite descriptions)."""
    noun_alt = _kind_noun_alternation(nouns, False)
    noun_part = rf"(?:\s+({noun_alt})(?:e?s)?\b)?" if noun_alt else "()"
    ordinals = _alternation(lx.EN_ORDINALS)
    articles = _alternation(lx.EN_ORDINAL_ARTICLES)
    ordinal = re.compile(rf"\b((?:{articles})\s+)?({ordinals})\b(\s+ones?\b)?{noun_part}", re.IGNORECASE)
    if not noun_alt:
        return ordinal, None
    dets = _alternation(lx.EN_DEFINITE_DETERMINERS).replace(r"\ ", r"\s+")
    return ordinal, re.compile(rf"\b({dets})\s+({noun_alt})(e?s)?\b", re.IGNORECASE)


def _zh_references(text: str, nouns: Collection[str]) -> list[tuple[int, Reference]]:
    """zh candidates with a priority (lower wins an overlap)."""
    definite, near_far, ordinal = _zh_noun_patterns(nouns if isinstance(nouns, frozenset) else frozenset(nouns))
    found: list[tuple[int, Reference]] = []
    if definite is not None and near_far is not None:
        found += _zh_definites(text, definite, near_far)
    found += _zh_ordinals(text, ordinal)
    found += _zh_demonstratives(text)
    found += _zh_pronouns(text)
    m = _ZH_ELLIPSIS.match(text)
    if m:
        found.append((4, Reference("", m.start(1), m.start(1), "ellipsis")))
    return found


def _zh_definites(text: str, definite: re.Pattern[str], near_far: re.Pattern[str]) -> list[tuple[int, Reference]]:
    """"该订单", "同一个订单" (no direction) and "这个订单", "那笔订单" (near / far)."""
    found = [(0, Reference(m.group(), m.start(), m.end(), "definite", noun=m.group(1)))
             for m in definite.finditer(text)]
    for m in near_far.finditer(text):
        direction = "near" if m.group(1) in lx.ZH_NEAR else "far"
        found.append((1, Reference(m.group(), m.start(), m.end(), "definite", direction=direction,
                                   noun=m.group(2))))
    return found


def _zh_ordinals(text: str, ordinal: re.Pattern[str]) -> list[tuple[int, Reference]]:
    """"第二个", "第三位", "第一笔订单" and the position words ("前者", "最后一个")."""
    found: list[tuple[int, Reference]] = []
    for m in ordinal.finditer(text):
        index = _zh_number(m.group(1))
        if index is None or index < 1 or not (m.group(2) or m.group(3) or _clause_end(text, m.end())):
            continue
        kinds = lx.PERSON_KINDS if m.group(2) in lx.ZH_PERSON_CLASSIFIERS else None
        found.append((1, Reference(m.group(), m.start(), m.end(), "ordinal", index=index - 1,
                                   noun=m.group(3) or None, kinds=kinds)))
    for word, index, pattern in _ZH_POSITIONS:
        if word in text:
            for m in pattern.finditer(text):
                found.append((1, Reference(word, m.start(), m.end(), "ordinal", index=index)))
    return found


def _zh_demonstratives(text: str) -> list[tuple[int, Reference]]:
    """"这个", "那位" with a classifier, and a bare 这/那 where it stands for a thing ("这还没到")."""
    found: list[tuple[int, Reference]] = []
    for m in _ZH_CLASSIFIED.finditer(text):
        if _ZH_IDEA.match(text, m.end()):
            continue        # "这个主意好", "这个分值还可以": the words name an idea or a measure, no thing
        kinds = _classified_kinds(m.group(2))
        found.append((2, Reference(m.group(), m.start(), m.end(), "demonstrative",
                                   direction="near" if m.group(1) in lx.ZH_NEAR else "far", kinds=kinds)))
    for m in _ZH_BARE.finditer(text):
        if _ZH_ASSENT.match(text, m.end()):
            continue        # "那也行", "这还不错": accepting what was said, as "that's fine" is
        if _clause_end(text, m.end()) or text.startswith(lx.ZH_BARE_DEMONSTRATIVE_NEXT, m.end()):
            found.append((3, Reference(m.group(), m.start(), m.end(), "demonstrative",
                                       direction="near" if m.group() in lx.ZH_NEAR else "far",
                                       kinds=lx.THING_KINDS)))
    return found


_ZH_IDEA = re.compile(rf"(?<!\s)\s*+(?:{_alternation(_HAN.words('idea_nouns'))})")   # linear
"""Nouns of an idea, a measure or a time ("这个主意", "这个分值", "这个时段"): what such a demonstrative
determines is said right there, as "that idea" / "this score" determine theirs in English."""

_ZH_ASSENT = re.compile(rf"(?:{_alternation(lx.ZH_BARE_DEMONSTRATIVE_NEXT)})*"
                        rf"(?:{_alternation(_HAN.words('assent_after'))})")


def _zh_pronouns(text: str) -> list[tuple[int, Reference]]:
    """它/他/她(们), except inside another word (其他, 他人, 吉他)."""
    found: list[tuple[int, Reference]] = []
    for m in _ZH_PRONOUN.finditer(text):
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        if (before and before in lx.ZH_PRONOUN_BLOCK_BEFORE) or (after and after in lx.ZH_PRONOUN_BLOCK_AFTER):
            continue
        entry = lx.ZH_PRONOUNS[m.group()]
        around = entry.kinds is lx.THING_KINDS and _ZH_AROUND.match(text, m.end()) is not None   # 它周边
        kinds = lx.PLACE_KINDS if (after and after in lx.ZH_PLACE_CLASSIFIERS) or around else entry.kinds   # 它家
        if entry.plural and after and after in lx.ZH_POSSESSIVE_MARKERS:
            kinds = lx.owning(kinds)        # 它们的电话: no categories' phone number
        found.append((3, Reference(m.group(), m.start(), m.end(), "pronoun", kinds=kinds, plural=entry.plural)))
    return found


# The lexicon's patterns compiled once: built in each call, their word lists were joined (and
# hashed to find the joined string again) and looked up in ``re``'s cache on every turn.
_ZH_ELLIPSIS = re.compile(rf"^\s*{_ZH_COURTESY}({_alternation(_ZH_ELLIPSIS_VERBS)})")     # ^: linear in findall too
_ZH_POSITIONS = tuple((word, index, re.compile(re.escape(word))) for word, index in lx.ZH_POSITION_WORDS.items())
_ZH_CLASSIFIED = re.compile(rf"({_ZH_DEMONSTRATIVE}){_ZH_ONE}?([{lx.ZH_CLASSIFIERS}])")
_ZH_BARE = re.compile(_ZH_DEMONSTRATIVE)
_ZH_PRONOUN = re.compile(_alternation(lx.ZH_PRONOUNS))
_EN_PRONOUN_TABLES = tuple((table, possessive, re.compile(rf"\b({_alternation(table)})\b", re.IGNORECASE))
                           for table, possessive in ((lx.EN_PRONOUNS, False), (lx.EN_POSSESSIVES, True)))
_ZH_AROUND = re.compile(rf"(?<!\s)\s*+(?:{_alternation(_HAN.words('near_after'))})")   # linear
_EN_AROUND = re.compile(rf"\b(?:{_alternation(words('near_before'))})\s+$", re.IGNORECASE)
"""What is around a thing: "它周边有什么餐馆" / "what is near it" points at a place, never at a
dish or a price said last (a thing with surroundings is somewhere)."""


def _classified_kinds(classifier: str) -> dict[str, int]:
    """What a demonstrative with this classifier points at: 那位 a person, 这家 a place, 这个 a thing."""
    if classifier in lx.ZH_PERSON_CLASSIFIERS:
        return lx.PERSON_KINDS
    return lx.PLACE_KINDS if classifier in lx.ZH_PLACE_CLASSIFIERS else lx.THING_KINDS


_EN_WORD_AFTER = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?|['’]s")
_EN_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz'")


@functools.lru_cache(maxsize=8)
def _lowered(text: str) -> str:
    """``text`` lower-cased character for character, so positions in it are positions in ``text``
    (the lower case of "İ" is two characters; its first stands for it). Cached: every pronoun of a
    turn looks at the words around it, and lowering the text once keeps a run of them linear."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else "".join(ch.lower()[:1] for ch in text)


def _words_after(text: str, pos: int) -> list[str]:
    """The first two words after ``pos``, lower-cased (read up to the second, not to the end)."""
    return [m.group() for m in itertools.islice(_EN_WORD_AFTER.finditer(_lowered(text), pos), 2)]


def _word_before(text: str, pos: int) -> str | None:
    """The last word ([a-z']) before ``pos``, lower-cased: read back from ``pos`` to its start only."""
    lowered = _lowered(text)
    end = pos
    while end > 0 and lowered[end - 1] not in _EN_WORD_CHARS:
        end -= 1
    start = end
    while start > 0 and lowered[start - 1] in _EN_WORD_CHARS:
        start -= 1
    return lowered[start:end] or None


def _en_references(text: str, nouns: Collection[str]) -> list[tuple[int, Reference]]:
    """en candidates with a priority (lower wins an overlap)."""
    ordinal, definite = _en_noun_patterns(nouns if isinstance(nouns, frozenset) else frozenset(nouns))
    found = _en_ordinals(text, ordinal)
    if definite is not None:
        found += _en_definites(text, definite)
    found += _en_demonstratives(text)
    found += _en_pronouns(text)
    m = _EN_ELLIPSIS.match(text)
    if m:
        if m.group(2):
            it = m.start(2) + m.group(2).index(m.group(2).strip())
            found.append((-1, Reference(text[it:m.end(2)], it, m.end(2), "ellipsis", kinds=lx.THING_KINDS)))
        else:
            found.append((-1, Reference("", m.end(1), m.end(1), "ellipsis")))
    return found


def _en_ordinals(text: str, ordinal: re.Pattern[str]) -> list[tuple[int, Reference]]:
    """"the second one", "the first order", "the latter"; not "the first time" or a bare "first"."""
    found: list[tuple[int, Reference]] = []
    for m in ordinal.finditer(text):
        word = m.group(2).lower()
        after = _words_after(text, m.end())
        if not (m.group(3) or m.group(4)):
            if not m.group(1) or (after and after[0] in lx.EN_ORDINAL_BLOCKED_NOUNS):
                continue
            if after and after[0] not in lx.EN_DEMONSTRATIVE_NEXT and not _clause_end(text, _skip_space(text, m.end())):
                continue
        elif not (m.group(1) or m.group(3)) or (m.group(4) or "").lower() in lx.EN_ORDINAL_BLOCKED_NOUNS:
            continue     # "the first time", "the last day": moments, though "the same time" refers
        found.append((1, Reference(m.group(), m.start(), m.end(), "ordinal", index=lx.EN_ORDINALS[word],
                                   noun=m.group(4))))
    return found


def _en_definites(text: str, definite: re.Pattern[str]) -> list[tuple[int, Reference]]:
    """"the same order", "that meeting", "those tickets"."""
    found: list[tuple[int, Reference]] = []
    for m in definite.finditer(text):
        det = " ".join(m.group(1).lower().split())
        direction = lx.EN_DEMONSTRATIVES.get(det)
        plural = det in lx.EN_PLURAL_DETERMINERS
        found.append((0, Reference(m.group(), m.start(), m.end(), "definite", direction=direction,
                                   noun=m.group(2), plural=plural)))
    return found


def _en_demonstratives(text: str) -> list[tuple[int, Reference]]:
    """"this one"/"that one", and a bare this/that where it stands for a thing."""
    found: list[tuple[int, Reference]] = []
    for m in _DEMONSTRATIVE_ONE.finditer(text):
        found.append((1, Reference(m.group(), m.start(), m.end(), "demonstrative", kinds=lx.THING_KINDS,
                                   direction=lx.EN_DEMONSTRATIVES[m.group(1).lower()])))
    for m in _BARE_DEMONSTRATIVE.finditer(text):
        if _bare_demonstrative(text, m):
            found.append((2, Reference(m.group(), m.start(), m.end(), "demonstrative", kinds=lx.THING_KINDS,
                                       direction=lx.EN_DEMONSTRATIVES[m.group(1).lower()])))
    return found


_SINGULAR_DEMONSTRATIVE = _alternation(d for d in lx.EN_DEMONSTRATIVES if d not in lx.EN_PLURAL_DETERMINERS)
_DEMONSTRATIVE_ONE = re.compile(rf"\b({_SINGULAR_DEMONSTRATIVE})\s+one\b", re.IGNORECASE)
_BARE_DEMONSTRATIVE = re.compile(rf"\b({_SINGULAR_DEMONSTRATIVE})\b", re.IGNORECASE)
"""this/that, este/ese ...: "that one", and a bare one standing for a thing ("that is broken")."""


def _en_pronouns(text: str) -> list[tuple[int, Reference]]:
    """it/he/she/they/them..., and the possessives its/his/their (written back as "X's")."""
    found: list[tuple[int, Reference]] = []
    for table, possessive, pattern in _EN_PRONOUN_TABLES:
        for m in pattern.finditer(text):
            if _dummy_it(text, m):
                continue
            entry = table[m.group(1).lower()]
            around = entry.kinds is lx.THING_KINDS and _EN_AROUND.search(text[:m.start()][-24:]) is not None
            kinds = lx.PLACE_KINDS if around else lx.owning(entry.kinds) if possessive and entry.plural else entry.kinds
            found.append((3, Reference(m.group(), m.start(), m.end(), "pronoun", kinds=kinds,
                                       plural=entry.plural, possessive=possessive)))
    return found


def _dummy_it(text: str, m: re.Match[str]) -> bool:
    """"make it 25:00" / "make it six people": the "it" of the idiom points at nothing earlier; what
    follows is the new value (which, when the bot cannot take it, must not let "it" fill a slot).
    Nor is "the IT desk" a pronoun: a determiner makes it a noun."""
    before = _word_before(text, m.start())
    return m.group(1).lower() == "it" and before is not None and (before in lx.EN_DUMMY_IT_VERBS
                                                                   or before in lx.EN_NOUN_DETERMINERS)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _skip_blank(text: str, pos: int) -> int:
    """Past any white space at ``pos`` (``str.lstrip``'s, without copying the rest of the text)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _bare_demonstrative(text: str, m: re.Match[str]) -> bool:
    """Bare this/that stands for a thing only before a verb or at the end of a clause.

    "I think that it broke" (a that-clause) and "that's right" (assent) are not references.
    """
    if _word_before(text, m.start()) in lx.EN_CLAUSE_VERBS:
        return False
    after = _words_after(text, m.end())
    if _clause_end(text, _skip_space(text, m.end())) and not text.startswith(("'", "’"), _skip_blank(text, m.end())):
        return True
    if not after or after[0] not in lx.EN_DEMONSTRATIVE_NEXT:
        return False
    return not (after[0] in {"'s", "’s", "is", "was"} and len(after) > 1 and after[1] in lx.EN_ASSENT_AFTER)


def find_references(text: str, language: str, *, nouns: Collection[str] = ()) -> list[Reference]:
    """Every referring expression of ``text``, in order, overlaps settled by priority then length;
    the first ``MAX_REFERENCES`` of them.

    ``nouns`` adds type nouns (the session's entity types) to the lexicon's for definite
    descriptions ("那个订单", "the same order").
    """
    zh = not writing(language).spaced
    all_nouns = _nouns_of(frozenset(nouns), language)
    found = _zh_references(text, all_nouns) if zh else _en_references(text, all_nouns)
    found.sort(key=lambda item: (item[0], -(item[1].end - item[1].start), item[1].start))
    kept: list[Reference] = []
    spans = _KeptSpans()
    for _, ref in found:
        if spans.overlaps(ref):
            continue
        spans.add(ref)
        kept.append(ref)
    return sorted(kept, key=lambda r: r.start)[:MAX_REFERENCES]


class _KeptSpans:
    """The references kept so far, in text order, for the overlap check of the next candidate.

    Kept references never overlap, so ordered by (start, end) their ends never decrease: of those
    starting before a candidate ends, only the last can reach into it, and an empty (ellipsis)
    candidate can otherwise only meet an empty one at its own position, the next in order. Each
    candidate is compared with those two, not with every reference kept: a run of thousands of
    pronouns is read in n log n, not n².
    """

    def __init__(self) -> None:
        self._keys: list[tuple[int, int]] = []
        self._refs: list[Reference] = []

    def overlaps(self, ref: Reference) -> bool:
        at = bisect_left(self._keys, (ref.end,))
        return any(_overlap(ref, self._refs[i]) for i in (at - 1, at) if 0 <= i < len(self._refs))

    def add(self, ref: Reference) -> None:
        at = bisect_right(self._keys, (ref.start, ref.end))
        self._keys.insert(at, (ref.start, ref.end))
        self._refs.insert(at, ref)


@functools.lru_cache(maxsize=128)
def _nouns_of(nouns: frozenset[str], language: str) -> frozenset[str]:
    """The session's and the lexicon's type nouns written in ``language`` (cached per noun set)."""
    zh = not writing(language).spaced
    return frozenset(n for n in {*nouns, *lx.lexicon_nouns(language)} if has_cjk(n) == zh)


@functools.lru_cache(maxsize=128)
def _kind_noun_alternation(nouns: frozenset[str], cjk: bool) -> str:
    """Type nouns plus the lexicon's kind nouns of one script, joined for a regex (cached)."""
    return _alternation([n for n in (*nouns, *lx.KIND_NOUNS) if has_cjk(n) == cjk])


def _overlap(a: Reference, b: Reference) -> bool:
    if a.start == a.end or b.start == b.end:
        return b.start < a.start < b.end or a.start < b.start < a.end or (a.start == b.start and a.end == b.end)
    return a.start < b.end and b.start < a.end


def task_phrase(label: str, language: str) -> str:
    """How an ellipsis names the task's object: "会议" in zh, "the meeting" in en (the label itself
    in a language without an article rule here)."""
    if language != "en":
        return label
    lowered = label.lower()
    if any(ch.isdigit() for ch in label) or lowered.startswith(("the ", "a ", "an ", "my ", "your ")):
        return label
    return f"the {label}"


def _noun_types(session: Session, extra: Sequence[Entity], texts: Texts | None) -> dict[str, frozenset[str]]:
    """Type nouns of every type the session knows or the bot declares, in both languages, mapped to
    their types: "这家餐馆" names a restaurant though none is known yet, so it binds no hotel."""
    declared = frozenset(texts.spec.entities) if texts is not None else frozenset()
    return _nouns_of_types(declared | frozenset(e.type for e in [*session.entities, *extra]), texts)


_VALUE_KIND = "other"
"""The kind of a value that is no thing, place, person or moment (a category, a grade, a colour)."""


@functools.lru_cache(maxsize=256)
def _nouns_of_types(types: frozenset[str], texts: Texts | None) -> dict[str, frozenset[str]]:
    # Cached per set of types and bot (a bot has few): the answer is read-only and the same every turn.
    found: dict[str, set[str]] = {}
    for type_name in types:
        for lang in texts.languages if texts is not None else auto_languages():
            for noun in type_nouns_of(type_name, lang, texts):
                found.setdefault(noun.lower(), set()).add(type_name)
    return {noun: _things_first(names, texts) for noun, names in found.items()}


def _things_first(types: set[str], texts: Texts | None) -> frozenset[str]:
    """The types a noun names, the things before the values: "酒店" / "hotel" names the hotel, not
    the hotel_type (whose name reads "hotel" once "type" is taken as a suffix). A value of no kind
    ("经济型", "budget") is a category of the thing, never "this hotel"; it keeps the noun only
    when no thing shares it."""
    if texts is None or len(types) < 2:
        return frozenset(types)
    things = {name for name in types if texts.spec.entity_kind(name) != _VALUE_KIND}
    return frozenset(things or types)


def _no_preference(entity: Entity, texts: Texts | None) -> bool:
    """Whether the entity is its type's ``any`` value (the bot file's no-preference)."""
    if texts is None:
        return False
    declared = texts.spec.entities.get(entity.type)
    return declared is not None and declared.any is not None and value_key(declared.any) == value_key(entity.value)


def _replaced(session: Session) -> set[str]:
    """The values a correction or a new answer replaced, in a task under way or among the values
    kept for the session, that nothing holds now."""
    held = {value_key(v) for task in session.stack for v in task.slots.values() if v is not None}
    held |= {value_key(p.value) for p in session.session_slots.values()}
    gone = {value_key(change.value) for task in session.stack for changes in task.slot_history.values()
            for change in changes}
    gone |= {value_key(change.value) for p in session.session_slots.values() for change in p.history}
    return gone - held


def _open_types(session: Session, texts: Texts | None) -> set[str]:
    """The entity types of the slots that hold their no-preference value, in a task under way or
    kept for the session: "老城或者河畔都行" leaves the district open, and no district is meant."""
    if texts is None:
        return set()
    held: list[tuple[str | None, str, Any]] = [(task.flow, name, value) for task in session.stack
                                               for name, value in task.slots.items()]
    held += [(kept.flow, name, kept.value) for name, kept in session.session_slots.items()]
    found: set[str] = set()
    for flow_name, name, value in held:
        flow = texts.spec.flows.get(flow_name or "")
        slot = flow.slot(name) if flow is not None else None
        no_preference = texts.spec.any_value(slot)
        if slot is not None and slot.entity and no_preference is not None \
                and value_key(no_preference) == value_key(value):
            found.add(slot.entity)
    return found


class _Resolver:
    """One call of :func:`resolve`: the candidate pool and the ranking rules of that turn."""

    def __init__(self, session: Session, turn: int, mentions: Sequence[Mention],
                 expected_types: Collection[str], expected_kinds: Collection[str],
                 task_object: Entity | None, texts: Texts | None) -> None:
        self.session = session
        self.mentions = sorted(mentions, key=lambda m: m.start)
        self.expected_types = set(expected_types)
        self.expected_kinds = set(expected_kinds)
        self.task_object = task_object
        self.current = {(m.type, value_key(m.value)) for m in mentions}
        # Mentioned before this turn: if tracking already ran for this utterance, what it alone
        # added is the utterance's own, not something to point back at.
        # A no-preference ("any district", "任何片区") names no thing to point back at, and a value
        # the user replaced is no longer meant.
        replaced, open_types = _replaced(session), _open_types(session, texts)
        # What is meant no more: a no-preference, a value replaced, a value of a slot left open.
        self.unmeant = {e.id for e in session.entities if _no_preference(e, texts)
                        or value_key(e.value) in replaced or e.type in open_types}
        pool = [e for e in session.entities
                if not self.is_current(e) and any(t < turn for t in e.mention_turns) and e.id not in self.unmeant]
        if task_object is not None and task_object not in pool and not self.is_current(task_object):
            pool.append(task_object)
        self.pool = pool
        self.noun_types = _noun_types(session, [task_object] if task_object else [], texts)

    def is_current(self, entity: Entity) -> bool:
        """Named in the utterance being resolved."""
        return (entity.type, value_key(entity.value)) in self.current

    # -- candidate filters -------------------------------------------------------------------
    def compatible(self, ref: Reference, entities: Sequence[Entity]) -> list[Entity]:
        return [e for e in entities if self._fits(ref, e)]

    def _fits(self, ref: Reference, entity: Entity) -> bool:
        """The hard filter: a noun must name the entity's type (or kind); otherwise the kinds must
        admit it, and an answer-like value (a number, a date) only fits when the slot asks for it."""
        if ref.noun is not None:
            return self._noun_matches(ref.noun, entity)
        if ref.kinds is not None and entity.kind not in ref.kinds:
            return False
        return entity.type not in lx.NON_REFERENTIAL_TYPES or entity.type in self.expected_types

    def _noun_matches(self, noun: str, entity: Entity) -> bool:
        noun = noun.lower()
        if noun in lx.KIND_NOUNS:
            return entity.kind == lx.KIND_NOUNS[noun]
        return entity.type in _types_named(self.noun_types, noun)

    def _tier(self, ref: Reference, entity: Entity) -> tuple[int, int, int]:
        kind_pref = ref.kinds.get(entity.kind, 0) if ref.kinds else 0
        return (entity.type in self.expected_types, entity.kind in self.expected_kinds, kind_pref)

    def _top_tier(self, ref: Reference, cands: list[Entity]) -> list[Entity]:
        tiers = [self._tier(ref, e) for e in cands]
        best = max(tiers)
        return [e for e, tier in zip(cands, tiers, strict=True) if tier == best]

    # -- selection ---------------------------------------------------------------------------
    def best(self, ref: Reference, cands: list[Entity]) -> Entity | Ambiguity | None:
        """The clearly best candidate, or an ambiguity when the best ones tie on recency."""
        if not cands:
            return None
        top = self._top_tier(ref, cands)
        latest = max(e.last_turn for e in top)
        newest = max(e.last_turn for e in cands)
        if newest > latest:
            # Two things named together since ("我有两个请假单号 X 和 Y"), then "它": those are meant,
            # and the question's type does not reach back past them to an older value.
            named = [e for e in cands if e.last_turn == newest]
            if len(named) >= 2:
                return Ambiguity(ref, sorted(named, key=lambda e: e.first_position))
        tied = [e for e in top if e.last_turn == latest]
        if len(tied) == 1:
            return tied[0]
        return Ambiguity(ref, sorted(tied, key=lambda e: e.first_position))

    def directed(self, ref: Reference, cands: list[Entity]) -> Entity | None:
        """这/this: the more recently mentioned of the top two; 那/that: the earlier one."""
        if not cands:
            return None
        ranked = sorted(self._top_tier(ref, cands), key=lambda e: e.last_position, reverse=True)
        if ref.direction == "far" and len(ranked) > 1:
            return ranked[1]
        return ranked[0]

    def ordinal(self, ref: Reference) -> Entity | None:
        listed = [e for e in (self.session.entity(i) for i in self.session.last_list) if e is not None]
        listed = self.compatible(ref, listed) if (ref.noun or ref.kinds) else listed
        if not listed:
            # No list was said: a group mentioned together in the latest turn stands in for one.
            cands = self.compatible(ref, self.pool)
            if cands:
                latest = max(e.last_turn for e in cands)
                listed = sorted((e for e in cands if e.last_turn == latest), key=lambda e: e.last_position)
        if ref.index is None or not listed or not -len(listed) <= ref.index < len(listed):
            return None
        return listed[ref.index]

    def bind(self, ref: Reference) -> list[Entity] | Ambiguity:
        """The entities ``ref`` points at by its category, or the tie that makes it ambiguous."""
        found: Entity | Ambiguity | None
        if ref.category == "ordinal":
            found = self.ordinal(ref)
        elif ref.plural:
            return self.plural(ref)
        elif ref.direction is not None:
            found = self.directed(ref, self.compatible(ref, self.pool))
        else:
            found = self.best(ref, self.compatible(ref, self.pool))
        if isinstance(found, Ambiguity):
            return found
        return [found] if found is not None else []

    def plural(self, ref: Reference) -> list[Entity]:
        """They/他们: the utterance's own list, else the last list, else the best group."""
        own: list[Entity] = []
        for m in self.mentions:
            if m.end > ref.start:
                continue
            entity = find_entity(self.session, m.type, m.value) or Entity(
                id="", type=m.type, kind=m.kind, value=m.value, aliases=[m.text])
            if not self._fits(ref, entity):     # "2" in "a monitor, 2 of them" is no member
                continue
            if all(value_key(e.value) != value_key(entity.value) or e.type != entity.type for e in own):
                own.append(entity)
        if len(own) >= 2:
            return own
        listed = [e for e in (self.session.entity(i) for i in self.session.last_list) if e is not None]
        listed = [e for e in self.compatible(ref, listed) if not self.is_current(e) and e.id not in self.unmeant]
        if len(listed) >= 2:
            return listed
        cands = self.compatible(ref, self.pool)
        if not cands:
            return []
        top = self._top_tier(ref, cands)
        latest = max(e.last_turn for e in top)
        return sorted((e for e in top if e.last_turn == latest), key=lambda e: e.last_position)


def _same_case(expression: str, written: str) -> str:
    """``written`` starts with a capital only where the user's words did ("It broke" -> "Keyboard
    broke", "it broke" -> "keyboard broke"); the label is otherwise left as the bot file or the
    user wrote it."""
    if expression[:1].isupper() and written[:1].islower():
        return written[0].upper() + written[1:]
    return written


def _join(labels: list[str], language: str) -> str:
    """What a plural reference is rewritten to: "张经理和李主管", "Joe and Ann"."""
    return spoken_list(labels, language)


# Every Chinese referring expression starts with one of these characters (pronouns, 这/那, 第,
# position words, definite prefixes, ellipsis verbs): a turn with none of them skips resolution.
_ZH_HINT = re.compile("[" + re.escape("".join(sorted({
    w[0] for w in (*lx.ZH_PRONOUNS, lx.ZH_NEAR, lx.ZH_FAR, lx.ZH_ORDINAL_PREFIX, *lx.ZH_WHICH, *lx.ZH_POSITION_WORDS,
                   *lx.ZH_DEFINITE_PREFIXES, *_ZH_ELLIPSIS_VERBS)}))) + "]")
_EN_COPULA = re.compile(r"(?<!\s)(?:\s*+(?:'s|’s)|\s++(?:is|was))\b", re.IGNORECASE)  # linear
_ZH_COPULA = re.compile(rf"(?<!\s)\s*+(?:{alternation(_HAN.words('copula'))})")  # linear
_EN_NOUN_COMPOUND = re.compile(r"(?<!\s)\s++(?:number|no\.?|id|code|#)(?=\W|$)", re.IGNORECASE)  # linear
_EN_COUNT_WORDS = "|".join(word.replace(" ", r"\s+") for word in lx.EN_COUNT_WORDS)
_EN_COUNT_OF = re.compile(rf"\b(?:\d+|{_EN_COUNT_WORDS})\s+of\s+$", re.IGNORECASE)
_ZH_COUNT = re.compile(rf"(?<![{_ZH_NUM}\d])[{_ZH_NUM}\d]+\s*[{lx.ZH_CLASSIFIERS}]")  # from a run start: linear
_COUNT_TYPES = frozenset({"number", "integer"})


def _explicitly_named(ref: Reference, mentions: Sequence[Mention], text: str,
                      noun_types: dict[str, frozenset[str]]) -> bool:
    """The utterance names the object itself, so the words are not a reference back.

    "the order 12345" / "该订单12345" (a value right after the description); "the order number is
    12345" / "the order number 12345" (the noun is a modifier, and a value follows; "the same tracking
    number to …" still points back); "actually it's 67890" / "it was my earbuds" (a predicative "it"
    whose clause states the value: the referent is what follows, not something earlier). The value
    after a description is of the type its noun names: "那台电脑开不了机" still points back at the
    laptop, "开不了机" being a symptom.
    """
    after = text[ref.end:]
    if ref.category == "definite":
        named = _types_named(noun_types, ref.noun.lower()) if ref.noun else frozenset()
        own = [m for m in mentions if not named or m.type in named]
        compound = _EN_NOUN_COMPOUND.match(after)
        if compound:      # "the order number is 12345" names it; "the same tracking number to …" points back
            rest = after[compound.end():]
            gap = compound.end() + len(rest) - len(rest.lstrip(" #:："))
            return bool(_EN_COPULA.match(rest)) or any(m.start == ref.end + gap for m in own)
        gap = len(after) - len(after.lstrip(" #:："))
        return any(m.start == ref.end + gap for m in own)
    if ref.category == "demonstrative" and (_names_its_noun(ref, mentions, after)
                                            or _headed_by_value(ref, mentions, text)):
        return True
    if ref.plural and _counts_own_mention(ref, mentions, text):
        return True
    if ref.category in ("pronoun", "demonstrative") and not ref.plural:
        copula = _EN_COPULA.match(after) or _ZH_COPULA.match(after)
        if copula and any(m.start >= ref.end + copula.end() for m in mentions):
            return True
    return False


def _names_its_noun(ref: Reference, mentions: Sequence[Mention], after: str) -> bool:
    """"这个显示器", "那台 monitor": the demonstrative determines the noun right after it, which
    names its own thing; it points at nothing else (least of all an entity of another type)."""
    gap = len(after) - len(after.lstrip())
    return any(m.start == ref.end + gap for m in mentions)


_VALUE_HEAD_MARKERS = frozenset(words("value_head_markers"))


def _headed_by_value(ref: Reference, mentions: Sequence[Mention], text: str) -> bool:
    """"河畔的那个", "川菜那家": the demonstrative is the empty head of the value said before it,
    so the words name a thing by that value and point back at nothing."""
    return any(text[m.end:ref.start].strip() in _VALUE_HEAD_MARKERS | {""}
               for m in mentions if m.end <= ref.start)


def _counts_own_mention(ref: Reference, mentions: Sequence[Mention], text: str) -> bool:
    """A plural that counts what the utterance itself names, not earlier things: "a monitor, 2 of
    them", "both of them" after the utterance's own noun; "显示器要两个，它们都要黑色的" and "I need 2
    monitors, send them" (one thing named with a count before the pronoun)."""
    before = text[:ref.start]
    own = {(m.type, value_key(m.value)) for m in mentions
           if m.end <= ref.start and m.type not in lx.NON_REFERENTIAL_TYPES}
    if not own:
        return False
    if _EN_COUNT_OF.search(before):
        return True
    counted = _ZH_COUNT.search(before) or any(m.type in _COUNT_TYPES and m.end <= ref.start for m in mentions)
    return len(own) == 1 and bool(counted)


def resolve(session: Session, text: str, language: str, *, turn: int, mentions: Sequence[Mention],
            expected_types: Collection[str] = (), expected_kinds: Collection[str] = (),
            task_object: Entity | None = None, task_object_label: str | None = None,
            texts: Texts | None = None, reads_as: ReadsAs | None = None) -> Resolution:
    """Bind the utterance's references to the session's entities and write the resolved text.

    ``turn`` is the current turn: only entities mentioned in earlier turns are candidates.
    ``task_object``/``task_object_label`` name what the active task is about ("会议"): an
    utterance with no object ("改到下午三点") is completed with it. The first ambiguous
    reference is returned in ``ambiguity`` and left unreplaced; the others are still bound.
    ``texts`` (the bot's labels) names a referent the user never named in the turn's language.
    ``reads_as(types)`` (the reading's ``read_as``) reads ``text`` as given types even where the
    turn's reading gave a span to another type ("damaged": an issue, and a reason).
    """
    written = _written_language(text, language)
    if not writing(written).spaced and not _ZH_HINT.search(text):
        return Resolution(text=text, resolved_text=text, bindings=[], ambiguity=None)
    refs = _open_references(session, text, written, mentions, task_object, texts, reads_as)
    if not refs:   # most turns: nothing refers back, so the candidate pool is never built
        return Resolution(text=text, resolved_text=text, bindings=[], ambiguity=None)
    resolver = _Resolver(session, turn, mentions, expected_types, expected_kinds, task_object, texts)
    task = _TaskObject(task_object, _object_phrase(task_object, task_object_label, language, texts))
    bindings: list[Binding] = []
    ambiguities: list[Ambiguity] = []
    edits: list[Edit] = []
    for ref in refs:
        outcome = _bind(resolver, ref, task)
        if isinstance(outcome, Ambiguity):
            ambiguities.append(outcome)
            continue
        bound, label = outcome
        if bound or label:
            bindings.extend(Binding(ref, e) for e in bound)
            edits.append(_edit(ref, bound, label, language, texts))
    return _resolution(text, bindings, _still_open(ambiguities, bindings), edits)


def _still_open(ambiguities: list[Ambiguity], bindings: list[Binding]) -> Ambiguity | None:
    """The first ambiguous reference to ask about. One whose candidates include what another
    reference of the same utterance bound means that one ("check the booking status of the first
    one": the booking is the first one), so it is not asked about."""
    bound = {b.entity.id for b in bindings}
    return next((a for a in ambiguities if not any(c.id in bound for c in a.candidates)), None)


def _written_language(text: str, language: str) -> str:
    """The language whose referring words to look for: the text's own. "withdraw it" in a Chinese
    session points back as surely as "撤销它" (the reply stays in the session's language)."""
    if not writing(language).spaced and not has_cjk(text) and any(ch.isascii() and ch.isalpha() for ch in text):
        return "en"
    return language


def _resolution(text: str, bindings: list[Binding], ambiguity: Ambiguity | None, edits: list[Edit]) -> Resolution:
    return Resolution(text=text, resolved_text=_rewrite(text, edits, shown=False), bindings=bindings,
                      ambiguity=ambiguity, edits=edits, shown_text=_rewrite(text, edits, shown=True))


def bind_choice(resolution: Resolution, entity: Entity, language: str, texts: Texts | None = None) -> Resolution:
    """The resolution once a clarification answered which entity the ambiguous reference meant:
    bound, and written into the text like every other referent."""
    if resolution.ambiguity is None:
        return resolution
    ref = resolution.ambiguity.reference
    edits = [*resolution.edits, _edit(ref, [entity], None, language, texts)]
    return _resolution(resolution.text, [*resolution.bindings, Binding(ref, entity)], None, edits)


def _open_references(session: Session, text: str, language: str, mentions: Sequence[Mention],
                     task_object: Entity | None, texts: Texts | None, reads_as: ReadsAs | None) -> list[Reference]:
    """The references left to bind: none inside a mention, none whose object the text names."""
    noun_types = _noun_types(session, [task_object] if task_object else [], texts)
    return [r for r in find_references(text, language, nouns=noun_types.keys())
            if not any(m.start < r.end and r.start < m.end for m in mentions)
            and not _explicitly_named(r, mentions, text, noun_types)
            and not _states_its_value(r, mentions, text, noun_types, reads_as)]


_CHANGED_TO = re.compile(rf"(?<!\s)\s*+(?:{_alternation(words('change_to'))})(?=\s|[^A-Za-z])",
                         re.IGNORECASE)   # linear: anchored


def _states_its_value(ref: Reference, mentions: Sequence[Mention], text: str,
                      noun_types: dict[str, frozenset[str]], reads_as: ReadsAs | None) -> bool:
    """"the reason is damaged", "这个退货原因是坏了", "change the city to Beijing", "把时间改成11点": a
    description, "is" or "to", then a value of the type it names. The utterance states that value;
    the description points back at no earlier one (least of all the value it replaces). "the order
    is broken" still points back: "broken" is no order."""
    if ref.category != "definite" or ref.noun is None:
        return False
    types = _types_named(noun_types, ref.noun.lower())
    after = text[ref.end:]
    copula = _EN_COPULA.match(after) or _ZH_COPULA.match(after) or _CHANGED_TO.match(after)
    if not types or copula is None:
        return False
    rest = after[copula.end():]
    start = ref.end + copula.end() + len(rest) - len(rest.lstrip())
    if any(m.start == start and m.type in types for m in mentions):
        return True
    try:
        return reads_as is not None and any(m.start == start for m in reads_as(types))
    except ValueError:  # an entity stored before the bot file dropped its type: no value of it to read
        return False


def _types_named(noun_types: dict[str, frozenset[str]], noun: str) -> frozenset[str]:
    """The entity types a (lower-case) type noun names, "orders" as "order"."""
    return noun_types.get(noun) or noun_types.get(noun.rstrip("s"), frozenset())


@dataclass(slots=True)
class _TaskObject:
    """What the active task is about, and how a completed utterance names it."""

    entity: Entity | None
    phrase: str | None

    @property
    def entities(self) -> list[Entity]:
        return [self.entity] if self.entity is not None else []


def _object_phrase(task_object: Entity | None, task_object_label: str | None, language: str,
                   texts: Texts | None) -> str | None:
    # The caller's label is a common noun ("会议" -> "the meeting"); an entity's label is a name.
    if task_object_label:
        return task_phrase(task_object_label, language)
    return entity_label(task_object, language, texts) if task_object is not None else None


def _bind(resolver: _Resolver, ref: Reference, task: _TaskObject) -> tuple[list[Entity], str | None] | Ambiguity:
    """What ``ref`` points at, plus the phrase to write when that is the task's object.

    An ellipsis is the task's object; a pronoun nothing in memory fits falls back to it too.
    """
    if ref.category == "ellipsis" and task.phrase:
        return task.entities, task.phrase
    if ref.category == "ellipsis" and not ref.expression:
        return [], None
    bound = resolver.bind(ref)
    if isinstance(bound, Ambiguity):
        return bound
    if not bound and ref.category == "pronoun" and task.phrase:
        return task.entities, task.phrase
    return bound, None


def referent_text(ref: Reference, entity: Entity, language: str, texts: Texts | None = None, *,
                  shown: bool = True) -> str:
    """How the resolved text names what ``ref`` points at: the user's own words for it, or its
    label, in the turn's language. Shown to the user, a type noun is written only where the user
    wrote one ("那个订单" -> "订单12345", "the same order" -> "order 12345", "它" -> "12345"); for
    understanding (``shown=False``) an identifier always carries its type noun ("订单12345")."""
    noun = ref.noun if ref.noun and ref.noun.lower() not in lx.KIND_NOUNS else None
    if not is_identifier(entity.value) or (noun is None and shown):
        return short_label(entity, language, texts)
    if noun is None:
        return entity_label(entity, language, texts)
    label = short_label(entity, language, texts)
    return f"{noun}{label}" if has_cjk(noun) else f"{noun} {label}"


def _edit(ref: Reference, bound: list[Entity], label: str | None, language: str, texts: Texts | None) -> Edit:
    """The words written in place of ``ref``, for understanding and for the user."""
    return (ref.start, ref.end, _replacement(ref, bound, label, language, texts, shown=False),
            _replacement(ref, bound, label, language, texts, shown=True))


def _replacement(ref: Reference, bound: list[Entity], label: str | None, language: str,
                 texts: Texts | None, *, shown: bool) -> str:
    """The task's phrase, or the bound entities' names."""
    written = label or _join([referent_text(ref, e, language, texts, shown=shown) for e in bound], language)
    if ref.possessive:
        written += "'s"
    if ref.category == "ellipsis":
        return _ellipsis_text(ref, written, language)
    return _same_case(ref.expression, written)


def _rewrite(text: str, edits: list[Edit], *, shown: bool) -> str:
    """Apply non-overlapping edits, last first so offsets hold."""
    for start, end, read, seen in sorted(edits, reverse=True):
        text = text[:start] + (seen if shown else read) + text[end:]
    return text


def _ellipsis_text(ref: Reference, label: str, language: str) -> str:
    """zh inserts "将会议" before the verb; en puts "the meeting" after it (or in place of "it")."""
    if ref.expression:
        return label
    return f" {label}" if writing(language).spaced else f"{_ZH_OBJECT_MARKER}{label}"
