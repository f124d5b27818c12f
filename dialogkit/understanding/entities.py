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


class SynonymMatcher:
    """Aliases of one synonym type -> canonical values, as one compiled alternation."""

    def __init__(self, synonyms: dict[str, list[str]]) -> None:
        self.canonical: dict[str, str] = {}
        for canonical, aliases in synonyms.items():
            for alias in aliases:
                if alias.strip():
                    self.canonical.setdefault(normalise_alias(alias), canonical)
        ordered = sorted(self.canonical, key=len, reverse=True)
        self._pattern = (
            re.compile(_alias_alternation(ordered), re.IGNORECASE)
            if ordered
            else None
        )

    def find(self, text: str) -> list[Found]:
        if self._pattern is None:
            return []
        found: list[Found] = []
        for match in self._pattern.finditer(text):
            key = normalise_alias(match.group())
            canonical = self.canonical.get(key)  # the usual case: the alias itself, no plural
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

    def __init__(self, name: str, spec: EntityTypeSpec) -> None:
        self.name = name
        self.kind = spec.kind
        try:
            self.pattern = re.compile(spec.pattern) if spec.pattern else None
        except re.error as exc:  # the loader reports this with a position; be clear here too
            raise ValueError(f"entity type {name!r}: bad pattern {spec.pattern!r}: {exc}") from exc
        self.synonyms = SynonymMatcher(spec.synonyms()) if spec.values else None
        labelled = _with_labels(spec) if spec.values else None
        self.labelled = SynonymMatcher(labelled) if labelled and labelled != spec.synonyms() else self.synonyms

    def find(self, text: str, *, labels: bool = False) -> list[Found]:
        """``labels``: a value's labels count as its aliases too (reading one slot's value)."""
        matcher = self.labelled if labels else self.synonyms
        found = matcher.find(text) if matcher else []
        if self.pattern is not None:
            for match in self.pattern.finditer(text):
                if match.end() == match.start():
                    continue
                value = next((g for g in match.groups() if g is not None), match.group())
                found.append(Found(match.start(), match.end(), value))
        return found


def _with_labels(spec: EntityTypeSpec) -> dict[str, list[str]]:
    """Each value's aliases, then its labels: the bot shows "商品损坏" / "wrong item", so a user
    who says it back for a slot ("不对，退货原因是商品损坏") names that value. An alias of another
    value keeps its meaning: a label is no alias where it would take one's place. Only reading a
    given slot's type uses them: in running text a label may be a common word ("电话" in "联系电话")."""
    synonyms = spec.synonyms()
    taken = {normalise_alias(alias) for aliases in synonyms.values() for alias in aliases}
    for canonical, aliases in synonyms.items():
        for language in ("zh", "en"):
            label = spec.label(canonical, language)
            if label.strip() and normalise_alias(label) not in taken:
                aliases.append(label)
                taken.add(normalise_alias(label))
    return synonyms


class EntityExtractor:
    """All entity types of one bot, compiled once."""

    def __init__(self, spec: BotFile) -> None:
        self._spec = spec
        self.custom: dict[str, CustomType] = {
            name: CustomType(name, type_spec) for name, type_spec in spec.entities.items()
        }
        self._order = {name: i for i, name in enumerate([*self.custom, *BUILTIN_FINDERS])}

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
            if type_name in self.custom:
                found = self.custom[type_name].find(folded, labels=labels)
            elif type_name in _NUMERIC:
                if numbers is None:
                    numbers = find_numbers(folded)
                found = numbers if type_name == "number" else integers_of(numbers)
            elif rejected is not None and type_name in READERS:
                found = _possible(READERS[type_name](folded, now), type_name, original, rejected)
            elif type_name in BUILTIN_FINDERS:
                found = BUILTIN_FINDERS[type_name](folded, now)
            else:
                raise ValueError(f"unknown entity type {type_name!r}")
            if not found:      # the common case for most types: nothing to rank or wrap
                continue
            kind = self._spec.entity_kind(type_name)
            builtin = type_name not in self.custom
            mentions += [
                Mention(type_name, f.value, original[f.start : f.end], f.start, f.end, kind, builtin)
                for f in (found if len(found) == 1 else longest_first(found))
            ]
        return sorted(mentions, key=lambda m: (m.start, self._order[m.type]))

    def resolve_overlaps(self, mentions: Iterable[Mention]) -> list[Mention]:
        """One non-overlapping reading: declared types, then longer spans, then built-in order."""

        mentions = list(mentions)
        if len(mentions) < 2:  # most turns: nothing can overlap, and no unit to give back
            return mentions

        def rank(m: Mention) -> tuple[bool, int, int, int]:
            return (m.type not in self.custom, m.start - m.end, self._order[m.type], m.start)

        return non_overlapping(_trim_units(mentions, self.custom), rank)


_NUMERIC = frozenset({"number", "integer"})


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
