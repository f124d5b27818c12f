"""-k expressions select tests by name, like pytest's."""

from __future__ import annotations

import pytest

from dialogkit.testing.selection import KeywordError, compile_keyword

NAMES = ["damaged phone, zh happy path", "damaged phone, en happy path", "订单状态 zh", "cancel en"]


@pytest.mark.parametrize(("expression", "selected"), [
    ("happy", NAMES[:2]),
    ("HAPPY and zh", NAMES[:1]),
    ("not happy", NAMES[2:]),
    ("订单 or cancel", NAMES[2:]),
    ("(zh or en) and not (happy or 订单)", NAMES[3:]),
    ("zh and not en or cancel", [NAMES[0], NAMES[2], NAMES[3]]),
    ("", NAMES),
])
def test_expressions(expression: str, selected: list[str]) -> None:
    """Words are case-insensitive substrings; not > and > or, with parentheses."""
    matcher = compile_keyword(expression)
    assert [n for n in NAMES if matcher(n)] == selected


@pytest.mark.parametrize("expression", ["happy and", "(zh or en", "or zh", "zh )"])
def test_malformed_expressions_are_errors(expression: str) -> None:
    with pytest.raises(KeywordError):
        compile_keyword(expression)
