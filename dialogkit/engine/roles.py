"""Roles: which of two slots of one entity type a value fills, by the words the slot declares.

A metro trip has an origin and a destination, both stations. Read in order, "到国贸" would fill
the origin, the first empty slot; its 到 says it is the destination. Each slot's ``role`` gives
words said right before its value (从, from; 到, to) and words said right after it (出发 in
"西单出发"). A word before the value decides first, so in "从西单到国贸" the 到 after 西单 names
国贸's slot, not 西单's. A value with no role word is left to the order of mention, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dialogkit import lexicon
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec, SlotSpec
from dialogkit.understanding.numbers import CN_NUMERAL_CHARS

__all__ = ["RoleWords", "by_role", "role_words"]

_LOOK_BACK = 40     # characters before a value searched for a role word: the words sit right there


def _between() -> str:
    """What may stand between a role word and its value: an article ("to the airport") or a count
    ("到两杯…", "几个")."""
    determiners, classifiers = lexicon.words("value_determiners"), lexicon.words("item_classifiers")
    counts = "".join([CN_NUMERAL_CHARS, *lexicon.words("some_number")])
    parts = [*([rf"(?:{lexicon.alternation(determiners)})\s+"] if determiners else []),
             *([f"[{counts}]?[{''.join(classifiers)}]"] if classifiers else [])]
    return f"(?:{'|'.join(parts)})?"


_BETWEEN = _between()


def _alternation(words: Iterable[str]) -> str:
    """The words, longest first, a Latin word kept whole (the "to" of "into" is no role word)."""
    parts = []
    for word in sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True):
        escaped = re.escape(word).replace(r"\ ", r"\s+")
        head = r"(?<![A-Za-z])" if word[0].isascii() and word[0].isalpha() else ""
        tail = r"(?![A-Za-z])" if word[-1].isascii() and word[-1].isalpha() else ""
        parts.append(f"{head}{escaped}{tail}")
    return "|".join(parts)


@dataclass(frozen=True, slots=True)
class RoleWords:
    """One slot's role words, as patterns: ending right before a value, starting right after it."""

    before: re.Pattern[str] | None
    after: re.Pattern[str] | None

    @classmethod
    def of(cls, slot: SlotSpec) -> RoleWords | None:
        role = slot.role_words
        return None if role is None else cls.of_words(role.before, role.after)

    @classmethod
    def of_words(cls, before: Iterable[str], after: Iterable[str]) -> RoleWords:
        """Words said right before or right after a value. An article or a count may stand between
        a word before and its value: "from the Bank", "also a gym", "再加一个健身房"."""
        words_before, words_after = _alternation(before), _alternation(after)
        return cls(
            before=re.compile(rf"(?:{words_before})\s*{_BETWEEN}$", re.IGNORECASE) if words_before else None,
            after=re.compile(rf"\s*(?:{words_after})", re.IGNORECASE) if words_after else None,
        )

    def said_before(self, mention: Mention, text: str) -> int:
        """How many characters of role word stand right before the value (0: none)."""
        if self.before is None:
            return 0
        found = self.before.search(text, max(0, mention.start - _LOOK_BACK), mention.start)
        return len(found.group(0)) if found else 0

    def said_after(self, mention: Mention, text: str) -> int:
        if self.after is None:
            return 0
        found = self.after.match(text, mention.end)
        return len(found.group(0)) if found else 0


def role_words(flow: FlowSpec) -> dict[str, RoleWords]:
    """The flow's slots that declare role words, by name (what ``SlotLayout`` keeps per flow)."""
    return {slot.name: words for slot in flow.slots if (words := RoleWords.of(slot)) is not None}


def _role_of(mention: Mention, text: str, words: Mapping[str, RoleWords]) -> str | None:
    """The slot whose role words stand beside the value: a word before it first, else one after it;
    the longer word when two slots' words both fit ("出去" beside "去")."""
    for said in (RoleWords.said_before, RoleWords.said_after):
        lengths = {name: said(w, mention, text) for name, w in words.items()}
        best = max(lengths.values(), default=0)
        named = [name for name, length in lengths.items() if length and length == best]
        if len(named) == 1:
            return named[0]
    return None


def by_role(words: Mapping[str, RoleWords], slots: Sequence[SlotSpec], said: Sequence[Mention],
            text: str) -> tuple[dict[str, list[Mention]], list[Mention]]:
    """The values role words give to one of ``slots`` (slot -> its values, in order of mention), and
    the values no role word places, left to the order of mention."""
    among = {slot.name: words[slot.name] for slot in slots if slot.name in words}
    placed: dict[str, list[Mention]] = {}
    rest: list[Mention] = []
    for mention in said:
        name = _role_of(mention, text, among) if among else None
        if name is None:
            rest.append(mention)
        else:
            placed.setdefault(name, []).append(mention)
    return placed, rest
