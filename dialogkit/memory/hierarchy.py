"""Hierarchical round summaries for long sessions: one per 5 rounds, one per 3 of those.

The context window replaces old rounds by these when it runs out of room. Folding is
incremental: only complete blocks of rounds after the last folded one are summarised, so each
round is summarised once, however often this runs. With no LLM the summary is extractive: the
first clause of each message, trimmed, which keeps the numbers and names users care about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from dialogkit.errors import LLMError
from dialogkit.runtime.session import SummaryState

__all__ = ["BLOCK_SIZE", "ROUNDS_PER_SUMMARY", "extractive_summary", "fold_rounds"]

ROUNDS_PER_SUMMARY = 5
BLOCK_SIZE = 3
_CLAUSE_CHARS = 48
_FIRST_CLAUSE = re.compile(r"^(.+?)(?:[。！？!?；;\n]|\.\s|$)", re.DOTALL)

log = structlog.get_logger("dialogkit.memory")
Summarizer = Callable[[list[str], str], str]


def _clause(text: str) -> str:
    match = _FIRST_CLAUSE.match(text.strip())
    clause = (match.group(1) if match else text).strip()
    return clause if len(clause) <= _CLAUSE_CHARS else clause[: _CLAUSE_CHARS - 1] + "…"


def extractive_summary(texts: list[str], language: str) -> str:
    """Rule-based summary: the first clause of each text, repeats removed, in order."""
    seen: list[str] = []
    for text in texts:
        clause = _clause(text)
        if clause and clause not in seen:
            seen.append(clause)
    return ("；" if language == "zh" else "; ").join(seen)


def _summarize(texts: list[str], language: str, summarize_text: Summarizer | None) -> str:
    """Ask the LLM when there is one; an LLM failure falls back to the extractive summary."""
    if summarize_text is not None:
        try:
            text = summarize_text(texts, language).strip()
            if text:
                return text
        except LLMError as error:
            log.warning("round_summary_fallback", error=str(error))
    return extractive_summary(texts, language)


def _round_lines(rounds: Sequence[tuple[int, str, str]], language: str) -> list[str]:
    user, bot = ("用户", "助手") if language == "zh" else ("User", "Bot")
    sep = "：" if language == "zh" else ": "
    lines = []
    for _, user_text, bot_text in rounds:
        line = f"{user}{sep}{_clause(user_text)}"
        if bot_text.strip():
            line += ("，" if language == "zh" else ", ") + f"{bot}{sep}{_clause(bot_text)}"
        lines.append(line)
    return lines


def fold_rounds(summary: SummaryState, rounds: Sequence[tuple[int, str, str]], *,
                summarize_text: Summarizer | None, language: str) -> None:
    """Summarise every new complete block of 5 rounds, then every 3 new level-1 summaries.

    ``rounds`` are (round number, user text, bot text); they need only include the rounds not
    yet folded (older ones are skipped). A block is folded only when all 5 of its consecutive
    round numbers are present, so a partial tail waits for the next call.
    """
    done = summary.round_summaries[-1]["end_round"] if summary.round_summaries else None
    fresh = sorted((r for r in rounds if done is None or r[0] > done), key=lambda r: r[0])
    while len(fresh) >= ROUNDS_PER_SUMMARY:
        block, fresh = fresh[:ROUNDS_PER_SUMMARY], fresh[ROUNDS_PER_SUMMARY:]
        if block[-1][0] - block[0][0] != ROUNDS_PER_SUMMARY - 1:
            break   # a gap: these rounds are not consecutive, wait for the full history
        if done is not None and block[0][0] != done + 1:
            break
        text = _summarize(_round_lines(block, language), language, summarize_text)
        summary.round_summaries.append(_entry(block[0][0], block[-1][0], text, 1))
        done = block[-1][0]
    _fold_blocks(summary, summarize_text, language)


def _fold_blocks(summary: SummaryState, summarize_text: Summarizer | None, language: str) -> None:
    covered = summary.block_summaries[-1]["end_round"] if summary.block_summaries else None
    waiting = [s for s in summary.round_summaries if covered is None or s["start_round"] > covered]
    while len(waiting) >= BLOCK_SIZE:
        group, waiting = waiting[:BLOCK_SIZE], waiting[BLOCK_SIZE:]
        text = _summarize([s["text"] for s in group], language, summarize_text)
        summary.block_summaries.append(_entry(group[0]["start_round"], group[-1]["end_round"], text, 2))


def _entry(start: int, end: int, text: str, level: int) -> dict[str, Any]:
    return {"start_round": start, "end_round": end, "text": text, "level": level}
