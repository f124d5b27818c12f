"""Bot file -> validated models, or one ``FlowError`` listing every problem with its position.

Three passes, all of whose problems are reported together:

1. ``yaml_source`` reads the text (syntax errors, duplicate keys, binary or empty files).
2. pydantic checks the shape; each error is mapped back to ``file:line:col`` and rewritten in
   plain words, unknown keys with a "did you mean". The offending parts are then pruned and the
   rest validated again, so that
3. ``validation`` can still check meaning (entity types, regexes, placeholders, actions, ...) in
   the parts that were well formed: an author fixes all mistakes in one round, not one per run.
"""

from __future__ import annotations

import copy
import difflib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from dialogkit.errors import FlowError, Problem
from dialogkit.spec import validation
from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import SourceMap, YamlDocument, YamlPath, decode, read_yaml, read_yaml_file
from dialogkit.actions.registry import ActionTable, build_action_table

ActionOverrides = Mapping[str, Callable[..., Any] | Mapping[str, Any]]

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
class LoadedBot:
    """A bot file that passed every check, with what the runtime needs to run it."""

    spec: BotFile
    path: Path | None
    base_dir: Path
    actions: ActionTable
    memory_actions: dict[str, Callable[..., Any]]


def load_bot_file(path: str | Path, *, actions: ActionOverrides | None = None) -> LoadedBot:
    """Load and check a bot file; raises ``FlowError`` carrying every problem found."""
    file_path = Path(path)
    document = read_yaml_file(file_path)
    return _load(document, file_path, file_path.resolve().parent, actions)


def parse_bot_text(text: str | bytes, *, filename: str = "<string>", base_dir: Path | None = None,
                   actions: ActionOverrides | None = None) -> LoadedBot:
    """Like ``load_bot_file`` for YAML already in memory (tests write bots inline)."""
    if isinstance(text, bytes):
        text = decode(text, filename)
    document = read_yaml(text, filename)
    return _load(document, None, (base_dir or Path.cwd()).resolve(), actions)


def _load(document: YamlDocument, path: Path | None, base_dir: Path,
          overrides: ActionOverrides | None) -> LoadedBot:
    problems: list[Problem] = []
    spec, pruned = _validate_shape(document, problems)
    if spec is None:
        raise FlowError(_sorted(problems))
    table = build_action_table(spec, base_dir, overrides)
    checks = validation.BotChecks(spec, document.positions, document.filename, table, base_dir,
                                  pruned=pruned)
    problems.extend(checks.run())
    if problems:
        raise FlowError(_sorted(problems))
    return LoadedBot(spec, path, base_dir, table, checks.memory_actions)


def _sorted(problems: list[Problem]) -> list[Problem]:
    """In file order, so the list reads top to bottom like the file."""
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
        if isinstance(current, dict) and segment in current:
            current = current[segment]
            path.append(segment)
        elif isinstance(current, list) and isinstance(segment, int) and 0 <= segment < len(current):
            current = current[segment]
            path.append(segment)
        else:
            rest.append(segment)
    return tuple(path), rest


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
        if isinstance(parent, dict) and segment in parent:
            parent = parent[segment]
        elif isinstance(parent, list) and isinstance(segment, int) and segment < len(parent):
            parent = parent[segment]
        else:
            return  # an ancestor went already
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
        tag_at = next((i for i, s in enumerate(loc) if _is_union_tag(s)), None)
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


def _display(path: YamlPath) -> str:
    text = ""
    for segment in path:
        text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else str(segment))
    return text or "the top level"


def _describe(group: list[Any], document: YamlDocument) -> Problem:
    err = group[0]
    loc = tuple(err["loc"])
    path, rest = _walk(document.data, loc)
    positions: SourceMap = document.positions
    name = document.filename
    kind = err["type"]
    where = _display(path)
    if kind == "extra_forbidden":
        key = str(path[-1]) if path else str(loc[-1])
        allowed = _allowed_keys(loc[:-1])
        line, col = positions.key(path)
        suggestion = _did_you_mean(key, allowed)
        hint = f"did you mean '{suggestion}'?" if suggestion else (
            "allowed keys here: " + ", ".join(allowed) if allowed else "remove this key")
        return Problem(name, line, col, f"unknown key '{key}' in {_display(path[:-1])}", hint)
    if "[key]" in rest:
        line, col = positions.key(path)
        expected = _expected_values(err)
        suggestion = _did_you_mean(str(path[-1]), expected)
        hint = f"did you mean '{suggestion}'?" if suggestion else "use one of: " + ", ".join(expected)
        return Problem(name, line, col, f"'{path[-1]}' is not allowed as a key in {_display(path[:-1])}", hint)
    if kind == "missing":
        missing = next((s for s in rest if not _is_union_tag(s)), loc[-1])
        line, col = positions.key(path)
        return Problem(name, line, col, f"{where} is missing the required key '{missing}'",
                       f"add '{missing}:' here")
    line, col = positions.value(path)
    value = _value_at(document.data, path)
    shown = _show(value)
    if len(group) > 1 or kind in _TYPE_WORDS:
        wanted = " or ".join(dict.fromkeys(_branch_word(e) for e in group))
        if len(group) > 1 and all(_branch_word(e) in {"text", "a mapping (key: value)"} for e in group):
            wanted = "text or a {zh: ..., en: ...} map"
        return Problem(name, line, col, f"{where} must be {wanted}, not {shown}", _type_hint(kind, value))
    if kind == "literal_error":
        expected = _expected_values(err)
        suggestion = _did_you_mean(str(value), expected)
        hint = f"did you mean '{suggestion}'?" if suggestion else "use one of: " + ", ".join(expected)
        return Problem(name, line, col, f"{where} must be one of {', '.join(expected)}, not {shown}", hint)
    message = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    message = message.replace("Input should be", "must be")
    return Problem(name, line, col, f"{where}: {message}", "")


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


def _did_you_mean(word: str, choices: list[str]) -> str | None:
    """The closest allowed name, going through ``KEY_ALIASES`` for names other tools use."""
    if not choices:
        return None
    candidates = {choice: choice for choice in choices}
    for alias, target in KEY_ALIASES.items():
        if target in candidates and alias not in candidates:
            candidates[alias] = target
    match = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=0.6)
    return candidates[match[0]] if match else None


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
