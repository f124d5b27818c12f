"""A flow named by its values, not its words: "明天晚上8点6个人有位子吗？" brings a date, a time and
a number of people, and only the booking flow has slots for a date and a time, so the turn asks
for a booking though no word of its trigger is there.

A turn that only mentions things starts nothing ("我昨天喝了中杯摩卡"): the values name a flow when
the turn also asks (a question) or requests (a request word of the lexicon).

One value is too little ("明天有位子吗？" names no booking), unless it names a place or a person of
the bot's own ("颐和园的门票多少钱？", "what's the phone number of Nandos?"): a question about a named
referent only one flow takes is a question for that flow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from dialogkit.lexicon import alternation, starts, word_pattern, words
from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import FlowSpec
from dialogkit.understanding.cues import is_question
from dialogkit.understanding.value_questions import sets_nothing

__all__ = ["MIN_TYPES", "REQUEST", "flow_of_values", "last_flow_of_values", "negation_before", "said_as_wish"]

MIN_TYPES = 2
"""Values of at least this many types, all the flow's: one date alone names no booking."""

NAMED = frozenset({"place", "person"})
"""The kinds of a bot's own type whose value, alone, is what a question is about: a named referent."""

_ACCEPT = word_pattern("acceptance_words")
REQUEST = word_pattern("request_words")
_DECLINED = re.compile(rf"(?<![a-z])(?:{alternation(words('declined_request'))})\s*$", re.IGNORECASE)
"""A negation right before a request word ("不感兴趣", "don't want"): it asks for nothing."""


Span = tuple[int, int]


def flow_of_values(flows: Mapping[str, FlowSpec], mentions: Sequence[Mention], text: str,
                   labels: Sequence[Span] = ()) -> str | None:
    """The one flow whose slots take every type of value the turn brings (at least ``MIN_TYPES``, or
    one a request word asks for, or one named referent), one of them a type no other flow takes,
    when the turn asks or requests;
    else None. ``labels`` are the spans of words naming a slot: a request word inside them asks
    for nothing."""
    requested = _requests(text, [*labels, *((m.start, m.end) for m in mentions)])   # "都可以联系" asks nothing
    if not (requested or is_question(text)):
        return None
    kept = [m for m in mentions if not _waived(m, text)]
    said = {m.type for m in kept}
    if len(said) < MIN_TYPES and not (said and (requested or all(_named(m) for m in kept))):
        return None
    taking = {name: flow.value_types for name, flow in flows.items()}
    fits = [name for name, types in taking.items() if said <= types]
    chosen = fits[0] if len(fits) == 1 else _needing(flows, fits, said)
    if chosen is None:
        return None
    others = set().union(*(types for name, types in taking.items() if name not in fits))
    return chosen if said - others else None


def said_as_wish(text: str, labels: Sequence[Span] = ()) -> bool:
    """Whether the turn asks, requests or accepts ("有川菜吗？", "要川菜", "那就川菜吧" / "do you have
    korean?", "I want korean", "korean, then"): its values are wishes, not facts mentioned."""
    return is_question(text) or _requests(text, labels) or bool(_ACCEPT.search(text))


def last_flow_of_values(flows: Mapping[str, FlowSpec], last: str | None, mentions: Sequence[Mention],
                        text: str, said: str | None = None, labels: Sequence[Span] = ()) -> str | None:
    """"Indian please." / "川菜吧" after a search: values the last task's flow takes, said as a wish
    or asked about, repeat that flow with them; else None. ``said`` is what the user wrote, when
    ``text`` has references written out: a referent is no value said."""
    if last is None or last not in flows or not said_as_wish(text, labels):
        return None
    kept = [m for m in mentions if not _waived(m, text) and not _asked_about(m, mentions, text)
            and (said is None or m.text in said)]
    takes = flows[last].value_types
    return last if kept and all(m.type in takes for m in kept) else None


def _requests(text: str, labels: Sequence[Span]) -> bool:
    """A request word outside the words that name a slot: "order" asks in "I'd like to order a
    mocha" but names a slot in "I have order number 12345", as 预订 does in "预订号是A123"."""
    return any(not any(start <= m.start() < end for start, end in labels)
               and _DECLINED.search(text, max(0, m.start() - 8), m.start()) is None for m in REQUEST.finditer(text))


def _asked_about(mention: Mention, mentions: Sequence[Mention], text: str) -> bool:
    """Whether the value is asked about ("它家有X和Y吗"): read from the first value of its type said."""
    first = min((m.start for m in mentions if m.type == mention.type), default=mention.start)
    return sets_nothing(text, first, mention.end)


def _needing(flows: Mapping[str, FlowSpec], fits: Sequence[str], said: set[str]) -> str | None:
    """Of several flows taking the values, the one flow that needs them (a required slot takes one):
    a search needs its wishes, a question about its result ("the address of a cheap one") only
    accepts them."""
    needing = [name for name in fits if said & {s.entity for s in flows[name].slots if s.required}]
    return needing[0] if len(needing) == 1 else None


def _named(mention: Mention) -> bool:
    """A place or person the bot file declares ("颐和园", "Dr Chen"), not a built-in date or number."""
    return mention.kind in NAMED and not mention.builtin


_NO_WORDS = frozenset(w.lower() for w in words("no_words"))
_NEGATIONS = words("value_negations")
_NEGATION = re.compile(rf"{starts(_NEGATIONS)}(?:{alternation(_NEGATIONS)})\W{{0,2}}$", re.IGNORECASE)
_REACH = max(map(len, _NEGATIONS), default=0) + 2
_STOPS = ",，.。!！;；"


def negation_before(text: str, start: int) -> str | None:
    """The negation said right before the value at ``start`` ("不爱吃烤鸭", "no pork", "not
    interested in british"), or None."""
    found = _NEGATION.search(text, max(0, start - _REACH), start)
    return found.group(0).rstrip() if found is not None else None


def _waived(mention: Mention, text: str) -> bool:
    """A value the turn does not ask for: a no word read as a value ("有没有" holds 没有), or one
    said after a negation ("不爱吃烤鸭", "no pork"). A no set apart before it answers what was
    said, and waives nothing ("不，川菜也行", "no, anywhere is fine")."""
    if mention.text.lower() in _NO_WORDS:
        return True
    negation = negation_before(text, mention.start)
    return negation is not None and not _answering_no(negation)


def _answering_no(negation: str) -> bool:
    """"No," / "不，": a no word with a stop after it, the answer to what was said before."""
    bare = negation.rstrip(_STOPS)
    return bare != negation and bare.strip().lower() in _NO_WORDS
