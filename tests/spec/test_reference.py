"""The key reference in docs/bot-file.md is the schema's own rendering, and the schema says what
every key means: editors (``dialogkit schema``) and readers see one text."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter
from ruamel.yaml import YAML

from dialogkit.spec import schema as schema_module
from dialogkit.spec.reference import END, START, inline_yaml, main, render, rewrite
from dialogkit.spec.schema import BotFile, json_schema

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bot-file.md"


def _properties(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(model, key, property schema) for the root and every model in ``$defs``."""
    models = {"BotFile": schema, **schema["$defs"]}
    for model, body in models.items():
        for key, prop in body.get("properties", {}).items():
            yield model, key, prop


def _models() -> list[type[BaseModel]]:
    found = [v for v in vars(schema_module).values() if isinstance(v, type) and issubclass(v, BaseModel)]
    return [m for m in found if m.__module__ == schema_module.__name__ and not m.__name__.startswith("_")]


def test_the_page_holds_the_current_rendering() -> None:
    """Regenerate with: python -m dialogkit.spec.reference docs/bot-file.md"""
    text = PAGE.read_text(encoding="utf-8")
    assert START in text and END in text
    assert rewrite(text) == text, "docs/bot-file.md is stale: run python -m dialogkit.spec.reference docs/bot-file.md"


def test_every_property_has_a_description() -> None:
    missing = [f"{model}.{key}" for model, key, prop in _properties(json_schema()) if not prop.get("description")]
    assert missing == []


def test_every_model_has_a_description() -> None:
    schema = json_schema()
    assert schema.get("description")
    assert [name for name, body in schema["$defs"].items() if not body.get("description")] == []


def test_every_model_has_a_section_and_every_key_a_row() -> None:
    rendered = render()
    for model, key, _prop in _properties(json_schema()):
        assert f"| `{key}` |" in rendered, f"{model}.{key} has no row"
    for path in ("### `bot`", "### `flows.<flow>.slots[].validate[]`", "### `entities.<entity>.values.<value>`",
                 "### Prompts"):
        assert path in rendered


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_examples_are_valid_values_of_their_keys(model: type[BaseModel]) -> None:
    """An example in the docs is something the loader accepts."""
    for field in model.model_fields.values():
        adapter: TypeAdapter[Any] = TypeAdapter(field.annotation or Any)
        for example in field.examples or []:
            adapter.validate_python(example)


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_examples_and_defaults_read_back_from_their_yaml(model: type[BaseModel]) -> None:
    """What the table prints as YAML parses back to the same value."""
    yaml = YAML(typ="safe", pure=True)
    for field in model.model_fields.values():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        values = [*(field.examples or []), *([extra["default"]] if "default" in extra else [])]
        for value in values:
            assert yaml.load(io.StringIO(inline_yaml(value))) == value


@pytest.mark.parametrize(("value", "written"), [
    ("order_id", "order_id"),
    (r"^\d{5,12}$", r"'^\d{5,12}$'"),
    ("I'll open {order_id}", "\"I'll open {order_id}\""),
    ("yes", "'yes'"),
    ("12345", "'12345'"),
    ({"zh": "会议", "en": "the meeting"}, "{zh: 会议, en: the meeting}"),
    (["track_entities"], "[track_entities]"),
    (None, "null"),
])
def test_inline_yaml(value: Any, written: str) -> None:
    assert inline_yaml(value) == written


def test_rewrite_replaces_only_the_block() -> None:
    page = f"# Title\n\nprose\n\n{START}\nold table\n{END}\n\nmore prose\n"
    out = rewrite(page, "NEW\n")
    assert out == f"# Title\n\nprose\n\n{START}\nNEW\n{END}\n\nmore prose\n"
    assert rewrite(out, "NEW\n") == out


def test_rewrite_needs_both_markers() -> None:
    with pytest.raises(ValueError, match="markers"):
        rewrite("no markers here")


def test_the_command_rewrites_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "bot-file.md"
    page.write_text(f"intro\n{START}\nstale\n{END}\n", encoding="utf-8")
    assert main(["--check", str(page)]) == 1
    assert "stale" in page.read_text(encoding="utf-8")
    assert main([str(page)]) == 0
    assert main(["--check", str(page)]) == 0
    assert rewrite(page.read_text(encoding="utf-8")) == page.read_text(encoding="utf-8")
    assert "out of date" in capsys.readouterr().err


def test_the_schema_command_carries_the_descriptions() -> None:
    schema = json_schema()
    slot = schema["$defs"]["SlotSpec"]["properties"]
    assert "persist_slots" in slot["persist"]["description"]
    assert slot["validate"]["default"] == []
    assert schema["$defs"]["BotMemorySpec"]["properties"]["every_turn"]["default"] == ["track_entities"]
    assert BotFile.model_validate({"flows": {}}).bot.memory.every_turn == ["track_entities"]
