"""Conditions over slot values (``ask_if``, ``execute.when``), parsed once when the bot loads.

They are evaluated by simpleeval, a small pure-Python library that walks the expression's syntax
tree itself with a whitelist of operators and no attribute access, so a bot file can never run
code (no ``eval``). It is parsed here once, so a syntax error or an unknown slot name is a load
error with its position, and a turn only walks the ready tree.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from simpleeval import SimpleEval  # type: ignore[import-untyped]

# Names a condition may use besides the flow's slots.
CONSTANTS: dict[str, Any] = {"true": True, "false": False, "null": None, "none": None,
                             "True": True, "False": False, "None": None}


class ConditionError(ValueError):
    """A condition that cannot be parsed, or names something that is not a slot."""


@dataclass(frozen=True, slots=True)
class Condition:
    source: str
    tree: ast.Expr

    def holds(self, slots: Mapping[str, Any], names: Collection[str]) -> bool:
        """True when the condition is true over ``slots``; a slot not yet filled reads as None, and a
        comparison that fails on it (None > 3) counts as false."""
        values = {**CONSTANTS, **dict.fromkeys(names), **{k: v for k, v in slots.items() if k in names}}
        evaluator = _evaluator()
        evaluator.names = values
        try:
            return bool(evaluator.eval(self.source, previously_parsed=self.tree))
        except Exception:   # None < 3, "a" + 1...: a value the author did not foresee
            return False


_LOCAL = threading.local()


def _evaluator() -> SimpleEval:
    """This thread's evaluator: building one (its operator and node tables) cost more than the
    walk of a condition's tree; the names are set afresh before each walk, which never re-enters."""
    evaluator = getattr(_LOCAL, "evaluator", None)
    if evaluator is None:
        evaluator = _LOCAL.evaluator = SimpleEval(functions={})
    return evaluator


def parse_condition(source: str, names: Collection[str]) -> Condition:
    """Parse ``source``; ``names`` are the slots it may name. Raises ConditionError."""
    try:
        tree = SimpleEval().parse(source)
    except SyntaxError as exc:
        raise ConditionError(f"condition is not an expression: {exc.msg}") from None
    if not isinstance(tree, ast.Expr):
        raise ConditionError("condition is not an expression")
    if any(isinstance(n, ast.Call | ast.Attribute) for n in ast.walk(tree)):
        raise ConditionError("a condition compares slot values; it calls no functions and reads no attributes")
    unknown = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(names) - set(CONSTANTS))
    if unknown:
        raise ConditionError(f"condition names unknown slot '{unknown[0]}'")
    return Condition(source=source, tree=tree)

