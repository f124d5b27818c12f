"""What a number slot counts, read from the bot's own words for it: its label and its questions.

A hotel asks "住几晚？" / "How many nights?" for one integer and "几位入住？" / "How many guests?" for
another; "住两晚，两个人" / "for 2 guests, 3 nights" then says which number is which by the word
after it (晚, 个人, guests, nights). Without a unit the slots of one type still take their
numbers in order, as before. People are counted by many words (the lexicon's ``headcount_units``:
人, 位, 名 / people, guests, adults), so any of them fits a slot whose words count people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from dialogkit.lexicon import words, written_in
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import Prompt, SlotSpec, prompt_text
from dialogkit.strings.cjk import is_cjk_char
from dialogkit.understanding.numbers import CN_NUMERAL_CHARS

__all__ = ["Units", "counts_a_value", "slot_units", "unit_after"]

_PEOPLE = frozenset(words("headcount_units"))      # 人, 位 / people, guests: count people, whatever the slot
_GENERIC = frozenset(words("generic_classifiers"))  # 个: counts whatever was named, so no slot in particular
_NUMERAL = re.compile(rf"^[\d.,\s{CN_NUMERAL_CHARS}几]+")
_NEXT_WORD = re.compile(r"(?<!\s)\s*+([A-Za-z]+)")     # from a run start only: linear on any text


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@dataclass(frozen=True, slots=True)
class Units:
    """The words one number slot is asked and labelled with: Han characters, Latin-script stems."""

    han: frozenset[str]
    latin: frozenset[str]

    @property
    def counts_people(self) -> bool:
        """Whether the slot's own words count people ("几位？", "how many guests?")."""
        return bool(self.han & _PEOPLE or self.latin & _PEOPLE)

    def fits(self, unit: tuple[str, str]) -> bool | None:
        """Whether a number said with ``unit`` counts what this slot counts (None: the unit says nothing).
        A word for people fits a slot whose words count people in any language: "两个人" fills the
        slot asked "how many passengers?"."""
        script, word = unit
        if script == "han":
            if word in _GENERIC:
                return None
            return self.counts_people if word in _PEOPLE else word in self.han
        return self.counts_people if word in _PEOPLE else word in self.latin


def _prompts(slot: SlotSpec) -> Iterable[Prompt | None]:
    yield slot.label
    yield from slot.asks


def _texts(slot: SlotSpec, script: str) -> str:
    """The slot's label and questions in every language written in ``script``."""
    return " ".join(prompt_text(p, language) for language in written_in(script) for p in _prompts(slot))


def slot_units(slot: SlotSpec) -> Units:
    han = frozenset(ch for ch in _texts(slot, "han") if is_cjk_char(ch))
    named = f"{_texts(slot, 'latin')} {slot.name.replace('_', ' ')}"
    latin = frozenset(_stem(w) for w in re.findall(r"[A-Za-z]+", named))
    return Units(han, latin)


def unit_after(mention: Mention, text: str) -> tuple[str, str] | None:
    """The word a number is counted in, with its script: the Chinese measure word its span ends
    with ("两晚", "3位", "两个人" -> han 人), else the English word right after it ("2 nights" ->
    latin night); None without one."""
    tail = _NUMERAL.sub("", mention.text)
    if tail and is_cjk_char(tail[-1]):
        following = text[mention.end:mention.end + 1]
        if tail[-1] in _GENERIC and following and is_cjk_char(following):
            return "han", following          # "三个人": the 个 counts, the 人 says what
        return "han", tail[-1]
    found = _NEXT_WORD.match(text, mention.end)
    return ("latin", _stem(found.group(1))) if found else None


def counts_a_value(mention: Mention, mentions: Iterable[Mention], text: str) -> bool:
    """Whether the number counts a value said right after it ("two yoga classes", "3 lattes"): a
    value of the bot's own types begins where the number's words end."""
    rest = text[mention.end:]
    gap = len(rest) - len(rest.lstrip())
    return any(not m.builtin and m.start == mention.end + gap for m in mentions)
