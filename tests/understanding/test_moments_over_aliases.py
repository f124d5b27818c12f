"""A bot's alias must not eat part of a built-in value (docs/bot-file.md, "When two types read the
same words"): where a date or time reads longer words holding the alias ("下午" in "周五下午四点",
"evening" in "at 6 in the evening"), the built-in reading wins; the alias alone is still the bot's.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dialogkit.spec.checks_overlaps import overlap_warnings
from dialogkit.spec.schema import BotFile
from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import fixed_clock

BOT = Path(__file__).resolve().parent / "bots" / "shifts.yaml"


@cache
def spec() -> BotFile:
    return BotFile.model_validate(YAML(typ="safe").load(BOT.read_text(encoding="utf-8")))


def read(text: str, language: str) -> dict[str, object]:
    found = RuleUnderstanding(spec(), clock=fixed_clock).interpret(text, language).mentions
    return {m.type: m.value for m in found}


@pytest.mark.parametrize(("text", "language", "time"), [
    ("周五下午四点", "zh", "16:00"), ("晚上八点半来", "zh", "20:30"), ("at 6 in the evening", "en", "18:00"),
])
def test_the_longer_time_keeps_the_alias_inside_it(text: str, language: str, time: str) -> None:
    found = read(text, language)
    assert found.get("time") == time and "shift" not in found


@pytest.mark.parametrize(("text", "language"), [("下午", "zh"), ("I'd take the evening", "en")])
def test_the_alias_alone_is_still_the_bots(text: str, language: str) -> None:
    assert read(text, language).get("shift") == "late"


def test_validate_warns_of_an_alias_a_time_reads() -> None:
    warnings = [message for _where, message, *_rest in overlap_warnings(spec()) if "built-in time" in message]
    assert len(warnings) == 1
    assert "'shift' (and 3 more)" in warnings[0]     # 下午, 晚上, evening, afternoon; not 早班
