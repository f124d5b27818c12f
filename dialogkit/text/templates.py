"""A bot file's template with an empty value: the value leaves with the words that lead to it.

An optional slot left empty would otherwise leave its label or joiner dangling: "一杯拿铁，加料：，
确认吗？" / "A latte with , OK?". The rule holds for any template in any language, by its
punctuation alone:

- The empty placeholder goes with its label, the words before it in its clause that end in a
  colon ("加料：{extras}", "Extras: {extras}"), or with the words joining it to an earlier value
  of its clause ("{drink} with {extras}", "{drink}和{extras}", "{drink} con {extras}").
- A clause left with nothing in it goes with one of its marks: the one before it, unless that one
  ends a sentence and the one after does not ("一杯拿铁，确认吗？", "好的。谢谢" not "好的，谢谢").
- Other words stay, and no space is left before punctuation or doubled ("Hi {name}!" -> "Hi!").

A template that would keep no word at all renders as before, the placeholder merely empty.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping

__all__ = ["fill"]

_CLAUSE_MARKS = "，,；;、"
_SENTENCE_MARKS = "。.？?！!\n"
_MARKS = _CLAUSE_MARKS + _SENTENCE_MARKS
_COLONS = "：:"
_BRACES = re.compile(r"\{([^{}]*)\}")


@functools.lru_cache(maxsize=1024)
def _pieces(template: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The template's literal texts and, between them, the names of its placeholders (braces
    naming nothing stay in the text); and the texts as one ``str.format`` string taking the values
    in order, the way a template with every value said is filled (in C, not joined piece by piece)."""
    texts: list[str] = []
    names: list[str] = []
    at = 0
    for match in _BRACES.finditer(template):
        name = match.group(1).strip()
        if not name:
            continue
        texts.append(template[at:match.start()])
        names.append(name)
        at = match.end()
    texts.append(template[at:])
    at_once = "{}".join(text.replace("{", "{{").replace("}", "}}") for text in texts)
    return tuple(texts), tuple(names), at_once


def fill(template: str, values: Mapping[str, str], missing: Callable[[str], str] | None = None) -> str:
    """``template`` with its placeholders filled; an empty value leaves with its label or joiner
    (the rule in the module docstring). A name ``values`` lacks is rendered by ``missing`` (else
    looked up, for a mapping that renders it itself)."""
    texts, names, at_once = _pieces(template)
    if missing is None:
        shown = [values[name] for name in names]
    else:
        shown = [values[name] if name in values else missing(name) for name in names]
    if all(shown):
        return at_once.format(*shown)
    kept = list(texts)
    for k, value in enumerate(shown):
        if not value:
            _drop_empty(kept, shown, k)
    tidy = "".join(_interleave(kept, shown))
    if not any(ch.isalnum() for ch in tidy):
        return "".join(_interleave(list(texts), shown))
    return tidy


def _interleave(texts: list[str], shown: list[str]) -> list[str]:
    out = [texts[0]]
    for value, text in zip(shown, texts[1:], strict=True):
        out += [value, text]
    return out


def _last_mark(text: str) -> int:
    """Where the clause holding the end of ``text`` begins (0: it began before ``text``)."""
    return max(text.rfind(mark) for mark in _MARKS) + 1


def _drop_empty(texts: list[str], shown: list[str], k: int) -> None:
    """Take placeholder ``k``'s label or joiner out of the text before it, and a clause it leaves
    empty out with one of its marks."""
    before, after = texts[k], texts[k + 1]
    last = k + 1 == len(shown)
    cut = _last_mark(before)
    lead = before[cut:]
    joins_earlier = cut == 0 and k > 0 and bool(shown[k - 1])
    if lead.rstrip().endswith(tuple(_COLONS)) or joins_earlier:
        before = before[:cut]
    rest = after.lstrip()
    starts_clause = cut > 0 or k == 0
    ends_clause = rest[:1] in tuple(_MARKS) or (rest == "" and last)
    if starts_clause and ends_clause and not before[cut:].strip():
        before, after = _drop_a_mark(before[:cut], after)
    elif before[-1:].isspace() and (after[:1].isspace() or rest[:1] in tuple(_MARKS) or (after == "" and last)):
        before = before.rstrip()
    texts[k], texts[k + 1] = before, after


def _drop_a_mark(before: str, after: str) -> tuple[str, str]:
    """An emptied clause between the mark ending ``before`` (if any) and the one opening ``after``
    (if any): drop one of them, the weaker (a clause's mark before a sentence's), the one before
    when they are alike. A sentence's mark with nothing after it stays."""
    rest = after.lstrip()
    mark_before, mark_after = before[-1:], rest[:1]
    if not mark_before:
        return before, rest[1:].lstrip()
    if mark_before in _SENTENCE_MARKS and mark_after not in tuple(_SENTENCE_MARKS):
        return before, rest[1:] if mark_after else after
    return before[:-1], after
