"""Bot file -> validated models and every problem with its position, checked on its own.

Three passes, all of whose problems are reported together:

1. ``yaml_source`` reads the text (syntax errors, duplicate keys, binary or empty files).
2. pydantic checks the shape; each error is mapped back to ``file:line:col`` and rewritten in
   plain words, unknown keys with a "did you mean". The offending parts are then pruned and the
   rest validated again, so that
3. values files are read in (``checks_aliases``) and ``validation`` can still check meaning
   (entity types, regexes, placeholders, ...) in the parts
   that were well formed: an author fixes all mistakes in one round, not one per run.

The bot's code (its actions) is checked one layer up, by ``dialogkit.actions.loading``, which
adds its problems to these before anything is raised.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from dialogkit.errors import Problem
from dialogkit.spec import build_cache, validation
from dialogkit.spec.checks_aliases import alias_collisions, with_values_files
from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import YamlDocument, YamlPath, decode, lazy_document, read_yaml, read_yaml_file
from dialogkit.strings.suggest import did_you_mean

# Names other bot frameworks (or fingers) use for our keys: matched fuzzily, then mapped.
KEY_ALIASES: dict[str, str] = {
    "prompt": "ask", "question": "ask", "utter": "ask", "utterance": "ask", "text": "ask",
    "type": "entity", "entity_type": "entity", "optional": "required", "mandatory": "required",
    "validation": "validate", "validations": "validate", "validators": "validate", "rules": "validate",
    "intents": "trigger", "triggers": "trigger", "example": "examples", "utterances": "examples",
    "keyword": "keywords", "params": "slots", "parameters": "slots", "slot": "slots",
    "confirmation": "confirm", "run": "execute", "action": "execute", "response": "say",
    "reply": "say", "message": "say", "regex": "pattern", "synonyms": "values", "entity_types": "entities",
    "flow": "flows", "timeout": "session_timeout", "language": "language", "lang": "language",
}

_TYPE_WORDS: dict[str, str] = {
    "string_type": "text", "bool_parsing": "true or false", "bool_type": "true or false",
    "int_parsing": "a whole number", "int_type": "a whole number", "int_from_float": "a whole number",
    "float_parsing": "a number", "float_type": "a number", "list_type": "a list",
    "dict_type": "a mapping (key: value)", "model_type": "a mapping (key: value)",
    "model_attributes_type": "a mapping (key: value)",
}


@dataclass
class CheckedBotFile:
    """A bot file read and checked on its own, with where each piece of it was written.

    ``spec`` is the model of what was well formed (None when nothing usable was); ``pruned``
    names the flows and entity types dropped as malformed, as ``("flows", name)`` or
    ``("entities", name)``, so later checks do not report them missing as well.
    """

    document: YamlDocument
    spec: BotFile | None
    pruned: set[tuple[str, str]] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)
    warnings: Callable[[], list[Problem]] = list    # an alias shared by two types, positioned when called
    declared: BotFile | None = None     # ``spec`` before its values files were read in
    digests: dict[str, str] = field(default_factory=dict)    # entity type -> sha256 of its values file


def check_bot_file(path: str | Path) -> CheckedBotFile:
    """Read and check a bot file; raises ``FlowError`` only when its text is not readable YAML.

    While a bot loads with its cache on (``build_cache``), a file that checked clean before is
    taken from the cache, and one that checks clean now is kept for it.
    """
    build = build_cache.current(path)
    if build is not None and "checked" in build.found:
        data, spec, declared, digests = build.found["checked"]
        return CheckedBotFile(lazy_document(data, decode(build.text, str(path)), str(path)), spec,
                              declared=declared, digests=digests)
    checked = check_document(read_yaml_file(path))
    if build is not None and checked.spec is not None and not checked.problems:
        build.built["checked"] = (checked.document.data, checked.spec, checked.declared, checked.digests)
        entities = (checked.declared or checked.spec).entities
        build.values_files = {entities[name].values_file or "": digest for name, digest in checked.digests.items()}
    return checked


def check_bot_text(text: str | bytes, filename: str = "<string>") -> CheckedBotFile:
    """Like ``check_bot_file`` for YAML already in memory (tests write bots inline)."""
    if isinstance(text, bytes):
        text = decode(text, filename)
    return check_document(read_yaml(text, filename))


def check_document(document: YamlDocument) -> CheckedBotFile:
    """The shape and meaning problems of a parsed bot file (meaning only when a model remains)."""
    problems: list[Problem] = []
    warnings: Callable[[], list[Problem]] = list
    spec, pruned = _validate_shape(document, problems)
    declared, digests = spec, {}
    if spec is not None:
        catalogue = with_values_files(spec, document)      # a values_file's values are the type's too
        spec, digests = catalogue.spec, catalogue.digests
        problems.extend(catalogue.problems)
        problems.extend(validation.BotChecks(spec, document, pruned, written=declared).run())
        collisions, warnings = alias_collisions(catalogue, document)
        problems.extend(collisions)
    return CheckedBotFile(document, spec, pruned, problems, warnings, declared, digests)


def in_file_order(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by position, so the list reads top to bottom like the file."""
    return sorted(problems, key=lambda p: (p.file, p.line, p.col))


# -- pass 2: pydantic errors -> positioned problems -------------------------------------------

def _validate_shape(document: YamlDocument, problems: list[Problem]
                    ) -> tuple[BotFile | None, set[tuple[str, str]]]:
    """Validate; on errors, report them, prune what failed and retry so pass 3 can still run.

    Returns the model of what remained (None when nothing usable did) and the flows and entity
    types dropped, as ``("flows", name)`` / ``("entities", name)``.
    """
    data = copy.deepcopy(document.data)  # pruning must not touch what positions describe
    pruned: set[tuple[str, str]] = set()
    first = True
    for _ in range(50):
        try:
            return BotFile.model_validate(data), pruned
        except ValidationError as error:
            errors = error.errors(include_url=False)
        if first:
            problems.extend(_translate(errors, document))
            first = False
        before = repr(data)
        targets = {_prune_target(data, tuple(err["loc"]), pruned) for err in errors}
        for target in sorted((t for t in targets if t), key=len):
            _remove(data, target)
        if repr(data) == before:
            break
    return None, pruned


def _walk(data: Any, loc: tuple[Any, ...]) -> tuple[YamlPath, list[Any]]:
    """Split a pydantic location into the path that exists in the data and the rest (union tags)."""
    path: list[Any] = []
    rest: list[Any] = []
    current = data
    for segment in loc:
        if _holds(current, segment):
            current = current[segment]
            path.append(segment)
        else:
            rest.append(segment)
    return tuple(path), rest


def _holds(container: Any, segment: Any) -> bool:
    """True when ``container[segment]`` exists: a key of a mapping or an index of a list."""
    if isinstance(container, dict):
        return segment in container
    return isinstance(container, list) and isinstance(segment, int) and 0 <= segment < len(container)


def _prune_target(data: Any, loc: tuple[Any, ...], pruned: set[tuple[str, str]]) -> YamlPath:
    """The part to remove for one error, so the rest can be validated and checked for meaning.

    A list item is never removed alone (that would shift the positions of its siblings): the
    whole list goes, except ``slots``, which the rest of a flow refers to, so the flow goes.
    Removed flows and entity types are remembered so no check complains they are missing.
    """
    path, _ = _walk(data, loc)
    target = list(path)
    popped_item = False
    while target and isinstance(target[-1], int):
        target.pop()
        popped_item = True
    if target[:1] == ["flows"] and len(target) >= 2 and (
            len(target) == 2 or (popped_item and target[2:] == ["slots"])):
        target = target[:2]
    if len(target) == 2 and target[0] in ("flows", "entities"):
        pruned.add((str(target[0]), str(target[1])))
    return tuple(target)


def _remove(data: Any, target: YamlPath) -> None:
    parent: Any = data
    for segment in target[:-1]:
        if not _holds(parent, segment):
            return  # an ancestor went already
        parent = parent[segment]
    if isinstance(parent, dict):
        parent.pop(target[-1], None)


def _is_union_tag(segment: Any) -> bool:
    return isinstance(segment, str) and (
        segment in {"str", "int", "float", "bool", "none"} or "[" in segment or segment[:1].isupper()
    )


def _translate(errors: list[Any], document: YamlDocument) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[tuple[int, int, str]] = set()
    for group in _group_unions(errors, document.data):
        problem = _describe(group, document)
        marker = (problem.line, problem.col, problem.message)
        if marker not in seen:
            seen.add(marker)
            problems.append(problem)
    return problems


def _group_unions(errors: list[Any], data: Any) -> list[list[Any]]:
    """Merge the per-branch errors pydantic gives for one union value into one group.

    A value that is a mapping is judged by the mapping branch's errors, a scalar by the
    scalar branches', so ``ask: {zh: 1}`` says "zh must be text", not also "ask must be text".
    """
    groups: dict[Any, list[Any]] = {}
    order: list[Any] = []
    for err in errors:
        loc = tuple(err["loc"])
        tag_at = _union_tag_at(data, loc)
        key = loc[:tag_at] if tag_at is not None else ("__single__", loc, err["type"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(err)
    out: list[list[Any]] = []
    for key in order:
        group = groups[key]
        if key[0] == "__single__":
            out.append(group)
            continue
        deeper = [e for e in group if len(e["loc"]) > len(key) + 1 or e["type"] not in _TYPE_WORDS]
        out.extend([[e] for e in deeper] if deeper else [group])
    return out


def _union_tag_at(data: Any, loc: tuple[Any, ...]) -> int | None:
    """Where pydantic's first union branch name is in ``loc``; a key written in the file is none.

    Without looking at the data, a flow named ``Main`` or a top-level key ``A clinic`` would
    pass for a branch name (they start with a capital).
    """
    current = data
    for index, segment in enumerate(loc):
        if _holds(current, segment):
            current = current[segment]
        elif _is_union_tag(segment):
            return index or None
        else:
            current = None
    return None


def _display(path: YamlPath) -> str:
    text = ""
    for segment in path:
        text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else str(segment))
    return text or "the top level"


def _describe(group: list[Any], document: YamlDocument) -> Problem:
    err = group[0]
    loc = tuple(err["loc"])
    path, rest = _walk(document.data, loc)
    if err["type"] == "extra_forbidden":
        return _unknown_key(document, path, loc)
    if "[key]" in rest:
        return document.problem(path, f"'{path[-1]}' is not allowed as a key in {_display(path[:-1])}",
                                _one_of_hint(str(path[-1]), _expected_values(err)), at_key=True)
    if err["type"] == "missing":
        missing = next((s for s in rest if not _is_union_tag(s)), loc[-1])
        return document.problem(path, f"{_display(path)} is missing the required key '{missing}'",
                                f"add '{missing}:' here", at_key=True)
    return _bad_value(group, document, path)


def _unknown_key(document: YamlDocument, path: YamlPath, loc: tuple[Any, ...]) -> Problem:
    key = str(path[-1]) if path else str(loc[-1])
    allowed = _allowed_keys(loc[:-1])
    suggestion = _suggest(key, allowed)
    hint = f"did you mean '{suggestion}'?" if suggestion else (
        "allowed keys here: " + ", ".join(allowed) if allowed else "remove this key")
    return document.problem(path, f"unknown key '{key}' in {_display(path[:-1])}", hint, at_key=True)


def _bad_value(group: list[Any], document: YamlDocument, path: YamlPath) -> Problem:
    """A value of the wrong type, outside a literal's choices, or refused by a validator."""
    err = group[0]
    kind = err["type"]
    where = _display(path)
    value = _value_at(document.data, path)
    if len(group) > 1 or kind in _TYPE_WORDS:
        return document.problem(path, f"{where} must be {_wanted(group)}, not {_show(value)}",
                                _type_hint(kind, value))
    if kind == "literal_error":
        expected = _expected_values(err)
        return document.problem(path, f"{where} must be one of {', '.join(expected)}, not {_show(value)}",
                                _one_of_hint(str(value), expected))
    message = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return document.problem(path, f"{where}: {message.replace('Input should be', 'must be')}")


def _wanted(group: list[Any]) -> str:
    """What the union branches of ``group`` accept, in words: "text or a whole number"."""
    words = [_branch_word(e) for e in group]
    if len(group) > 1 and all(word in {"text", "a mapping (key: value)"} for word in words):
        return "text or a {zh: ..., en: ...} map"
    return " or ".join(dict.fromkeys(words))


def _branch_word(err: Any) -> str:
    return _TYPE_WORDS.get(err["type"], str(err["msg"]).replace("Input should be ", ""))


def _type_hint(kind: str, value: Any) -> str:
    if kind == "string_type" and isinstance(value, (int, float, bool)):
        return "quote it to make it text, e.g. \"123\""
    if kind.startswith("bool"):
        return "write true or false"
    if kind in ("list_type",):
        return "write a list, e.g. [a, b] or one '- item' per line"
    return ""


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "empty (null)"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _value_at(data: Any, path: YamlPath) -> Any:
    for segment in path:
        data = data[segment]
    return data


def _expected_values(err: Any) -> list[str]:
    expected = str((err.get("ctx") or {}).get("expected", ""))
    return [part.strip().strip("'\"") for part in expected.replace(" or ", ", ").split(",") if part.strip()]


def _suggest(word: str, choices: list[str]) -> str | None:
    """The closest allowed name, going through ``KEY_ALIASES`` for names other tools use."""
    aliases = {alias: target for alias, target in KEY_ALIASES.items()
               if target in choices and alias not in choices}
    guess = did_you_mean(word, [*choices, *aliases])
    return aliases.get(guess, guess) if guess is not None else None


def _one_of_hint(word: str, expected: list[str]) -> str:
    suggestion = _suggest(word, expected)
    return f"did you mean '{suggestion}'?" if suggestion else "use one of: " + ", ".join(expected)


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """The keys the model at ``loc`` accepts (aliases as written in YAML: ``validate``)."""
    current: Any = BotFile
    for segment in loc:
        current = _step(current, segment)
        if current is None:
            return []
    model = _as_model(current)
    if model is None:
        return []
    return [field.alias or field_name for field_name, field in model.model_fields.items()]


def _as_model(tp: Any) -> type[BaseModel] | None:
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp
    for member in _union_members(tp):
        model = _as_model(member)
        if model is not None:
            return model
    return None


def _unwrap(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _union_members(tp: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return tuple(a for a in typing.get_args(tp) if a is not type(None))
    return ()


def _step(tp: Any, segment: Any) -> Any:
    tp = _unwrap(tp)
    members = _union_members(tp)
    if members:
        if isinstance(segment, str) and _is_union_tag(segment):
            for member in members:
                label = getattr(member, "__name__", str(member))
                if label in segment or str(member) == segment:
                    return member
        for member in members:
            found = _step(member, segment)
            if found is not None:
                return found
        return None
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        for field_name, field in tp.model_fields.items():
            if segment in (field_name, field.alias):
                return field.annotation
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is dict and len(args) == 2:
        return args[1]
    if origin is list and args and isinstance(segment, int):
        return args[0]
    return None
