"""What a simulation prints: the run's figures, and for each class of violation the behaviour
broken, how often, and the minimal conversation with the bot's replies."""

from __future__ import annotations

from dialogkit.simulation.harness import Progress, ViolationClass
from dialogkit.simulation.observation import TurnRecord
from dialogkit.simulation.runner import SimulationResult


def _turn(turn: TurnRecord) -> list[str]:
    lines = [f"  {turn.index + 1:>2}. user: {turn.utterance.text}    [{turn.utterance.describe()}, {turn.language}]"]
    if turn.reply is None:
        last = (turn.error or "").strip().splitlines()[-1:] or ["(no reply)"]
        return [*lines, f"      raised: {last[0]}"]
    after = turn.after
    slots = ", ".join(f"{k}={v!r}" for k, v in after.slots.items())
    text = turn.reply.text.splitlines() or [""]
    lines.append(f"      bot:  {text[0]}")
    lines += [f"            {line}" for line in text[1:]]
    extra = f" clarify={list(turn.reply.clarification)}" if turn.reply.clarification else ""
    lines.append(f"            [{after.state} {after.flow or '-'} {{{slots}}}{extra}]")
    return lines


def describe_class(record: ViolationClass, total: int) -> list[str]:
    example = record.example
    how = "minimal conversation" if record.shrunk else "conversation (not shrunk)"
    lines = [
        f"✗ {record.key}  ({example.invariant.letter}) {example.invariant.title}",
        f"  in {record.conversations} of {total} conversations; {how}, {len(example.turns)} turn(s):",
    ]
    for turn in example.turns:
        lines += _turn(turn)
    lines.append(f"  broken: {example.finding.message}")
    return lines


def summary_line(result: SimulationResult) -> str:
    tally = result.tally
    rate = tally.done / result.seconds if result.seconds else 0.0
    kinds = len(tally.classes)
    verdict = (f"{kinds} kind{'s' if kinds != 1 else ''} of violation in {tally.with_violations} conversation"
               f"{'s' if tally.with_violations != 1 else ''}" if kinds else "no violations")
    return (f"{result.bot_name}: {tally.done} conversations, {result.turns} turns in {result.seconds:.1f}s "
            f"({rate:.1f} conversations/s, seed {result.options.seed}): {verdict}")


def format_result(result: SimulationResult) -> str:
    lines: list[str] = []
    for record in result.tally.classes.values():
        lines += [*describe_class(record, result.tally.done), ""]
    lines.append(summary_line(result))
    return "\n".join(lines)


def progress_line(progress: Progress) -> str:
    line = (f"{progress.done}/{progress.total} conversations, {progress.with_violations} with violations "
            f"({progress.classes} kind{'s' if progress.classes != 1 else ''})")
    return f"{line}; shrinking {progress.shrinking}" if progress.shrinking else line
