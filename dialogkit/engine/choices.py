"""Choices from an action (``choices: {action: NAME}``): the options a question lists, and which
one an answer picks.

The action runs when the question is asked and again when it is answered, so the bot keeps no
copy of a list that may have changed in between (a user's recent orders). A failing action, or
one that returns no list, leaves a free-form question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dialogkit.lexicon import languages, lexicon_of_script
from dialogkit.memory.lexicon import EN_ORDINALS, ZH_NUMERALS, ZH_ORDINAL_PREFIX
from dialogkit.text.phrases import enumerate_items, phrase

_HAN = lexicon_of_script("han")
_ZH_CLASSIFIER = f"[{_HAN.chars('ordinal_classifiers')}]?"
_ZH_ORDINAL = re.compile(rf"{ZH_ORDINAL_PREFIX}\s*([{''.join(ZH_NUMERALS)}]|\d+)\s*{_ZH_CLASSIFIER}")
_ZH_LAST = re.compile(f"(?:{'|'.join(_HAN.words('last_one'))}){_ZH_CLASSIFIER}")
_EN_ORDINAL = re.compile(r"\b(" + "|".join(sorted(EN_ORDINALS, key=len, reverse=True)) + r")\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Choice:
    value: Any
    labels: dict[str, str]          # language -> label

    def label(self, language: str) -> str:
        """The label in ``language``; an action that labels in zh and en only is shown in en to another."""
        return self.labels.get(language) or self.labels.get("en") or next(iter(self.labels.values()), str(self.value))


def parse_choices(result: Mapping[str, Any]) -> list[Choice] | None:
    """The action's list (``[{value, label: {zh, en}}]``, returned bare or as ``choices``), or None."""
    items = result.get("choices", result.get("result"))
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        return None
    out: list[Choice] = []
    for item in items:
        if not isinstance(item, Mapping) or "value" not in item:
            return None
        label = item.get("label")
        labels = dict(label) if isinstance(label, Mapping) else dict.fromkeys(languages(), str(label or item["value"]))
        out.append(Choice(value=item["value"], labels={k: str(v) for k, v in labels.items()}))
    return out


def ordinal_index(text: str) -> int | None:
    """The 0-based position an ordinal names ("第二个" 1, "the last one" -1), or None."""
    if _ZH_LAST.search(text):
        return -1
    if (zh := _ZH_ORDINAL.search(text)) is not None:
        raw = zh.group(1)
        return (int(raw) if raw.isdigit() else ZH_NUMERALS[raw]) - 1
    if (en := _EN_ORDINAL.search(text)) is not None:
        return EN_ORDINALS[en.group(1).lower()]
    return None


def pick(choices: Sequence[Choice], text: str, offered: Any = None) -> Choice | None:
    """The choice an answer names: the value the understanding found, a label or value written
    in the text (longest first), or an ordinal."""
    if offered is not None:
        found = next((c for c in choices if str(c.value) == str(offered)), None)
        if found is not None:
            return found
    lowered = text.lower()
    named = [(len(s), c) for c in choices for s in (str(c.value), *c.labels.values()) if s and s.lower() in lowered]
    if named:
        return max(named, key=lambda pair: pair[0])[1]
    index = ordinal_index(text)
    if index is not None and -len(choices) <= index < len(choices):
        return choices[index]
    return None


def listed(ask: str, choices: Sequence[Choice], language: str) -> str:
    """The question followed by the options' labels."""
    items = enumerate_items([c.label(language) for c in choices], language)
    return phrase("options_listed", language, ask=ask, items=items)


def outside(value: Any, language: str) -> str:
    """The refusal of a value that is not among the choices (the question after it lists them)."""
    return phrase("not_an_option", language, value=value)
