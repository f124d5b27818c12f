"""An entity type's aliases in their lookup form, each with the value it names: made once per type.

The bot file's checks (an alias claimed by two values, or by two types) and the understanding
(the automaton that finds aliases in a turn) read the same table; each built it again from the
type's values, so a catalogue of 50,000 values had its 100,000 aliases listed, lowered and
paired with their values twice while it loaded. The table lives as long as the type's model:
it is dropped with it, and a reloaded bot file, being a new model, gets a new one.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from dialogkit.spec.schema import EntityTypeSpec
from dialogkit.strings.aliases import normalise_aliases


@dataclass(frozen=True, slots=True)
class AliasTable:
    """``owners``: lookup form (``normalise_alias``) -> the value that claims it first, no empty
    form; ``repeated``: whether some lookup form is claimed more than once (by one value or two)."""

    owners: Mapping[str, str]
    repeated: bool


_TABLES: dict[int, AliasTable] = {}


def alias_table(entity: EntityTypeSpec) -> AliasTable:
    """The table of ``entity`` (the canonical value itself counts as one of its aliases)."""
    table = _TABLES.get(id(entity))
    if table is None:
        table = _TABLES[id(entity)] = _build(entity)
        weakref.finalize(entity, _TABLES.pop, id(entity), None)
    return table


def table_of(synonyms: Mapping[str, Sequence[str]]) -> AliasTable:
    """The table of canonical value -> its aliases (``EntityTypeSpec.synonyms``: with the value)."""
    said = [alias for aliases in synonyms.values() for alias in aliases]
    return _table(said, [canonical for canonical, aliases in synonyms.items() for _ in aliases])


def _build(entity: EntityTypeSpec) -> AliasTable:
    """``table_of(entity.synonyms())`` in one pass, with no list made per value."""
    said: list[str] = []
    owners: list[str] = []
    for canonical, entry in (entity.values or {}).items():
        aliases = entry if isinstance(entry, list) else entry.aliases
        said.append(canonical)
        said.extend(aliases)
        owners.extend([canonical] * (len(aliases) + 1))
    return _table(said, owners)


def _table(said: list[str], owners: list[str]) -> AliasTable:
    keys = normalise_aliases(said)
    table = dict(zip(keys, owners, strict=True))      # in C: right when no form is said twice
    repeated = len(table) != len(keys)
    if repeated:
        table = {}
        for key, canonical in zip(keys, owners, strict=True):
            table.setdefault(key, canonical)
    table.pop("", None)
    return AliasTable(MappingProxyType(table), repeated)
