"""Warnings of ``dialogkit validate``: two entity types that read the same words.

Understanding keeps one reading of any words (docs/bot-file.md, "When two types read the same
words"): the longer reading wins, and on the very same words the type declared first. An author
should know where that takes words from a type: one type's alias written wholly inside a longer
alias of another ("万豪" inside "北京JW万豪酒店"), an alias another type's pattern reads whole, two
types with one pattern. One warning per pair of types, so a catalogue of thousands of values says
it once. Aliases two types share exactly are reported apart (``checks_aliases``). An alias that is
a word of a built-in time ("下午", "evening") is warned of too: inside a date or time ("明天下午三点")
the built-in keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from dialogkit.lexicon import LANGUAGES, lexicon
from dialogkit.spec.checks_flow_language import Found
from dialogkit.spec.schema import BotFile
from dialogkit.strings.cjk import has_cjk

__all__ = ["overlap_warnings"]

_LONGEST_SCANNED = 40          # aliases longer than this are names no shorter alias hides in
_WORD_CHAR = re.compile(r"[a-z0-9]")

Pairs = dict[tuple[str, str], list[tuple[str, str]]]    # (type, other type) -> (word, other's word)


def overlap_warnings(spec: BotFile) -> Iterator[Found]:
    """Every overlap warning of the bot file, in declaration order of the types."""
    aliases = {name: _aliases_of(spec, name) for name in spec.entities}
    order = list(spec.entities)
    yield from _inside_longer(aliases)
    yield from _read_by_patterns(spec, aliases, order)
    yield from _same_patterns(spec, order)
    yield from _time_words(aliases)


def _aliases_of(spec: BotFile, name: str) -> set[str]:
    """A type's aliases as the matcher compares them: lower case, spaces collapsed."""
    return {" ".join(a.lower().split()) for values in spec.entities[name].synonyms().values() for a in values} - {""}


def _inside_longer(aliases: dict[str, set[str]]) -> Iterator[Found]:
    owners: dict[str, list[str]] = {}
    for name, words in aliases.items():
        for word in words:
            owners.setdefault(word, []).append(name)
    pairs: Pairs = {}
    for outer_type, words in aliases.items():
        for outer in words:
            for inner in _shorter_readings(outer):
                for inner_type in owners.get(inner, ()):
                    if inner_type != outer_type and inner not in words:
                        pairs.setdefault((inner_type, outer_type), []).append((inner, outer))
    for (inner_type, outer_type), found in pairs.items():
        inner, outer = min(found, key=lambda f: (len(f[1]), f))
        yield (("entities", inner_type),
               f"alias '{inner}' of entity type '{inner_type}' is written inside alias '{outer}' of entity type "
               f"'{outer_type}'{_more(found)}: where that is said, '{outer_type}' keeps the words (the longer "
               f"reading wins)",
               "intended for a name holding it, nothing to do; otherwise remove or lengthen one of the aliases "
               "(docs/bot-file.md, 'When two types read the same words')")


def _shorter_readings(alias: str) -> Iterator[str]:
    """The shorter aliases the matcher could read inside ``alias``: any part of Chinese text, whole
    words of Latin text (no letter or digit right beside them)."""
    if len(alias) > _LONGEST_SCANNED:
        return
    if not has_cjk(alias):
        words = alias.split()
        for size in range(1, len(words)):
            for start in range(len(words) - size + 1):
                yield " ".join(words[start:start + size])
        return
    for start in range(len(alias)):
        for end in range(start + 1, len(alias) + 1):
            if end - start < len(alias) and _edged(alias, start, end):
                yield alias[start:end]


def _edged(text: str, start: int, end: int) -> bool:
    """A Latin part of mixed text is read only where no letter or digit continues it."""
    part = text[start:end]
    if not (_WORD_CHAR.match(part[0]) or _WORD_CHAR.match(part[-1])):
        return True
    before = start > 0 and _WORD_CHAR.match(text[start - 1]) and _WORD_CHAR.match(part[0])
    after = end < len(text) and _WORD_CHAR.match(text[end]) and _WORD_CHAR.match(part[-1])
    return not before and not after


def _read_by_patterns(spec: BotFile, aliases: dict[str, set[str]], order: list[str]) -> Iterator[Found]:
    for pattern_type, entity in spec.entities.items():
        if entity.pattern is None:
            continue
        try:
            pattern = re.compile(entity.pattern, re.IGNORECASE)
        except re.error:
            continue            # reported as an error already
        for alias_type, words in aliases.items():
            read = sorted(w for w in words if alias_type != pattern_type and pattern.fullmatch(w))
            if not read:
                continue
            keeper = min(alias_type, pattern_type, key=order.index)
            found = [(w, w) for w in read]
            yield (("entities", alias_type),
                   f"alias '{read[0]}' of entity type '{alias_type}'{_more(found)} is read whole by the pattern of "
                   f"entity type '{pattern_type}': '{keeper}' keeps it, being declared first",
                   "declare first the type that should keep it, or narrow the pattern "
                   "(docs/bot-file.md, 'When two types read the same words')")


def _same_patterns(spec: BotFile, order: list[str]) -> Iterator[Found]:
    first: dict[str, str] = {}
    for name in order:
        pattern = spec.entities[name].pattern
        if pattern is None:
            continue
        if pattern in first:
            yield (("entities", name, "pattern"),
                   f"entity types '{first[pattern]}' and '{name}' have the same pattern: '{first[pattern]}', "
                   f"declared first, reads every value in running text",
                   f"'{name}' gets a value only as the answer to its own slot's question; merge the types, "
                   "or tell them apart by their patterns")
        else:
            first[pattern] = name


def _time_words(aliases: dict[str, set[str]]) -> Iterator[Found]:
    periods = {w.lower() for language in LANGUAGES for w in lexicon(language).words("day_periods")}
    for name, words in aliases.items():
        read = sorted(words & periods)
        if read:
            found = [(w, w) for w in read]
            yield (("entities", name),
                   f"alias '{read[0]}' of entity type '{name}'{_more(found)} is a word of a built-in time "
                   "(as in '明天下午三点' / 'at 3 in the afternoon'): where a date or time holds it, the time "
                   "keeps the words (the longer reading wins)",
                   "intended for the word alone, nothing to do; otherwise use a longer alias "
                   "(docs/bot-file.md, 'When two types read the same words')")


def _more(found: list[tuple[str, str]]) -> str:
    return f" (and {len(found) - 1} more)" if len(found) > 1 else ""
