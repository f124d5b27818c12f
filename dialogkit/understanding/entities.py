"""Entity extraction: the bot's declared types (regex, synonyms) plus the built-in ones.

Every matcher is compiled once, when the bot loads. A synonym type is one Aho–Corasick automaton
of all its aliases (``alias_automaton``), so at any position the longest alias wins ("笔记本电脑"
over "电脑") and a turn costs the same with ten values as with fifty thousand; Chinese aliases
match anywhere (Chinese is written without spaces: "我上周买的手机屏幕碎了"
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

import itertools
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from dialogkit.lexicon import auto_languages
from dialogkit.model.interpretation import Mention, RejectedValue
from dialogkit.spec.alias_table import AliasTable, alias_table, table_of
from dialogkit.spec.schema import BotFile, EntityTypeSpec, prompt_text
from dialogkit.strings.aliases import normalise_aliases
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.alias_automaton import AliasAutomaton
from dialogkit.understanding.builtins import BUILTIN_FINDERS, READERS
from dialogkit.understanding.datetimes import Impossible
from dialogkit.understanding.numbers import (
    Found,
    find_numbers,
    integers_of,
    longest_first,
    non_overlapping,
)

if TYPE_CHECKING:
    from dialogkit.understanding.fuzzy_aliases import FuzzyAliases


class SynonymMatcher:
    """Aliases of one synonym type -> canonical values, found by one automaton (``alias_automaton``).

    ``labels`` are (canonical, label, running) triples: further words naming a value, read in
    any text when ``running``, else only when asked for (``find(labels=True)``: reading one slot's
    value). Where an alias and a label, or two labels, are the same words, the first keeps them.
    """

    def __init__(self, synonyms: dict[str, list[str]],
                 labels: Callable[[dict[str, str]], Iterable[tuple[str, str, bool]]] | None = None,
                 *, table: AliasTable | None = None) -> None:
        """``labels`` gives the labels (normalised) from the aliases taken (normalised alias -> value);
        ``table``, the type's aliases already normalised (``alias_table``), stands for ``synonyms``."""
        # alias or label read in running text -> value
        self.canonical: dict[str, str] = dict((table or table_of(synonyms)).owners)
        asked: list[tuple[str, tuple[str, bool]]] = []
        for canonical, label, running in labels(self.canonical) if labels is not None else ():
            if running:
                self.canonical.setdefault(label, canonical)
            else:
                asked.append((label, (canonical, True)))
        said = {canonical: (canonical, False) for canonical in dict.fromkeys(self.canonical.values())}  # one a value
        self._automaton: AliasAutomaton[tuple[str, bool]] = AliasAutomaton(
            [*((alias, said[canonical]) for alias, canonical in self.canonical.items()), *asked], keyed=True)

    def find(self, text: str, *, labels: bool = False) -> list[Found]:
        """The values named in ``text``; ``labels``: every label of a value counts as its alias."""
        keep = None if labels else _in_running_text
        return [Found(m.start, m.end, m.payload[0]) for m in self._automaton.find(text, keep)]

    def aliases(self) -> list[str]:
        return list(self.canonical)


def _in_running_text(payload: tuple[str, bool]) -> bool:
    return not payload[1]


class CustomType:
    """One declared entity type: its regex and/or its synonym dictionary."""

    def __init__(self, name: str, spec: EntityTypeSpec, claimed: Callable[[], AliasAutomaton[None]] | None = None
                 ) -> None:
        self.name = name
        self.kind = spec.kind
        try:
            self.pattern = re.compile(spec.pattern) if spec.pattern else None
        except re.error as exc:  # the loader reports this with a position; be clear here too
            raise ValueError(f"entity type {name!r}: bad pattern {spec.pattern!r}: {exc}") from exc
        self.synonyms: SynonymMatcher | None = None
        self.typos: FuzzyAliases | None = None
        if spec.values:
            every = claimed or (lambda: AliasAutomaton(()))
            self.synonyms = SynonymMatcher({}, lambda taken: _labels(spec, set(taken), every), table=alias_table(spec))
            if spec.fuzzy:
                # Imported here: rapidfuzz costs a process some 4 MB, paid only by a bot with typos to read.
                from dialogkit.understanding.fuzzy_aliases import FuzzyAliases

                self.typos = FuzzyAliases(self.synonyms.canonical, spec.fuzzy)

    def find(self, text: str, *, labels: bool = False) -> list[Found]:
        """``labels``: a value's labels count as its aliases too (reading one slot's value)."""
        found = self.synonyms.find(text, labels=labels) if self.synonyms else []
        if self.pattern is not None:
            grouped = self.pattern.groups > 0
            for match in self.pattern.finditer(text):
                start, end = match.span()
                if end == start:
                    continue
                value = next((g for g in match.groups() if g is not None), match.group()) if grouped else match.group()
                found.append(Found(start, end, value))
        return found


def _labels(spec: EntityTypeSpec, taken: set[str], claimed: Callable[[], AliasAutomaton[None]]
            ) -> list[tuple[str, str, bool]]:
    """Each value's labels as further aliases: the bot shows "商品损坏" / "wrong item", so a user
    who says it back ("不对，退货原因是商品损坏") names that value. An alias of another value keeps
    its meaning: a label is no alias where it would take one's place (``SynonymMatcher``).

    Reading one slot's type takes every label. Running text takes the labels that hold an alias
    of some declared type (``claimed``): their words are a value's anyway, and the label says
    which ("平板电脑" is a tablet, not the laptop "电脑"); and labels long enough to be no common
    word (``_specific``: "商品损坏", "any available manager"). A short label holding no alias may
    be an everyday word ("电话" in "联系电话") and is read only when its slot is asked."""
    labelled = [(canonical, prompt_text(entry.label, language)) for canonical, entry in (spec.values or {}).items()
                if not isinstance(entry, list) and entry.label is not None for language in auto_languages()]
    keys = normalise_aliases([label for _, label in labelled])
    fresh = set(keys) - taken       # a catalogue's labels are mostly its aliases: those are passed over in C
    out: list[tuple[str, str, bool]] = []
    for (canonical, _), key in itertools.compress(zip(labelled, keys, strict=True), map(fresh.__contains__, keys)):
        if key and key not in taken:        # an alias's words keep their value
            taken.add(key)
            out.append((canonical, key, _specific(key) or claimed().holds(key, plural=False)))
    return out


def _specific(label: str) -> bool:
    """A label of three Chinese characters or more, or of two words or more."""
    return len(label) >= 3 if has_cjk(label) else len(label.split()) >= 2


class EntityExtractor:
    """All entity types of one bot, compiled once."""

    def __init__(self, spec: BotFile) -> None:
        claimed = cache(lambda: AliasAutomaton[None](
            (alias, None) for type_spec in spec.entities.values()
            for aliases in type_spec.synonyms().values() for alias in aliases))
        self.custom: dict[str, CustomType] = {
            name: CustomType(name, type_spec, claimed) for name, type_spec in spec.entities.items()
        }
        self._order = {name: i for i, name in enumerate([*self.custom, *BUILTIN_FINDERS])}
        self._kinds = {name: spec.entity_kind(name) for name in self._order}

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
        for type_name in types:
            custom = self.custom.get(type_name)
            if custom is not None:
                found = custom.find(folded, labels=labels)
                if custom.typos is not None:
                    typos = custom.typos.find(folded, found)
                    mentions += [replace(m, fuzzy=True) for m in self._mentions(type_name, typos, original)]
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
        return self.in_text_order(mentions)

    def in_text_order(self, mentions: list[Mention]) -> list[Mention]:
        """``mentions`` by start, at one start by type (declared, then ``BUILTIN_FINDERS`` order);
        one type's mentions keep their order (the sort is stable), so the types may be read apart."""
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

        return non_overlapping(_trim_units(_outside_moments(mentions, self.custom), self.custom), rank)


_NUMERIC = frozenset({"number", "integer"})
_MOMENTS = frozenset({"date", "time"})


def _outside_moments(mentions: list[Mention], custom: Collection[str]) -> list[Mention]:
    """A declared alias wholly inside a longer date or time ("下午" of "明天下午三点", "evening" of
    "at 7 in the evening") is part of that moment: the built-in's longer reading wins, so the
    bot's word for something else never breaks a time into pieces."""
    moments = [m for m in mentions if m.type in _MOMENTS and m.type not in custom]
    if not moments:
        return mentions
    return [m for m in mentions if m.type not in custom or not any(
        t.start <= m.start and m.end <= t.end and t.end - t.start > m.end - m.start for t in moments)]


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
