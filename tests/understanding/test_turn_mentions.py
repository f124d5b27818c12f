"""The turn read as given types, from its interpretation (``Interpretation.read_as``): what
``extract`` finds in the turn's words, each type looked for once a turn."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest

from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.understanding.rules import RuleUnderstanding

# "damaged" is an issue type in the turn's reading, and a return reason too when read as one.
TURNS = [
    ("zh", "订单12345的手机坏了，退两个", {"return_reason", "order_id"}),
    ("en", "order 12345: my phone arrived damaged, return 2 of them", {"return_reason", "order_id"}),
    ("zh", "订单12345的手机坏了，退两个", {"number", "integer", "product"}),
    ("en", "return 2 phones from order 12345 on 2026-12-01", {"integer", "number", "date", "issue_type"}),
]


def key(mentions: list[Mention]) -> list[tuple[str, Any, int, int]]:
    return [(m.type, m.value, m.start, m.end) for m in mentions]


@pytest.mark.parametrize(("lang", "text", "types"), TURNS)
def test_the_turn_read_as_types_is_what_extract_finds(rules: RuleUnderstanding, lang: str, text: str,
                                                      types: set[str]) -> None:
    """Overlaps kept, in text order, one type alone or several at once, whichever asked first."""
    interp = rules.interpret(text, lang)
    for name in sorted(types):
        assert key(interp.read_as([name])) == key(rules.extract(text, [name]))
    assert key(interp.read_as(types)) == key(rules.extract(text, types))
    assert key(interp.read_as(sorted(types, reverse=True))) == key(rules.extract(text, types))


@pytest.mark.parametrize(("lang", "text"), [("zh", "订单12345的手机坏了"), ("en", "order 12345: my phone is broken")])
def test_a_type_another_type_claimed_is_read_as_asked(rules: RuleUnderstanding, lang: str, text: str) -> None:
    """The reading gives "坏了" / "broken" to the issue type; read as a return reason, it is one too."""
    interp = rules.interpret(text, lang)
    assert "return_reason" not in {m.type for m in interp.mentions}
    assert [(m.type, m.value) for m in interp.read_as({"return_reason"})] == [("return_reason", "damaged")]


@pytest.mark.parametrize(("lang", "text"), [("zh", "订单12345的手机坏了，退两个"), ("en", "return 2 broken phones, order 12345")])
def test_each_type_is_looked_for_once_a_turn(rules: RuleUnderstanding, monkeypatch: pytest.MonkeyPatch,
                                             lang: str, text: str) -> None:
    """However often the turn's steps ask; number and integer share one numeral scan."""
    interp = rules.interpret(text, lang)
    asked: list[list[str]] = []
    find = rules.entities.find

    def counted(original: str, folded: str, types: Collection[str], *args: Any, **kwargs: Any) -> list[Mention]:
        asked.append(list(types))
        return find(original, folded, types, *args, **kwargs)

    monkeypatch.setattr(rules.entities, "find", counted)
    first = [key(interp.read_as(types)) for types in (["order_id"], ["integer"], ["order_id", "number", "product"])]
    again = [key(interp.read_as(types)) for types in (["order_id"], ["integer"], ["order_id", "number", "product"])]
    assert first == again
    assert sorted(map(sorted, asked)) == [["integer", "number"], ["order_id"], ["product"]]


def test_an_unknown_type_is_refused_as_extract_refuses_it(rules: RuleUnderstanding) -> None:
    with pytest.raises(ValueError, match="unknown entity type"):
        rules.interpret("订单12345", "zh").read_as(["no_such_type"])


def test_an_interpretation_made_by_hand_holds_its_mentions_alone() -> None:
    """Without the understanding that read it (an LLM's, a test's), the mentions it holds answer."""
    order = Mention("order_id", "12345", "12345", 3, 8)
    interp = Interpretation(text="订单 12345", language="zh", mentions=[order])
    assert interp.read_as({"order_id"}) == [order] and interp.read_as({"product"}) == []
