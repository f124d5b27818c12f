"""The user documentation in docs/ stays true: its runnable examples run, its lists are complete
(behaviours 1-22, every `expect` key, every CLI option), and its links lead somewhere."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from dialogkit import Bot
from dialogkit.cli import app
from dialogkit.testing import run_file
from dialogkit.testing.cases import EXPECT_KEYS, FILE_KEYS, STEP_KEYS, TEST_KEYS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
_EXAMPLE = re.compile(r"<!-- example: (\S+) -->\n```\w*\n(.*?)```", re.DOTALL)


def _read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _examples(name: str) -> dict[str, str]:
    """Code blocks marked ``<!-- example: FILE -->`` in a page, by the file they stand for."""
    return {match.group(1): match.group(2) for match in _EXAMPLE.finditer(_read(name))}


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[Path]:
    """The custom-validator example of bot-file.md, written out as its two files."""
    for file, text in _examples("bot-file.md").items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    yield tmp_path / "shop.yaml"
    sys.modules.pop("shop_actions", None)


@pytest.mark.parametrize(("opening", "question"), [
    ("我的订单有问题", "请提供订单号。"),
    ("there is a problem with my order", "What is your order number?"),
])
def test_the_custom_validator_example_runs(shop: Path, opening: str, question: str) -> None:
    with Bot.from_file(shop, store="memory://") as bot:
        assert bot.handle("s", opening).text == question
        refused = bot.handle("s", "99912345")
        assert refused.text.startswith("测试订单不能报修。/ Test orders cannot be reported.")
        assert refused.state == "PARAM_COLLECT" and refused.slots.get("order_id") is None
        done = bot.handle("s", "12345")
        assert done.state == "IDLE" and done.actions[0].name == "create_ticket"
        assert "T-" in done.text


def test_the_test_file_example_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """testing.md's example, placed where its ``bot:`` path expects the shipped bot."""
    (name, text), = _examples("testing.md").items()
    target = tmp_path / name
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    (tmp_path / "flows").mkdir()
    shutil.copy(ROOT / "flows" / "support_ticket.yaml", tmp_path / "flows")
    monkeypatch.chdir(ROOT)            # the bot's actions module is found from the working directory
    result = run_file(target)
    assert not result.problems
    failures = [r for r in result.results if not r.passed]
    assert result.passed == 2 and not failures, failures


def test_behaviours_are_numbered_1_to_22() -> None:
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", _read("behaviours.md"), re.MULTILINE)]
    assert numbers == list(range(1, 23))


def test_every_behaviour_has_a_zh_and_an_en_example() -> None:
    sections = re.split(r"^## \d+\. ", _read("behaviours.md"), flags=re.MULTILINE)[1:]
    for number, section in enumerate(sections, start=1):
        assert "| 中文 | English |" in section, f"item {number} has no side-by-side example"


@pytest.mark.parametrize("key", [*FILE_KEYS, *TEST_KEYS, *STEP_KEYS, *EXPECT_KEYS])
def test_every_test_file_key_is_documented(key: str) -> None:
    assert f"| `{key}` |" in _read("testing.md")


def _options() -> dict[str, list[str]]:
    """Command name -> its option flags, as typer builds the command line."""
    group = typer.main.get_command(app)
    commands = getattr(group, "commands", {})
    return {name: [flag for p in command.params if p.param_type_name == "option" for flag in p.opts]
            for name, command in commands.items()}


@pytest.mark.parametrize("name", sorted(_options()))
def test_every_command_and_option_is_documented(name: str) -> None:
    page = _read("cli.md")
    assert f"## `dialogkit {name}`" in page
    for flag in _options()[name]:
        assert f"`{flag}" in page, f"{name} {flag} is not in cli.md"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    headings = {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}
    return headings | set(re.findall(r'<a id="([^"]+)"', text))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_lead_somewhere(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        linked = (page.parent / file) if file else page
        assert linked.exists(), f"{page.name} links to missing {file}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name} links to missing #{anchor} in {linked.name}"


def test_the_pages_never_cite_the_internal_contract() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "SPEC" not in text and "DESIGN.md" not in text, page.name
