"""An entity type's values from a CSV or JSON file beside the bot file (``values_file:``, issue 27 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import load_bot_file
from dialogkit.errors import FlowError, Problem

BOT = """\
bot: {{name: shop}}
entities:
  product:
    kind: thing
    values_file: {file}
flows:
  buy:
    description: 买东西 / Buy something
    trigger:
      examples: [我想买东西, I want to buy something]
      keywords: [买, buy]
    slots:
      - name: product
        entity: product
        ask: {{zh: 买哪件商品？, en: Which product?}}
    execute:
      action: place_order
      say: {{zh: "好的，{{product}}。", en: "OK, {{product}}."}}
"""
CSV = "value,aliases,zh,en\nlatte,拿铁|latte|caffe latte,拿铁咖啡,latte\nmocha,摩卡|mocha,摩卡咖啡,mocha\n"
ROWS = [
    {"value": "latte", "aliases": ["拿铁", "latte", "caffe latte"], "zh": "拿铁咖啡", "en": "latte"},
    {"value": "mocha", "aliases": ["摩卡", "mocha"], "zh": "摩卡咖啡", "en": "mocha"},
]
ACTIONS = {"place_order": {}}
SAID = {"zh": ("我想买一杯拿铁", "好的，拿铁咖啡。"), "en": ("I want to buy a caffe latte", "OK, latte.")}


def write_bot(folder: Path, name: str, content: str) -> Path:
    (folder / name).write_text(content, encoding="utf-8")
    path = folder / "shop.yaml"
    path.write_text(BOT.format(file=name), encoding="utf-8")
    return path


def problems(path: Path) -> list[Problem]:
    with pytest.raises(FlowError) as caught:
        load_bot_file(path, actions=ACTIONS)
    return caught.value.problems


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name, content", [("products.csv", CSV), ("products.json", json.dumps(ROWS, ensure_ascii=False))])
def test_values_from_a_file_are_understood_and_shown_by_their_labels(tmp_path: Path, lang: str, name: str,
                                                                    content: str) -> None:
    """Every alias of a row names its value; replies show the row's label in the turn's language."""
    with Bot.from_file(write_bot(tmp_path, name, content), store="memory://", actions=ACTIONS) as bot:
        said, shown = SAID[lang]
        reply = bot.handle("s", said)
    assert reply.slots == {"product": "latte"}
    assert reply.text == shown


def test_a_file_value_beside_inline_values_counts_too(tmp_path: Path) -> None:
    path = write_bot(tmp_path, "products.csv", CSV)
    path.write_text(path.read_text(encoding="utf-8").replace(
        "    values_file: products.csv\n", "    values_file: products.csv\n    values: {tea: [茶, tea]}\n"),
        encoding="utf-8")
    loaded = load_bot_file(path, actions=ACTIONS)
    assert list(loaded.spec.entities["product"].values or {}) == ["tea", "latte", "mocha"]


@pytest.mark.parametrize("row, line, message", [
    ("latte,拿铁|latte,拿铁咖啡,latte\n,摩卡,摩卡咖啡,mocha\n", 3, "a row without a value"),
    ("latte,拿铁||latte,拿铁咖啡,latte\n", 2, "an alias of 'latte' is empty"),
    ("latte,拿铁,拿铁咖啡,latte\nmocha,摩卡,摩卡咖啡,mocha,extra\n", 3, "this row has 5 cells"),
    ("latte,拿铁,拿铁咖啡,latte\nlatte,latte,,\n", 3, "value 'latte' is given twice (first at line 2)"),
])
def test_a_bad_csv_row_is_reported_at_its_line(tmp_path: Path, row: str, line: int, message: str) -> None:
    found = problems(write_bot(tmp_path, "products.csv", "value,aliases,zh,en\n" + row))
    assert [(Path(p.file).name, p.line) for p in found] == [("products.csv", line)]
    assert message in found[0].message


def test_an_unknown_column_is_named_with_a_suggestion(tmp_path: Path) -> None:
    found = problems(write_bot(tmp_path, "products.csv", "value,alias,zh,en\nlatte,拿铁,拿铁咖啡,latte\n"))
    assert (found[0].line, found[0].message, found[0].hint) == (1, "unknown column 'alias'", "did you mean 'aliases'?")


def test_a_bad_json_row_is_reported_at_its_line(tmp_path: Path) -> None:
    text = '[\n  {"value": "latte", "aliases": ["拿铁"]},\n  {"value": "mocha", "aliases": "摩卡", "colour": 1},\n' \
           '  {"aliases": ["tea"]}\n]\n'
    found = problems(write_bot(tmp_path, "products.json", text))
    assert [(p.line, p.message) for p in found] == [(3, "unknown key 'colour'"), (4, "a row without a value")]


def test_a_missing_or_unknown_kind_of_file_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    path = write_bot(tmp_path, "products.csv", CSV)
    (tmp_path / "products.csv").unlink()
    assert "cannot read the values file" in problems(path)[0].message
    assert "a values file is .csv or .json" in problems(write_bot(tmp_path, "products.txt", CSV))[0].message


def test_reload_picks_up_a_changed_values_file(tmp_path: Path) -> None:
    """The bot's version covers the file's content: a new row is understood after reload."""
    path = write_bot(tmp_path, "products.csv", CSV)
    with Bot.from_file(path, store="memory://", actions=ACTIONS) as bot:
        assert bot.handle("a", "我想买一杯抹茶").slots == {}
        (tmp_path / "products.csv").write_text(CSV + "matcha,抹茶|matcha,抹茶拿铁,matcha\n", encoding="utf-8")
        assert bot.reload() is True
        assert bot.handle("b", "我想买一杯抹茶").slots == {"product": "matcha"}
        assert bot.handle("c", "I want to buy a matcha").slots == {"product": "matcha"}
        assert bot.reload() is False
