"""'I don't care about the price' / '价格无所谓': no preference for the slot the words name.

The said "I don't care" answers the question asked; said about a slot by name, it is that slot's
answer, whichever question is pending. The slot is found through the bot's own words for it (its
labels and name, as '忘记时间' finds one), the name of its entity type ("cuisine" for a type so
named), and the nouns its type's ``any`` value is said with ("any part of town", "任何区域" name
the area). The words around the name are understanding/choices.py's no-preference words. Which of
the slots named is filled (those of the active task whose type declares ``any``) the policy decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from dialogkit.engine.slot_names import SlotNames
from dialogkit.spec.schema import BotFile, LocalizedText, SlotSpec
from dialogkit.text.labels import Texts
from dialogkit.understanding.choices import ANY_WORDS, named, named_any_pattern, named_list_gap
from dialogkit.understanding.language import fold

__all__ = ["NamedAny"]

_ANY_WORD = re.compile("^(?:" + "|".join(w + r"\b\s*" if w.isascii() else w for w in ANY_WORDS) + r")(?=\S)",
                       re.IGNORECASE)
_LONGEST = 300          # a no-preference answer is short; a long text is read as usual


class NamedAny:
    """Finds the slots an utterance says it has no preference for."""

    def __init__(self, spec: BotFile, texts: Texts) -> None:
        self._spec = spec
        self._names = SlotNames(spec, texts, self._type_nouns)
        self._pattern = named_any_pattern(self._names.alternation) if self._names.ways else None
        # Every match holds a slot's name: text naming none (most turns) is ruled out by this alone.
        self._named = re.compile(self._names.alternation) if self._names.ways else None
        # A name standing alone (not inside a longer word), and the gap that joins two into a list.
        self._name = re.compile(rf"(?<![a-z])(?:{self._names.alternation})(?![a-z])") if self._names.ways else None
        self._gap = named_list_gap()

    def slots_in(self, text: str) -> list[str]:
        """The slots ``text`` names with no preference for them, in order of mention (usually none)."""
        if self._pattern is None or self._named is None or len(text) > _LONGEST:
            return []
        said = fold(text).lower()
        if not self._named.search(said):
            return []
        found: list[str] = []
        for match in self._pattern.finditer(said):
            for name in self._listed_with(said, match):
                found.extend(self._names.slots(name))
        return list(dict.fromkeys(found))

    def _listed_with(self, said: str, match: re.Match[str]) -> list[str]:
        """The name the match said, with the names listed beside it: "the rent or the area", "租金和
        区域" are both named by "I don't care about …" / "…都无所谓"."""
        name = named(match)
        key = next(k for k, v in match.groupdict().items() if v == name and k.startswith("n"))
        assert self._name is not None
        names = [(m.start(), m.end(), m.group()) for m in self._name.finditer(said)]
        at = next((i for i, (start, _, _) in enumerate(names) if start == match.start(key)), None)
        if at is None:
            return [name]
        first, last = at, at
        while first > 0 and self._gap.fullmatch(said, names[first - 1][1], names[first][0]):
            first -= 1
        while last + 1 < len(names) and self._gap.fullmatch(said, names[last][1], names[last + 1][0]):
            last += 1
        return [said_name for _, _, said_name in names[first:last + 1]]

    def _type_nouns(self, slot: SlotSpec) -> Iterator[str]:
        """The entity type's name, and the nouns of its ``any`` value: "any cuisine" -> cuisine."""
        entity = self._spec.entities.get(slot.entity or "")
        if entity is None or slot.entity is None:
            return
        yield slot.entity.replace("_", " ")
        entry = (entity.values or {}).get(entity.any) if entity.any is not None else None
        if entry is None:
            return
        aliases, label = (entry, None) if isinstance(entry, list) else (entry.aliases, entry.label)
        labels = [label.zh, label.en] if isinstance(label, LocalizedText) else [label]
        for said in (*(str(a) for a in aliases), *(lab for lab in labels if lab)):
            if _ANY_WORD.match(said):
                yield _ANY_WORD.sub("", said)
