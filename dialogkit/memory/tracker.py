"""Entity memory: what the conversation has talked about, how often, and how recently.

Every function works on the ``Session`` it is given and nothing else, so two sessions can never
see each other's entities. An entity is identified by its type and canonical value: "iPhone" and
"手机" are one ``product=phone`` entity whose aliases record both surface forms.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dialogkit.lexicon import writing
from dialogkit.memory.lexicon import type_nouns
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Entity, Session
from dialogkit.text.labels import Texts, written_in
from dialogkit.text.phrases import format_value, phrase

#: Turns after which an unmentioned entity's salience halves.
HALF_LIFE_TURNS = 3.0
#: Mentions an entity remembers one by one (turn, position, surface): the newest ones, enough to
#: take back the last turns ("忘记刚才说的"). ``Entity.mentions`` still counts every mention, so
#: an entity talked about all session long keeps a bounded record in the session row.
RECENT_MENTIONS = 24
_IDENTIFIER = re.compile(r"^[A-Za-z]{0,4}[-#]?\d[\w\-]*$")


def value_key(value: Any) -> str:
    """Comparable form of a canonical value: "12345", 12345 and " 12345 " are the same entity."""
    return str(value).strip().casefold()


def find_entity(session: Session, type_name: str, value: Any) -> Entity | None:
    """The session's entity of this type and canonical value, if it is tracked."""
    key = value_key(value)
    return next((e for e in session.entities if e.type == type_name and value_key(e.value) == key), None)


def _new_entity(session: Session, type_name: str, value: Any, kind: str, turn: int, source: str) -> Entity:
    session.entity_counter += 1
    entity = Entity(id=f"e{session.entity_counter}", type=type_name, kind=kind, value=value,
                    first_turn=turn, last_turn=turn, source=source)
    session.entities.append(entity)
    return entity


_NUMBER_TYPES = frozenset({"number", "integer"})


def counting_numbers(mentions: Sequence[Mention],
                     listed: Callable[[Mention, Mention], bool] = lambda a, b: True) -> set[int]:
    """Where a number counts the values named after it ("我有两个保单号 A 和 B", "two orders, A and
    B"): the start of each such number. It says how many things there are; it is no thing of its
    own to point back at, nor a value. ``listed(a, b)`` says whether two neighbours form a list."""
    if len(mentions) < 3:
        return set()
    counts: set[int] = set()
    for number in (m for m in mentions if m.type in _NUMBER_TYPES):
        after: dict[str, list[Mention]] = {}
        for m in sorted(mentions, key=lambda m: m.start):
            if m.start >= number.end and not m.builtin:
                after.setdefault(m.type, []).append(m)
        for named in after.values():
            joined = all(listed(a, b) for a, b in itertools.pairwise(named))
            if len(named) >= 2 and joined and _as_number(number.value) == len({value_key(m.value) for m in named}):
                counts.add(number.start)
    return counts


def _as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def track_mentions(session: Session, mentions: Sequence[Mention], *, turn: int, source: str = "user") -> list[Entity]:
    """Record one utterance's mentions; returns the entities touched, in order of mention.

    Two or more distinct entities of one type mentioned together (or of kind person, whatever
    their types) become ``session.last_list``, the list ordinals like "第二个" index. Grouping by
    type keeps "订单12345的手机" from turning an order and a product into a list.
    """
    touched: list[Entity] = []
    counts = counting_numbers(mentions)
    # find_entity for each mention, read from one index: a message naming hundreds of values
    # (a pasted list of numbers) would otherwise scan every entity once per mention.
    tracked: dict[tuple[str, str], Entity] = {}
    for known in session.entities:
        tracked.setdefault((known.type, value_key(known.value)), known)
    for mention in sorted(mentions, key=lambda m: m.start):
        if mention.start in counts and mention.type in _NUMBER_TYPES:
            continue
        entity = tracked.get((mention.type, value_key(mention.value)))
        if entity is None:
            entity = _new_entity(session, mention.type, mention.value, mention.kind, turn, source)
            tracked[(mention.type, value_key(mention.value))] = entity
        elif entity.kind == "other" and mention.kind != "other":
            entity.kind = mention.kind
        session.mention_counter += 1
        if entity.mentions == 0:
            entity.first_turn = turn
            entity.first_position = session.mention_counter
        entity.mentions += 1
        entity.last_turn = turn
        entity.last_position = session.mention_counter
        entity.mention_turns.append(turn)
        entity.mention_positions.append(session.mention_counter)
        entity.mention_texts.append(mention.text)
        if len(entity.mention_turns) > RECENT_MENTIONS:
            del entity.mention_turns[0], entity.mention_positions[0], entity.mention_texts[0]
        if mention.text and mention.text not in entity.aliases:
            entity.aliases.append(mention.text)
        touched.append(entity)
    listed = _list_of(touched)
    if listed:
        session.last_list = [e.id for e in listed]
    return touched


def _list_of(entities: Iterable[Entity]) -> list[Entity]:
    """The largest group of >= 2 distinct same-type (or person-kind) entities, in mention order."""
    groups: dict[str, dict[str, Entity]] = {}       # by id: an entity's id is its identity
    people: dict[str, Entity] = {}
    for entity in entities:
        groups.setdefault(entity.type, {}).setdefault(entity.id, entity)
        if entity.kind == "person":
            people.setdefault(entity.id, entity)
    candidates = [list(g.values()) for g in [*groups.values(), people] if len(g) >= 2]
    if not candidates:
        return []
    return max(candidates, key=len)


def remember_offered(session: Session, type_name: str, values: Sequence[Any], *, turn: int) -> None:
    """Options the bot listed ("可选：12345、67890、123456") become ``session.last_list``, so an
    ordinal ("第二个", "the last one") indexes them in any later turn, as it would a list the user
    said. The options are known, not talked about: an entity the user never mentioned gets no
    mention, so it is no pronoun's candidate and the context does not recall it as a topic."""
    # Each option found in one index of the type's entities, and kept once by id: comparing
    # entities field by field (``in`` on a list) cost more than the rest of the turn's memory work.
    known: dict[str, Entity] = {}
    for entity in session.entities:
        if entity.type == type_name:
            known.setdefault(value_key(entity.value), entity)
    listed: dict[str, None] = {}
    for value in values:
        key = value_key(value)
        found = known.get(key)
        if found is None:
            found = known[key] = _new_entity(session, type_name, value, "other", turn, "bot")
        listed[found.id] = None
    if len(listed) >= 2:
        session.last_list = list(listed)


def set_attributes(session: Session, type_name: str, value: Any, attributes: dict[str, Any], *, turn: int,
                   kind: str = "other") -> Entity:
    """Attach facts learned about an entity (an order's status after an action).

    An entity never mentioned is created with no mentions: it is known, not talked about, so
    it does not become a pronoun's favourite by being looked up.
    """
    entity = find_entity(session, type_name, value)
    if entity is None:
        entity = _new_entity(session, type_name, value, kind, turn, "action")
    for name, item in attributes.items():
        entity.attributes[name] = item
        entity.attribute_turns[name] = turn
    return entity


def salience(entity: Entity, turn: int) -> float:
    """How present an entity is: halves every ``HALF_LIFE_TURNS`` unmentioned turns, grows with mentions."""
    age = max(0, turn - entity.last_turn)
    return (1.0 + math.log1p(entity.mentions)) * math.pow(0.5, age / HALF_LIFE_TURNS)


def recall(session: Session, *, turn: int, limit: int = 10) -> list[Entity]:
    """The most salient entities first: what the context window shows the LLM."""
    talked_about = (e for e in session.entities if e.mentions or e.source != "bot")
    ranked = sorted(talked_about, key=lambda e: (salience(e, turn), e.last_position), reverse=True)
    return ranked[:limit]


def is_identifier(value: Any) -> bool:
    """Values like order numbers read better with their type noun: "订单12345", "order 12345"."""
    return isinstance(value, str) and bool(_IDENTIFIER.match(value.strip()))


def _users_words(entity: Entity, language: str) -> str | None:
    """The first surface form the user gave the entity that reads as ``language``."""
    return next((a for a in entity.aliases if written_in(a, language)), None)


def display_label(entity: Entity, language: str, texts: Texts | None = None) -> str:
    """How a reply names the entity: the bot file's label for a value it declares (in the turn's
    language, see ``Texts.declared_label``), else the user's own words in that language, else
    the value as written. Without ``texts`` only the user's words and the value are known."""
    if texts is not None:
        declared = texts.declared_label(entity.type, entity.value, language)
        if declared is not None:
            return declared
    if is_identifier(entity.value):
        return str(entity.value)
    return _users_words(entity, language) or format_value(entity.value)


def short_label(entity: Entity, language: str, texts: Texts | None = None) -> str:
    """How the user would name it: their own words in the language ("电脑", "iPhone"), else how a
    reply names it (:func:`display_label`). Identifiers are their value."""
    if is_identifier(entity.value):
        return str(entity.value)
    return _users_words(entity, language) or display_label(entity, language, texts)


def type_nouns_of(type_name: str, language: str, texts: Texts | None = None) -> list[str]:
    """Nouns naming an entity type, the preferred first: the built-in word list's, then the
    bot's own (from its slot labels: "保单号" -> 保单), so a type no word list knows has a noun."""
    nouns = type_nouns(type_name, language)
    if texts is not None:
        nouns += [n for n in texts.type_nouns(type_name, language) if n not in nouns]
    return nouns


def entity_label(entity: Entity, language: str, texts: Texts | None = None) -> str:
    """A self-contained name: "订单12345" / "order 12345" for identifiers, else the short label.

    For text that has to say what the thing is (the object an ellipsis leaves out); a reference
    the user wrote is replaced by the short label alone, without a type word they did not say.
    """
    label = short_label(entity, language, texts)
    if is_identifier(entity.value):
        nouns = type_nouns_of(entity.type, language, texts)
        if nouns:
            return f"{nouns[0]} {label}" if writing(language).spaced else f"{nouns[0]}{label}"
    return label


def render_entities(entities: Iterable[Entity], language: str) -> str:
    """One line per entity (type, value, aliases, count, attributes) for /entities and the LLM."""
    lines = []
    written = writing(language)
    for e in entities:
        parts = [f"{e.type}{written.colon}{e.value}"]
        if e.aliases:
            parts.append(phrase("entity_aliases", language) + written.list_separator.join(e.aliases))
        parts.append(phrase("entity_mentions", language, n=e.mentions))
        parts.append(phrase("entity_last_turn", language, turn=e.last_turn))
        if e.attributes:
            attrs = ", ".join(f"{k}={v}" for k, v in e.attributes.items())
            parts.append(phrase("entity_attributes", language) + attrs)
        lines.append(phrase("entity_parts", language).join(parts))
    if not lines:
        return phrase("no_entities", language)
    return "\n".join(lines)
