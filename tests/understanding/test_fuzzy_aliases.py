"""``fuzzy: N``: Latin aliases of five letters or more read through a typo, asked about before written."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit import Bot

BOT = """\
bot:
  name: cafe
  language: auto
entities:
  drink:
    kind: thing
    {fuzzy}
    values:
      latte: [拿铁, latte]
      phone: [iPhone]
      mocha: [摩卡, mocha]
      macha: [macha]
      tea: [茶, tea]
flows:
  order:
    description: 点饮料 / Order a drink
    trigger:
      examples: [我想点一杯饮料, I would like a drink]
      keywords: [点, order]
    slots:
      - name: drink
        entity: drink
        ask: {{zh: 您要喝什么？, en: What would you like to drink?}}
    execute:
      say: {{zh: "好的，{{drink}}。", en: "OK, {{drink}}."}}
"""


def bot(tmp_path: Path, fuzzy: str = "fuzzy: 1") -> Bot:
    path = tmp_path / "cafe.yaml"
    path.write_text(BOT.format(fuzzy=fuzzy), encoding="utf-8")
    return Bot.from_file(path, store="memory://")


def values(b: Bot, text: str) -> list[tuple[object, str, bool]]:
    return [(m.value, m.text, m.fuzzy) for m in b.understanding.extract(text, ["drink"])]


@pytest.mark.parametrize(("text", "value", "typo"), [
    ("a lattee please", "latte", "lattee"),            # a letter added
    ("an iphnoe", "phone", "iphnoe"),                   # two neighbours swapped
    ("我要一杯 lattee", "latte", "lattee"),              # in a Chinese sentence
])
def test_a_typo_within_one_edit_names_the_value(tmp_path: Path, text: str, value: str, typo: str) -> None:
    assert values(bot(tmp_path), text) == [(value, typo, True)]


def test_an_exact_alias_is_no_typo(tmp_path: Path) -> None:
    assert values(bot(tmp_path), "a latte please") == [("latte", "latte", False)]


def test_short_aliases_two_edits_and_two_values_in_reach_name_nothing(tmp_path: Path) -> None:
    b = bot(tmp_path)
    assert values(b, "a teaa") == []          # "tea" has three letters
    assert values(b, "a lattxee") == []       # two edits
    assert values(b, "a mecha") == []         # one edit from mocha, one from macha: which?


def test_without_fuzzy_a_typo_is_no_value(tmp_path: Path) -> None:
    assert values(bot(tmp_path, fuzzy=""), "a lattee please") == []


def test_en_a_typo_is_asked_about_and_taken_when_said_again(tmp_path: Path) -> None:
    b = bot(tmp_path)
    b.handle("s", "I would like a drink")
    reply = b.handle("s", "lattee")
    assert 'By "lattee" do you mean latte?' in reply.text and "drink" not in reply.slots
    assert b.handle("s", "lattee").slots["drink"] == "latte"


def test_zh_a_typo_is_asked_about_in_chinese_and_the_right_spelling_is_taken(tmp_path: Path) -> None:
    b = bot(tmp_path)
    b.handle("s", "我想点一杯饮料")
    reply = b.handle("s", "iphnoe")
    assert "您说的“iphnoe”是指 phone 吗？" in reply.text and "drink" not in reply.slots
    assert b.handle("s", "iPhone").slots["drink"] == "phone"


def test_fuzzy_takes_at_most_two_edits(tmp_path: Path) -> None:
    from dialogkit.errors import FlowError

    with pytest.raises(FlowError, match="fuzzy"):
        bot(tmp_path, fuzzy="fuzzy: 5")
