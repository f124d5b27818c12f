"""Entity extraction: the bot's declared types (regex, synonyms) plus the built-in ones.

Every matcher is compiled once, when the bot loads. A synonym type is one alternation of all its
aliases, longest first, so at any position the longest alias wins ("笔记本电脑" over "电脑");
Chinese aliases match anywhere (Chinese is written without spaces: "我上周买的手机屏幕碎了"
holds 手机 and 碎了), Latin aliases only as whole words, case-insensitively and with an optional
plural "s" ("phone" is not inside "iphone"; "iPhone" is an alias of its own). Patterns and
aliases run on the folded text (``language.fold``): full-width "１２３４５" is five digits.

Two views of the same text:
- ``find(text, types)``: every mention of the given types; overlaps between types are kept (a
  slot being filled asks for its own type and must see it even where another type also matched).
- ``resolve_overlaps``: one reading of the utterance, for entity memory: non-overlapping and in
  order, declared types before built-ins ("12345" is an order_id, not also a number), then
  the longer span, then the built-in order of ``BUILTIN_FINDERS``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import replace
from datetime import datetime

from dialogkit.model.interpretation import Mention, RejectedValue
from dialogkit.spec.schema import BotFile, EntityTypeSpec
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.builtins import BUILTIN_FINDERS, READERS
from dialogkit.understanding.datetimes import Impossible
from dialogkit.understanding.language import LatinSplit, may_hold_latin
from dialogkit.understanding.numbers import (
    Found,
    find_numbers,
    integers_of,
    longest_first,
    non_overlapping,
)

_LATIN_EDGE = "A-Za-z0-9"


def normalise_alias(text: str) -> str:
    """The lookup key of an alias or a matched surface: lower case, single spaces."""
    return " ".join(text.lower().split())


def _alias_pattern(alias: str) -> str:
    """One alias without its leading edge check (``_alias_alternation`` adds it once)."""
    body = r"\s+".join(re.escape(part) for part in alias.split())
    if has_cjk(alias):
        return body
    plural = "(?:s|es)?" if alias[-1:].isalpha() else ""
    return rf"{body}{plural}(?![{_LATIN_EDGE}])"


def _alias_alternation(ordered: list[str]) -> str:
    """The aliases (longest first) as one alternation: Chinese ones, then Latin ones.

    Latin aliases share one look-behind for the word edge instead of one each, so a position
    costs a single edge check (the alternation is tried at every position of every turn). The
    regrouping keeps the longest-first choice: where a Chinese alias (one holding a Han
    character) and a Latin one both match at a position, the Latin match stops before that Han
    character, so the Latin alias is the strictly shorter one and was after it already.
    """
    chinese = [_alias_pattern(a) for a in ordered if has_cjk(a)]
    latin = [_alias_pattern(a) for a in ordered if not has_cjk(a)]
    if latin:
        chinese.append(rf"(?<![{_LATIN_EDGE}])(?:{'|'.join(latin)})")
    return "|".join(chinese)


def _case_blind(ordered: list[str]) -> re.Pattern[str] | None:
    return re.compile(_alias_alternation(ordered), re.IGNORECASE) if ordered else None


class _Alternation:
    """Aliases (longest first) as one case-blind alternation, compiled for each kind of text too.

    Text holding no Latin letter (most Chinese turns) is scanned for the Chinese aliases alone
    when every other alias needs a letter (``language.LatinSplit``). ASCII text (most English
    turns) is read in lower case without ``re.I`` (a case-blind literal defeats the engine's
    first-character test) for the ASCII aliases, the only ones it can hold; that is exact unless
    an alias holds a non-ASCII letter with a case ("ſ" matches "s" under ``re.I``), and then ASCII
    text keeps the case-blind alternation.
    """

    def __init__(self, ordered: list[str]) -> None:
        self.split = LatinSplit(ordered, _case_blind)
        folds = any(not ch.isascii() and ch.lower() != ch.upper() for alias in ordered for ch in alias)
        self.ascii = None if folds else re.compile(_alias_alternation([a for a in ordered if a.isascii()]) or "(?!)")

    def scan(self, text: str, latin: bool) -> tuple[re.Pattern[str] | None, str]:
        """The pattern for ``text`` (``latin`` False: it holds no Latin letter), and the text it
        reads: ``text`` itself or, ASCII, its lower case (same length, same spans)."""
        if latin and self.ascii is not None and text.isascii():
            return self.ascii, text.lower()
        return self.split.pattern(latin), text


class SynonymMatcher:
    """Aliases of one synonym type -> canonical values, as one compiled alternation."""

    def __init__(self, synonyms: dict[str, list[str]]) -> None:
        self.canonical: dict[str, str] = {}
        for canonical, aliases in synonyms.items():
            for alias in aliases:
                if alias.strip():
                    self.canonical.setdefault(normalise_alias(alias), canonical)
        self._patterns = _Alternation(sorted(self.canonical, key=len, reverse=True))

    def find(self, text: str, latin: bool = True) -> list[Found]:
        """``latin`` False: ``text`` holds no Latin letter (``language.may_hold_latin``)."""
        pattern, read = self._patterns.scan(text, latin)
        if pattern is None:
            return []
        found: list[Found] = []
        for match in pattern.finditer(read):
            canonical = self.canonical.get(match.group())  # the usual case: an alias as written
            if canonical is None:
                key = normalise_alias(match.group())      # a key is its own normal form
                canonical = self.canonical.get(key)
            if canonical is None:
                canonical = next((self.canonical[k] for k in _singulars(key) if k in self.canonical), None)
            if canonical is not None:
                found.append(Found(match.start(), match.end(), canonical))
        return found

    def aliases(self) -> list[str]:
        return list(self.canonical)


def _singulars(key: str) -> list[str]:
    """Keys the plural ending the alias pattern allows may have been added to."""
    return [
        key[: -len(suffix)]
        for suffix in ("s", "es")
        if key.endswith(suffix) and len(key) > len(suffix)
    ]


class CustomType:
    """One declared entity type: its regex and/or its synonym dictionary."""

    def __init__(self, name: str, spec: EntityTypeSpec, claimed: frozenset[str] = frozenset()) -> None:
        self.name = name
        self.kind = spec.kind
        try:
            self.pattern = re.compile(spec.pattern) if spec.pattern else None
        except re.error as exc:  # the loader reports this with a position; be clear here too
            raise ValueError(f"entity type {name!r}: bad pattern {spec.pattern!r}: {exc}") from exc
        self.synonyms: SynonymMatcher | None = None
        self.labelled: SynonymMatcher | None = None
        if spec.values:
            self.synonyms = SynonymMatcher(_with_labels(spec, claimed))
            self.labelled = SynonymMatcher(_with_labels(spec))

    def find(self, text: str, *, labels: bool = False, latin: bool = True) -> list[Found]:
        """``labels``: a value's labels count as its aliases too (reading one slot's value);
        ``latin`` False: ``text`` holds no Latin letter."""
        matcher = self.labelled if labels else self.synonyms
        found = matcher.find(text, latin) if matcher else []
        if self.pattern is not None:
            grouped = self.pattern.groups > 0
            for match in self.pattern.finditer(text):
                start, end = match.span()
                if end == start:
                    continue
                value = next((g for g in match.groups() if g is not None), match.group()) if grouped else match.group()
                found.append(Found(start, end, value))
        return found


def _with_labels(spec: EntityTypeSpec, claimed: frozenset[str] | None = None) -> dict[str, list[str]]:
    """Each value's aliases, then its labels: the bot shows "商品损坏" / "wrong item", so a user
    who says it back ("不对，退货原因是商品损坏") names that value. An alias of another value keeps
    its meaning: a label is no alias where it would take one's place.

    Reading one slot's type takes every label (``claimed`` None). Running text takes the labels
    that hold an alias of some declared type (``claimed``, normalised): their words are a value's
    anyway, and the label says which ("平板电脑" is a tablet, not the laptop "电脑"); and labels long
    enough to be no common word (``_specific``: "商品损坏", "any available manager"). A short label
    holding no alias may be an everyday word ("电话" in "联系电话") and is left out."""
    synonyms = spec.synonyms()
    taken = {normalise_alias(alias) for aliases in synonyms.values() for alias in aliases}
    for canonical, aliases in synonyms.items():
        for language in ("zh", "en"):
            label = spec.label(canonical, language)
            key = normalise_alias(label)
            if claimed is not None and not _specific(key) and not any(_holds(key, alias) for alias in claimed):
                continue
            if label.strip() and key not in taken:
                aliases.append(label)
                taken.add(normalise_alias(label))
    return synonyms


def _specific(label: str) -> bool:
    """A label of three Chinese characters or more, or of two words or more."""
    return len(label) >= 3 if has_cjk(label) else len(label.split()) >= 2


def _holds(label: str, alias: str) -> bool:
    """Whether ``label`` holds ``alias`` as a value would be read in it (Latin ones as whole words)."""
    if alias not in label:
        return False
    return has_cjk(alias) or re.search(rf"(?<![a-z0-9]){re.escape(alias)}(?![a-z0-9])", label) is not None


class _AliasLook:
    """Whether any alias of the bot's synonym types is in a text: one scan instead of one per type.

    Most turns ("123456", "确认", "yes") name no value, and each type's scan costs as much as this
    one. A type's match is a match of its own branch here, so nothing that holds an alias is
    missed; each kind of text is scanned as the types scan it (``_Alternation``).
    """

    def __init__(self, aliases: Iterable[str]) -> None:
        self._patterns = _Alternation(sorted(set(aliases), key=len, reverse=True))

    def search(self, folded: str, latin: bool = True) -> bool:
        """``latin`` False: ``folded`` holds no Latin letter (``language.may_hold_latin``)."""
        pattern, read = self._patterns.scan(folded, latin)
        return pattern is not None and pattern.search(read) is not None


class EntityExtractor:
    """All entity types of one bot, compiled once."""

    def __init__(self, spec: BotFile) -> None:
        claimed = frozenset(normalise_alias(alias) for type_spec in spec.entities.values()
                            for aliases in type_spec.synonyms().values() for alias in aliases if alias.strip())
        self.custom: dict[str, CustomType] = {
            name: CustomType(name, type_spec, claimed) for name, type_spec in spec.entities.items()
        }
        self._order = {name: i for i, name in enumerate([*self.custom, *BUILTIN_FINDERS])}
        self._kinds = {name: spec.entity_kind(name) for name in self._order}
        self._aliases = _AliasLook(k for c in self.custom.values() if c.synonyms for k in c.synonyms.canonical)
        self._aliases_only = frozenset(name for name, c in self.custom.items() if c.pattern is None)

    def known(self, type_name: str) -> bool:
        return type_name in self.custom or type_name in BUILTIN_FINDERS

    def find(self, original: str, folded: str, types: Collection[str], now: datetime,
             rejected: list[RejectedValue] | None = None, *, labels: bool = False) -> list[Mention]:
        """Every mention of ``types`` in the text, in text order; overlaps across types kept.

        Dates and times are read relative to ``now`` (the bot's local time of the turn).

        ``folded`` is the matching text (``language.fold``), ``original`` what the user wrote:
        spans are identical in both, mentions carry the original surface. A built-in type's
        mention is marked ``builtin``. Given a ``rejected`` list, dates and times in the right
        form but impossible ("2月30日", "25:00") are added to it.
        """
        mentions: list[Mention] = []
        numbers: list[Found] | None = None  # number and integer read the same numerals: once
        # One look for every alias, when a type that has nothing but aliases is asked for
        unlooked = labels or self._aliases_only.isdisjoint(types)
        latin = unlooked or may_hold_latin(folded)
        aliases = unlooked or self._aliases.search(folded, latin)
        for type_name in types:
            custom = self.custom.get(type_name)
            if custom is not None:
                if not aliases and custom.pattern is None:
                    continue
                found = custom.find(folded, labels=labels, latin=latin)
            elif type_name in _NUMERIC:
                if numbers is None:
                    numbers = find_numbers(folded)
                found = numbers if type_name == "number" else integers_of(numbers)
            elif rejected is not None and type_name in READERS:
                found = READERS[type_name](folded, now)
                found = _possible(found, type_name, original, rejected) if found else found
            elif type_name in BUILTIN_FINDERS:
                found = BUILTIN_FINDERS[type_name](folded, now)
            else:
                raise ValueError(f"unknown entity type {type_name!r}")
            if found:          # the common case for most types: nothing to rank or wrap
                mentions += self._mentions(type_name, found, original)
        if len(mentions) < 2:
            return mentions
        return sorted(mentions, key=lambda m: (m.start, self._order[m.type]))

    def _mentions(self, type_name: str, found: list[Found], original: str) -> list[Mention]:
        kind, builtin = self._kinds[type_name], type_name not in self.custom
        return [
            Mention(type_name, f.value, original[f.start : f.end], f.start, f.end, kind, builtin)
            for f in (found if len(found) == 1 else longest_first(found))
        ]

    def resolve_overlaps(self, mentions: Iterable[Mention]) -> list[Mention]:
        """One non-overlapping reading: declared types, then longer spans, then built-in order."""

        mentions = list(mentions)
        if len(mentions) < 2 or _disjoint(mentions):  # most turns: nothing overlaps, no unit to give back
            return mentions

        def rank(m: Mention) -> tuple[bool, int, int, int]:
            return (m.type not in self.custom, m.start - m.end, self._order[m.type], m.start)

        return non_overlapping(_trim_units(mentions, self.custom), rank)


_NUMERIC = frozenset({"number", "integer"})


def _disjoint(mentions: list[Mention]) -> bool:
    """Non-empty spans in text order, none overlapping the next: every one is kept as it is, in
    that order, and no unit is inside a number."""
    end = 0
    for m in mentions:
        if m.start < end or m.start >= m.end:
            return False
        end = m.end
    return True


def _possible(found: list[Found], type_name: str, original: str, rejected: list[RejectedValue]) -> list[Found]:
    """The possible values of ``found``; the impossible ones go to ``rejected``."""
    if not found:
        return found
    kept: list[Found] = []
    for f in found:
        if isinstance(f.value, Impossible):
            rejected.append(RejectedValue(type_name, original[f.start : f.end], f.start, f.end, f.value.reason))
        else:
            kept.append(f)
    return kept


def _trim_units(mentions: list[Mention], custom: Collection[str]) -> list[Mention]:
    """Give a unit word back to the declared type that claims it: "150 dollars" is the number 150
    *and* the currency "dollars", not a currency alone (docs/bot-file.md: "150 dollars" is 150)."""
    claimed = [m for m in mentions if m.type in custom]
    if not claimed:
        return mentions
    out: list[Mention] = []
    for m in mentions:
        if m.type in _NUMERIC:
            for c in claimed:
                if m.start < c.start < m.end <= c.end:          # the unit trails the number
                    head = m.text[: c.start - m.start].rstrip()
                    m = replace(m, end=m.start + len(head), text=head)
                elif c.start <= m.start < c.end < m.end:        # the unit leads ("$150" with "$" declared)
                    tail = m.text[c.end - m.start:]
                    stripped = tail.lstrip()
                    m = replace(m, start=m.end - len(stripped), text=stripped)
        out.append(m)
    return out
