"""Reference-resolution evaluation: run ``eval_references.yaml`` and report the figures.

Each case lists prior turns' mentions, the utterance, and either the values its references
must bind to (``bind``, optionally the ``resolved`` text) or the candidates a clarification
must offer (``clarify``); ``shown`` checks the text the user sees. Run ``python tests/memory/eval_report.py`` to print the table; the
pytest test in ``test_eval_references.py`` asserts the pass rate.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from dialogkit.memory.references import resolve
from dialogkit.memory.tracker import track_mentions
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Session

CASES = Path(__file__).with_name("eval_references.yaml")


@dataclass
class Outcome:
    case: dict[str, Any]
    passed: bool
    got: str

    @property
    def name(self) -> str:
        return str(self.case["id"])


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return list(YAML(typ="safe").load(path.read_text(encoding="utf-8"))["cases"])


def _mentions(rows: list[list[Any]], text: str | None = None) -> list[Mention]:
    """Mentions from [type, value, text, kind] rows, placed where they occur in ``text`` (or in sequence)."""
    placed, offset = [], 0
    for type_name, value, surface, kind in rows:
        start = text.find(surface) if text is not None else offset
        placed.append(Mention(type=type_name, value=str(value), text=surface, start=start,
                              end=start + len(surface), kind=kind))
        offset = start + len(surface) + 1
    return placed


def run_case(case: dict[str, Any]) -> Outcome:
    session = Session(id=f"eval-{case['id']}", user_id="eval")
    for turn, rows in enumerate(case.get("turns", []), start=1):
        track_mentions(session, _mentions(rows), turn=turn)
    text = case["utterance"]
    now = len(case.get("turns", [])) + 1
    result = resolve(session, text, case["language"], turn=now, mentions=_mentions(case.get("mentions", []), text),
                     expected_types=case.get("expected_types", []), task_object_label=case.get("task_object_label"))
    expect = case["expect"]
    bound = [str(b.entity.value) for b in result.bindings]
    if result.ambiguity is not None:
        got = "clarify " + str([str(e.value) for e in result.ambiguity.candidates])
    else:
        got = f"bind {bound} -> {result.resolved_text!r} (shown {result.shown_text!r})"
    if "clarify" in expect:
        ok = result.ambiguity is not None and [str(e.value) for e in result.ambiguity.candidates] == \
            [str(v) for v in expect["clarify"]]
    else:
        ok = result.ambiguity is None and bound == [str(v) for v in expect.get("bind", [])]
        if "resolved" in expect:
            ok = ok and result.resolved_text == expect["resolved"]
        if "shown" in expect:
            ok = ok and result.shown_text == expect["shown"]
    return Outcome(case, ok, got)


def run_all(path: Path = CASES) -> list[Outcome]:
    return [run_case(case) for case in load_cases(path)]


def report(outcomes: list[Outcome]) -> str:
    """Pass rate overall, per language and per category, then each failure."""
    lines = []
    total = len(outcomes)
    passed = sum(o.passed for o in outcomes)
    lines.append(f"reference resolution: {passed}/{total} passed ({100 * passed / max(total, 1):.1f}%)")
    for field in ("language", "category"):
        seen: Counter[str] = Counter(o.case[field] for o in outcomes)
        good: Counter[str] = Counter(o.case[field] for o in outcomes if o.passed)
        lines.append(f"  by {field}: " + ", ".join(f"{k} {good[k]}/{n}" for k, n in sorted(seen.items())))
    for o in outcomes:
        if not o.passed:
            lines.append(f"  FAIL {o.name}: {o.case['utterance']!r} expected {o.case['expect']} got {o.got}")
    return "\n".join(lines)


def pass_rate(outcomes: list[Outcome]) -> float:
    return sum(o.passed for o in outcomes) / max(len(outcomes), 1)


if __name__ == "__main__":
    sys.stdout.write(report(run_all()) + "\n")
