"""The reference-resolution evaluation set must pass at >= 95%, balanced across languages."""

from __future__ import annotations

from collections import Counter

from tests.memory.eval_report import load_cases, pass_rate, report, run_all


def test_eval_set_is_large_and_balanced() -> None:
    cases = load_cases()
    languages = Counter(c["language"] for c in cases)
    assert len(cases) >= 60 and languages["zh"] == languages["en"]
    assert {c["category"] for c in cases} >= {"pronoun", "demonstrative", "ordinal", "definite", "ellipsis",
                                              "ambiguity", "near_ambiguity"}
    assert len({c["id"] for c in cases}) == len(cases)


def test_eval_pass_rate_is_at_least_95_percent() -> None:
    outcomes = run_all()
    print(report(outcomes))
    assert pass_rate(outcomes) >= 0.95, report(outcomes)
