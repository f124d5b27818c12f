"""Hierarchical round summaries for long sessions: one per 5 rounds, one per 3 of those.

The context window replaces old rounds by these when it runs out of room. Folding is
incremental: only complete blocks of rounds after the last folded one are summarised, so each
round is summarised once, however often this runs. With no LLM the summary is extractive: the
first clause of each message, trimmed, which keeps the numbers and names users care about.

Rounds that left the recent window but do not yet make a complete block are summarised on the
fly by the caller with ``summarize_rounds`` (at most a block's worth, so still O(new)); only
complete blocks are stored. With ``max_blocks``, only what a window can still use is kept:
level-1 summaries a level-2 one covers go, and at most ``max_blocks`` level-2 ones stay.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any

from dialogkit.errors import LLMError
from dialogkit.lexicon import writing
from dialogkit.logging import get_logger
from dialogkit.model.session import SummaryState
from dialogkit.text.phrases import phrase

__all__ = ["BLOCK_SIZE", "ROUNDS_PER_SUMMARY", "AsyncSummarizer", "FoldSteps", "Summarizer", "afold_rounds",
           "extractive_summary", "fold_rounds", "fold_steps", "folded_until", "summarize_rounds"]

ROUNDS_PER_SUMMARY = 5
BLOCK_SIZE = 3
_CLAUSE_CHARS = 48
_FIRST_CLAUSE = re.compile(r"^(.+?)(?:[。！？!?；;\n]|\.\s|$)", re.DOTALL)

log = get_logger("dialogkit.memory")
Summarizer = Callable[[list[str], str], str]
"""(texts, language) -> summary; raises ``LLMError`` when it cannot write one."""
AsyncSummarizer = Callable[[list[str], str], Awaitable[str]]
Answer = str | LLMError | None
"""What a summarizer answered: a summary, the error that stopped it, or nothing (none asked)."""
FoldSteps = Generator[list[str], Answer, None]


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
    return writing(language).clause_separator.join(seen)


def _round_lines(rounds: Sequence[tuple[int, str, str]], language: str, *, clip: bool = True) -> list[str]:
    """One "User: ..., Bot: ..." line per round: first clauses only when ``clip``, else whole texts."""
    user, bot = phrase("speaker_user", language), phrase("speaker_bot", language)
    written = writing(language)
    sep = written.colon
    cut = _clause if clip else (lambda text: " ".join(text.split()))
    lines = []
    for _, user_text, bot_text in rounds:
        if not user_text.strip() and not bot_text.strip():
            continue   # a round no longer loaded: nothing to say about it
        line = f"{user}{sep}{cut(user_text)}"
        if bot_text.strip():
            line += written.comma + f"{bot}{sep}{cut(bot_text)}"
        lines.append(line)
    return lines


def folded_until(summary: SummaryState) -> int:
    """The last round a stored summary covers; 0 when none does."""
    ends = [int(s["end_round"]) for s in summary.round_summaries]
    ends += [int(b["end_round"]) for b in summary.block_summaries]
    return max(ends, default=0)


def summarize_rounds(rounds: Sequence[tuple[int, str, str]], language: str, summarize_text: Summarizer | None) -> str:
    """One summary of ``rounds`` (round number, user text, bot text), as a block's would read.

    A summarizer reads the whole rounds (a value may come late in a long message); the
    extractive fallback takes the first clause of each."""
    texts = _round_lines(rounds, language, clip=False) if summarize_text is not None else []
    return _settled(_asked(summarize_text, texts, language), texts, _round_lines(rounds, language), language, None)


def fold_rounds(summary: SummaryState, rounds: Sequence[tuple[int, str, str]], *,
                summarize_text: Summarizer | None, language: str,
                max_blocks: int | None = None, fallback: Summarizer | None = None) -> None:
    """Summarise every new complete block of 5 rounds, then every 3 new level-1 summaries.

    ``rounds`` are (round number, user text, bot text); they need only include the rounds not
    yet folded (older ones are skipped). A block is folded only when all 5 of its consecutive
    round numbers are present, so a partial tail waits for the next call. ``fallback`` writes
    a summary the summarizer failed to (or every one, with no summarizer); the extractive
    summary stands in for an empty one.
    """
    steps = fold_steps(summary, rounds, language=language, max_blocks=max_blocks, fallback=fallback,
                       ask=summarize_text is not None)
    answer: Answer = None
    while (texts := _next(steps, answer)) is not None:
        answer = _asked(summarize_text, texts, language)


async def afold_rounds(summary: SummaryState, rounds: Sequence[tuple[int, str, str]], *,
                       asummarize: AsyncSummarizer, language: str, max_blocks: int | None = None,
                       fallback: Summarizer | None = None) -> None:
    """``fold_rounds`` with a summarizer that is awaited (an async LLM client): the same steps,
    so the same summaries for the same answers."""
    steps = fold_steps(summary, rounds, language=language, max_blocks=max_blocks, fallback=fallback)
    answer: Answer = None
    while (texts := _next(steps, answer)) is not None:
        try:
            answer = await asummarize(texts, language)
        except LLMError as error:
            answer = error


def fold_steps(summary: SummaryState, rounds: Sequence[tuple[int, str, str]], *, language: str,
               max_blocks: int | None = None, fallback: Summarizer | None = None, ask: bool = True) -> FoldSteps:
    """The fold as a generator, whoever calls the summarizer (sync or async): it yields the texts
    it needs summarised and is sent each answer (the summary, or the ``LLMError`` that stopped it).
    A level-2 summary reads level-1 ones, so its texts are yielded only once those are written.
    With ``ask`` false nothing is yielded: every summary is the fallback's (or extractive)."""
    done: int | None = folded_until(summary) or None
    fresh = sorted((r for r in rounds if done is None or r[0] > done), key=lambda r: r[0])
    while len(fresh) >= ROUNDS_PER_SUMMARY:
        block = fresh[:ROUNDS_PER_SUMMARY]
        if block[-1][0] - block[0][0] != ROUNDS_PER_SUMMARY - 1:
            break   # a gap: these rounds are not consecutive, wait for the full history
        if done is not None and block[0][0] != done + 1:
            break
        fresh = fresh[ROUNDS_PER_SUMMARY:]
        texts = _round_lines(block, language, clip=False)
        answer = (yield texts) if ask else None
        text = _settled(answer, texts, _round_lines(block, language), language, fallback)
        summary.round_summaries.append(_entry(block[0][0], block[-1][0], text, 1))
        done = block[-1][0]
    covered = summary.block_summaries[-1]["end_round"] if summary.block_summaries else None
    waiting = [s for s in summary.round_summaries if covered is None or s["start_round"] > covered]
    while len(waiting) >= BLOCK_SIZE:
        group, waiting = waiting[:BLOCK_SIZE], waiting[BLOCK_SIZE:]
        texts = [s["text"] for s in group]
        answer = (yield texts) if ask else None
        text = _settled(answer, texts, texts, language, fallback)
        summary.block_summaries.append(_entry(group[0]["start_round"], group[-1]["end_round"], text, 2))
    _prune(summary, max_blocks)


def _next(steps: FoldSteps, answer: Answer) -> list[str] | None:
    """The texts the fold asks for next, given the previous answer; None once it is done."""
    try:
        return steps.send(answer)
    except StopIteration:
        return None


def _asked(summarize_text: Summarizer | None, texts: list[str], language: str) -> Answer:
    """The summarizer's answer (None with no summarizer, the error when it failed)."""
    if summarize_text is None:
        return None
    try:
        return summarize_text(texts, language)
    except LLMError as error:
        return error


def _settled(answer: Answer, texts: list[str], extract: list[str], language: str, fallback: Summarizer | None) -> str:
    """The summary to keep: the answer, else the fallback's summary of ``texts``, else (when
    either is empty) the extractive one of ``extract``. A failure with no fallback is logged
    here; one with a fallback is its caller's to report (the LLM layer already did)."""
    if not isinstance(answer, str):
        if isinstance(answer, LLMError) and fallback is None:
            log.warning("round_summary_fallback", error=str(answer))
        answer = fallback(texts, language) if fallback is not None else ""
    return answer.strip() or extractive_summary(extract, language)


def _prune(summary: SummaryState, max_blocks: int | None) -> None:
    """Keep what a window can still use: level-1 summaries no level-2 one covers, and the newest
    ``max_blocks`` level-2 ones (``folded_until`` reads the end of either, so nothing is refolded)."""
    if max_blocks is None or not summary.block_summaries:
        return
    covered = int(summary.block_summaries[-1]["end_round"])
    kept = [s for s in summary.round_summaries if int(s["end_round"]) > covered]
    if len(kept) < len(summary.round_summaries):
        summary.round_summaries[:] = kept
    if len(summary.block_summaries) > max_blocks:
        del summary.block_summaries[: len(summary.block_summaries) - max_blocks]


def _entry(start: int, end: int, text: str, level: int) -> dict[str, Any]:
    return {"start_round": start, "end_round": end, "text": text, "level": level}
