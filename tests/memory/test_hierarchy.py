"""Hierarchical round summaries (docs/context-window.md): one per 5 rounds, one per 3 of those, built incrementally."""

from __future__ import annotations

import pytest

from dialogkit.errors import LLMError
from dialogkit.memory.hierarchy import extractive_summary, fold_rounds, folded_until, summarize_rounds
from dialogkit.model.session import SummaryState


def rounds(first: int, last: int, language: str = "en") -> list[tuple[int, str, str]]:
    if language == "zh":
        return [(n, f"第{n}轮：订单{10000 + n}的问题。其余细节", f"好的，已记录{n}。") for n in range(first, last + 1)]
    return [(n, f"round {n}: order {10000 + n} broke. more detail", f"Noted {n}. Anything else?")
            for n in range(first, last + 1)]


def test_en_a_summary_per_five_complete_rounds() -> None:
    summary = SummaryState()
    fold_rounds(summary, rounds(1, 12), summarize_text=None, language="en")
    assert [(s["start_round"], s["end_round"], s["level"]) for s in summary.round_summaries] == [(1, 5, 1), (6, 10, 1)]
    first = summary.round_summaries[0]["text"]
    assert "User: round 1: order 10001 broke, Bot: Noted 1" in first and "more detail" not in first


def test_zh_extractive_summary_keeps_first_clauses() -> None:
    summary = SummaryState()
    fold_rounds(summary, rounds(1, 5, "zh"), summarize_text=None, language="zh")
    text = summary.round_summaries[0]["text"]
    assert text.startswith("用户：第1轮：订单10001的问题，助手：好的，已记录1") and "其余细节" not in text


def test_folding_is_incremental() -> None:
    """Rounds already folded are skipped; a partial tail waits for the next call."""
    summary = SummaryState()
    calls: list[list[str]] = []

    def llm(texts: list[str], language: str) -> str:
        calls.append(texts)
        return f"summary of {len(texts)}"

    fold_rounds(summary, rounds(1, 7), summarize_text=llm, language="en")
    fold_rounds(summary, rounds(1, 9), summarize_text=llm, language="en")
    assert len(summary.round_summaries) == 1 and len(calls) == 1
    fold_rounds(summary, rounds(6, 10), summarize_text=llm, language="en")
    assert [s["start_round"] for s in summary.round_summaries] == [1, 6] and len(calls) == 2


def test_every_three_level_one_summaries_make_a_level_two() -> None:
    summary = SummaryState()
    fold_rounds(summary, rounds(1, 30), summarize_text=None, language="en")
    assert len(summary.round_summaries) == 6
    assert [(b["start_round"], b["end_round"], b["level"]) for b in summary.block_summaries] == [(1, 15, 2), (16, 30, 2)]


def test_zh_llm_summaries_are_used_for_both_levels() -> None:
    summary = SummaryState()
    fold_rounds(summary, rounds(1, 15, "zh"), summarize_text=lambda texts, lang: f"{lang}:{len(texts)}条", language="zh")
    assert [s["text"] for s in summary.round_summaries] == ["zh:5条"] * 3
    assert summary.block_summaries[0]["text"] == "zh:3条"


def test_an_llm_failure_falls_back_to_the_extractive_summary() -> None:
    def broken(texts: list[str], language: str) -> str:
        raise LLMError("timeout")

    summary = SummaryState()
    fold_rounds(summary, rounds(1, 5), summarize_text=broken, language="en")
    assert summary.round_summaries[0]["text"].startswith("User: round 1")


def test_non_consecutive_rounds_are_not_folded() -> None:
    summary = SummaryState()
    fold_rounds(summary, [*rounds(1, 3), *rounds(5, 8)], summarize_text=None, language="en")
    assert summary.round_summaries == []


@pytest.mark.parametrize("language", ["zh", "en"])
def test_extractive_summary_drops_repeats(language: str) -> None:
    joined = extractive_summary(["a. b", "a. c", "d"], language)
    assert joined == ("a；d" if language == "zh" else "a; d")


def test_en_folded_until_reads_either_level() -> None:
    summary = SummaryState()
    assert folded_until(summary) == 0
    fold_rounds(summary, rounds(1, 32), summarize_text=None, language="en", max_blocks=1)
    assert folded_until(summary) == 30


def test_zh_only_what_a_window_can_use_is_kept() -> None:
    """With max_blocks: level-1 summaries a level-2 one covers go, and only the newest level-2 ones stay."""
    summary = SummaryState()
    fold_rounds(summary, rounds(1, 50, "zh"), summarize_text=None, language="zh", max_blocks=2)
    assert [(b["start_round"], b["end_round"]) for b in summary.block_summaries] == [(16, 30), (31, 45)]
    assert [(s["start_round"], s["end_round"]) for s in summary.round_summaries] == [(46, 50)]
    fold_rounds(summary, rounds(51, 55, "zh"), summarize_text=None, language="zh", max_blocks=2)
    assert [(s["start_round"], s["end_round"]) for s in summary.round_summaries] == [(46, 50), (51, 55)]


def test_zh_a_summarizer_reads_whole_rounds_the_fallback_first_clauses() -> None:
    seen: list[list[str]] = []

    def llm(texts: list[str], language: str) -> str:
        seen.append(texts)
        raise LLMError("down")

    text = summarize_rounds(rounds(1, 5, "zh"), "zh", llm)
    assert "其余细节" in seen[0][0] and "其余细节" not in text and "订单10001" in text


def test_en_rounds_no_longer_loaded_are_skipped() -> None:
    summary = SummaryState()
    fold_rounds(summary, [(1, "", ""), (2, "", ""), *rounds(3, 5)], summarize_text=None, language="en")
    [entry] = summary.round_summaries
    assert (entry["start_round"], entry["end_round"]) == (1, 5) and entry["text"].startswith("User: round 3")
