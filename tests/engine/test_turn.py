"""The turn's context: its written-out ``__init__`` sets every field, each list and dict its own."""

from __future__ import annotations

import dataclasses
from typing import Any

from dialogkit.engine.turn import TurnContext
from dialogkit.model.interpretation import Interpretation
from dialogkit.model.session import Session


def _context(text: str, language: str) -> TurnContext:
    txn: Any = object()
    return TurnContext(txn=txn, session=Session(id="s"), text=text, interp=Interpretation(text=text, language=language),
                       language=language, turn=1, now=0.0)


def test_every_field_is_set_and_each_empty_container_is_its_own() -> None:
    first, second = _context("我要报修", "zh"), _context("I want to report an issue", "en")
    for f in dataclasses.fields(TurnContext):
        value = getattr(first, f.name)          # an unset slot raises AttributeError
        if isinstance(value, (list, dict)):
            assert value == type(value)() and value is not getattr(second, f.name), f.name
    assert (first.user_key, first.trace, first.log_turn, first.task, first.tracked) == ("", False, False, None, False)
