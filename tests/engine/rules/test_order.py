"""The order of the rules is data: every rule is named once, says why it stands where it does,
and docs/commands.md lists them in the same order."""

from __future__ import annotations

import re
from pathlib import Path

from dialogkit.engine.rules import RULES
from dialogkit.engine.rules.base import ANY

DOC = Path(__file__).resolve().parents[3] / "docs" / "commands.md"


def test_each_rule_is_named_once_and_says_why() -> None:
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))
    assert all(rule.why.strip() and rule.run.__doc__ for rule in RULES)
    assert all(rule.states <= ANY and rule.states for rule in RULES)


def test_the_documentation_lists_the_rules_in_their_order() -> None:
    documented = re.findall(r"^\| \d+ \| `(\w+)` \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    assert documented == [rule.name for rule in RULES]


def test_a_state_ends_in_a_rule_that_always_decides() -> None:
    """Idle and confirming turns end in a fallback; collecting ones in the slot values rule."""
    last = {state: [r.name for r in RULES if state in r.states][-1]
            for state in ("IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION")}
    assert last == {"IDLE": "not_understood", "TASK_INIT": "slot_values", "PARAM_COLLECT": "slot_values",
                    "CONFIRMATION": "not_answered"}
