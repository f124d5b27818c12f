"""Values from files merged into the bot, and aliases claimed twice.

An alias names one value. Claimed by two values of one type it named whichever was written
first, silently; now that is an error naming both places (a catalogue of 50,000 rows holds such
slips). Claimed by values of two types it is a warning: the bot still reads it, and the warning
says how (the type declared first wins in running text; a slot of the other type that asks for
its value still reads it as its own).

Where a value was written is the bot file (its YAML position) or a row of its ``values_file``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dialogkit.errors import Problem
from dialogkit.spec.alias_table import alias_table
from dialogkit.spec.schema import BotFile, EntityTypeSpec
from dialogkit.spec.values_file import read_values_file
from dialogkit.spec.yaml_source import YamlDocument
from dialogkit.strings.aliases import normalise_aliases

SHOWN_PAIRS = 3
"""Values sharing aliases across two types warned about one by one; more make one warning."""


@dataclass
class Catalogue:
    """The bot with its values files read in, the file row of every value that came from one, and
    the digest of each file's bytes by entity type."""

    spec: BotFile
    digests: dict[str, str] = field(default_factory=dict)
    rows: dict[str, tuple[str, Mapping[str, int]]] = field(default_factory=dict)   # type -> (file, value -> line)
    problems: list[Problem] = field(default_factory=list)


def with_values_files(spec: BotFile, document: YamlDocument) -> Catalogue:
    """``spec`` with each ``values_file`` read and its values added after the inline ones."""
    out = Catalogue(spec)
    folder = Path(document.filename).parent
    entities = dict(spec.entities)
    for name, entity in spec.entities.items():
        if entity.values_file is None:
            continue
        shown = str(folder / entity.values_file)
        read = read_values_file(folder / entity.values_file, shown)
        out.problems.extend(read.problems)
        out.digests[name] = read.digest
        written = entity.values or {}
        values, lines = read.values, read.lines
        clashes = sorted(written.keys() & values.keys(), key=lines.__getitem__)     # in C: a catalogue is big
        for value in clashes:
            out.problems.append(Problem(shown, lines[value], 1, f"value '{value}' of entity type "
                                        f"'{name}' is also written in the bot file", "keep one of the two"))
        if clashes:
            values = {value: form for value, form in values.items() if value not in written}
            lines = {value: line for value, line in lines.items() if value not in written}
        out.rows[name] = (shown, lines)
        entities[name] = entity.model_copy(update={"values": {**written, **values} if written else values})
    if entities != spec.entities:
        out.spec = spec.model_copy(update={"entities": entities})
    return out


def alias_collisions(catalogue: Catalogue, document: YamlDocument
                     ) -> tuple[list[Problem], Callable[[], list[Problem]]]:
    """(errors, warnings): an alias of two values of one type; aliases of values of two types
    (one warning per pair of values, naming every alias they share). The warnings are positioned
    only when asked for (``dialogkit validate``): a position costs a second, careful read."""
    errors: list[Problem] = []
    first_type: dict[str, str] = {}                   # alias -> the first type claiming it
    owns: dict[str, Mapping[str, str]] = {}           # type -> its aliases -> their values
    shared: dict[tuple[tuple[str, str], tuple[str, str]], list[str]] = {}
    for name, entity in catalogue.spec.entities.items():
        table = alias_table(entity)           # the understanding reads the same table
        own = table.owners
        if table.repeated:
            errors += _repeated(catalogue, document, name, entity, own)
        if own.keys() & first_type.keys():                # aliases of an earlier type
            for key in (key for key in own if key in first_type):
                other = first_type[key]
                shared.setdefault(((name, own[key]), (other, owns[other][key])), []).append(key)
        first_type = {**dict.fromkeys(own, name), **first_type}
        owns[name] = own
    return errors, lambda: _shared_warnings(catalogue, document, shared)


def _repeated(catalogue: Catalogue, document: YamlDocument, name: str, entity: EntityTypeSpec,
              owners: Mapping[str, str]) -> list[Problem]:
    """An alias of one value that another value of the type claimed first (a value naming itself
    twice, "phone: [Phone]", is no error)."""
    said = [(value, alias) for value, aliases in entity.synonyms().items() for alias in aliases]
    keys = normalise_aliases([alias for _, alias in said])
    return [_claimed_twice(catalogue, document, name, value, alias, owners[key])
            for (value, alias), key in zip(said, keys, strict=True) if key and owners[key] != value]


def _shared_warnings(catalogue: Catalogue, document: YamlDocument,
                     shared: dict[tuple[tuple[str, str], tuple[str, str]], list[str]]) -> list[Problem]:
    """One warning per pair of values; past ``SHOWN_PAIRS`` pairs for two types, one for the types."""
    by_types: dict[tuple[str, str], list[tuple[tuple[str, str], tuple[str, str], list[str]]]] = {}
    for (second, first), aliases in shared.items():
        by_types.setdefault((second[0], first[0]), []).append((second, first, aliases))
    warnings: list[Problem] = []
    for (second_type, first_type), pairs in by_types.items():
        if len(pairs) <= SHOWN_PAIRS:
            warnings += [_shared(catalogue, document, second, aliases, first) for second, first, aliases in pairs]
            continue
        examples = ", ".join(f"'{aliases[0]}'" for _, _, aliases in pairs[:SHOWN_PAIRS])
        warnings.append(document.problem(
            ("entities", second_type), f"warning: {len(pairs)} values of entity type '{second_type}' share aliases "
            f"with values of entity type '{first_type}' ({examples}, ...); in running text '{first_type}' wins, "
            f"being declared first, while a slot of type '{second_type}' that asks for its value reads it as "
            f"its own", "give each alias to one type only, or declare first the type it should mean",
            at_key=True))
    return warnings


def _claimed_twice(catalogue: Catalogue, document: YamlDocument, name: str, value: str, alias: str,
                   first: str) -> Problem:
    there = _place(catalogue, document, name, first)
    return _at(catalogue, document, name, value,
               f"alias '{alias}' of value '{value}' is also an alias of value '{first}' of entity type "
               f"'{name}' ({there.file}:{there.line})",
               "an alias names one value: remove it from one of the two")


def _shared(catalogue: Catalogue, document: YamlDocument, second: tuple[str, str], aliases: list[str],
            first: tuple[str, str]) -> Problem:
    there = _place(catalogue, document, *first)
    words = ", ".join(f"'{a}'" for a in aliases)
    return _at(catalogue, document, *second,
               f"warning: {'alias' if len(aliases) == 1 else 'aliases'} {words} "
               f"{'means' if len(aliases) == 1 else 'mean'} value '{second[1]}' of "
               f"entity type '{second[0]}' and value '{first[1]}' of entity type '{first[0]}' "
               f"({there.file}:{there.line}); in running text '{first[0]}' wins, being declared first, while "
               f"a slot of type '{second[0]}' that asks for its value reads it as '{second[1]}'",
               "give the alias to one type only, or declare first the type it should mean")


def _place(catalogue: Catalogue, document: YamlDocument, name: str, value: str) -> Problem:
    return _at(catalogue, document, name, value, "", "")


def _at(catalogue: Catalogue, document: YamlDocument, name: str, value: str, message: str, hint: str) -> Problem:
    shown, lines = catalogue.rows.get(name, ("", {}))
    if value in lines:
        return Problem(shown, lines[value], 1, message, hint)
    return document.problem(("entities", name, "values", value), message, hint, at_key=True)
