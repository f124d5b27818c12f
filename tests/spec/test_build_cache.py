"""A built bot cached beside its bot file (``.dialogkit/cache/``), issue 27 item 1: read back while
the bot file and its values files stay the same, rebuilt otherwise, never an error."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.errors import FlowError
from dialogkit.spec import loader

BOT = """\
bot: {name: shop}
entities:
  product:
    kind: thing
    values_file: products.csv
flows:
  buy:
    description: 买东西 / Buy something
    trigger:
      examples: [我想买东西, I want to buy something]
      keywords: [买, buy]
    slots:
      - name: product
        entity: product
        ask: {zh: 买哪件商品？, en: Which product?}
    execute:
      action: place_order
      say: {zh: "好的，{product}。", en: "OK, {product}."}
"""
CSV = "value,aliases,zh,en\nlatte,拿铁|latte|caffe latte,拿铁咖啡,latte\nmocha,摩卡|mocha,摩卡咖啡,mocha\n"
ACTIONS = {"place_order": {}}
TURNS = {"zh": ["你好", "我想买一杯拿铁", "我想买东西", "摩卡"], "en": ["hello", "I want to buy a caffe latte",
                                                                "I want to buy something", "mocha"]}


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Caching on, and for these small catalogues too (by default only large ones are cached)."""
    monkeypatch.delenv("DIALOGKIT_CACHE", raising=False)
    monkeypatch.setenv("DIALOGKIT_CACHE_MIN_BYTES", "0")


def write_bot(folder: Path, csv: str = CSV, bot: str = BOT) -> Path:
    (folder / "products.csv").write_text(csv, encoding="utf-8")
    path = folder / "shop.yaml"
    path.write_text(bot, encoding="utf-8")
    return path


def entries(folder: Path) -> list[Path]:
    return sorted((folder / ".dialogkit" / "cache").glob("*")) if (folder / ".dialogkit").exists() else []


def load(path: Path, **options: Any) -> Bot:
    return Bot.from_file(path, store="memory://", actions=ACTIONS, **options)


def replies(bot: Bot, lang: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for text in TURNS[lang]:
        reply = bot.handle(lang, text)
        out.append((reply.text, dict(reply.slots)))
    return out


def not_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a load that checks the bot file (a miss) fails the test."""
    def refuse(*_: Any) -> Any:
        raise AssertionError("the bot file was checked again: the cache missed")
    monkeypatch.setattr(loader, "check_document", refuse)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_cached_bot_understands_and_answers_as_the_one_built(tmp_path: Path, lang: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_bot(tmp_path)
    built = replies(load(path), lang)
    assert len(entries(tmp_path)) == 1
    not_checked_again(monkeypatch)
    assert replies(load(path), lang) == built
    assert any("拿铁咖啡" in text or "latte" in text for text, _ in built)


@pytest.mark.parametrize("lang, said, value", [("zh", "我想买一杯馥芮白", "flat_white"),
                                               ("en", "I want to buy a flat white", "flat_white")])
def test_a_changed_values_file_is_read_again(tmp_path: Path, lang: str, said: str, value: str) -> None:
    path = write_bot(tmp_path)
    load(path)
    write_bot(tmp_path, CSV + "flat_white,馥芮白|flat white,馥芮白,flat white\n")
    assert load(path).handle(lang, said).slots.get("product") == value
    assert len(entries(tmp_path)) == 1, "the entry of the old files is gone"


def test_a_changed_bot_file_is_read_again(tmp_path: Path) -> None:
    path = write_bot(tmp_path)
    load(path)
    write_bot(tmp_path, bot=BOT.replace("好的，{product}。", "收到，{product}。"))
    assert load(path).handle("s", "我想买一杯拿铁").text == "收到，拿铁咖啡。"


@pytest.mark.parametrize("damage", [b"", b"not a pickle at all", "truncated"])
def test_a_corrupt_entry_is_ignored_and_replaced(tmp_path: Path, damage: bytes | str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_bot(tmp_path)
    built = replies(load(path), "zh")
    [entry] = entries(tmp_path)
    whole = entry.read_bytes()
    entry.write_bytes(whole[: len(whole) // 2] if damage == "truncated" else damage)  # type: ignore[operator]
    assert replies(load(path), "zh") == built
    assert len(entries(tmp_path)) == 1 and entry.stat().st_size > len(whole) // 2
    not_checked_again(monkeypatch)
    assert replies(load(path), "zh") == built


def test_a_bot_file_with_problems_is_never_cached_and_keeps_its_positions(tmp_path: Path) -> None:
    path = write_bot(tmp_path, bot=BOT.replace("entity: product", "entity: prodcut"))
    for _ in range(2):
        with pytest.raises(FlowError) as caught:
            load(path)
        assert caught.value.problems[0].line == 14
    assert entries(tmp_path) == []


def test_missing_code_on_a_cached_bot_is_reported_at_its_line(tmp_path: Path) -> None:
    """The actions are bound on every load: a cached bot file whose action went missing is an error
    positioned in the bot file, as without the cache."""
    path = write_bot(tmp_path)
    load(path)
    with pytest.raises(FlowError) as caught:
        Bot.from_file(path, store="memory://")
    assert [(p.line, "place_order" in p.message) for p in caught.value.problems] == [(17, True)]


def test_no_cache_when_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_bot(tmp_path)
    load(path, cache=False)
    assert entries(tmp_path) == []
    monkeypatch.setenv("DIALOGKIT_CACHE", "0")
    load(path)
    assert entries(tmp_path) == []


def _start(path: str, barrier: Any, results: Any) -> None:
    barrier.wait()
    bot = load(Path(path))
    results.put(bot.handle("s", "I want to buy a caffe latte").slots.get("product"))


def test_two_processes_starting_at_once_both_load_and_leave_a_valid_entry(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_bot(tmp_path)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_start, args=(str(path), barrier, results)) for _ in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0, 0]
    assert sorted(results.get(timeout=5) for _ in processes) == ["latte", "latte"]
    assert [entry.suffix for entry in entries(tmp_path)] == [".pickle"], "no temporary file left"
    not_checked_again(monkeypatch)
    assert load(path).handle("s", "我想买一杯拿铁").slots.get("product") == "latte"


def test_a_small_bot_is_not_cached_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A few lines build in milliseconds: a pickle written and read back would cost as much."""
    monkeypatch.delenv("DIALOGKIT_CACHE_MIN_BYTES")
    bot = load(write_bot(tmp_path))
    assert entries(tmp_path) == []
    assert bot.handle("s", TURNS["en"][1]).slots == {"product": "latte"}
