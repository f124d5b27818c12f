"""The context window manager: the dual track's "sent" side, trimmed by priority to a budget.

The full history is always stored elsewhere; this module decides what of it an LLM sees for one
turn. Trimming runs in a fixed order so the result is predictable:

1. every part is redacted (sensitive slot values never reach an LLM) and counted (cached);
2. a non-pinned part larger than the room left by the pinned ones is truncated with a marker;
3. older rounds are replaced by their level-1 summaries, oldest first, then level-1 summaries
   by the level-2 summary covering them (recent rounds are never summarised away);
4. the lowest-priority, oldest parts are dropped (a round goes as a whole); pinned never are;
5. if the pinned parts alone still exceed the budget, the largest are truncated with a marker.

The output keeps chronological order: system prompt, flow state, summaries and memory (as
system messages), pinned messages, rounds and round summaries in order, current user message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dialogkit.context.parts import (
    CURRENT,
    ENTITY_MEMORY,
    FLOW,
    OLDER,
    PINNED,
    PRIORITIES,
    RECENT,
    ROUND_SUMMARY,
    SUMMARY,
    SYSTEM,
    TRUNCATION_MARKER,
    BuiltContext,
    ContextInputs,
    ContextMessage,
    Round,
    RoundSummary,
)
from dialogkit.context.tokens import REPLY_PRIMING_TOKENS, TokenCounter
from dialogkit.strings.redaction import Redactor

__all__ = [
    "NEGATIVE_SAVING",
    "BuiltContext",
    "ContextInputs",
    "ContextMessage",
    "Round",
    "RoundSummary",
    "build_context",
    "export_text",
    "saved_line",
]

_MAX_TRUNCATION_PASSES = 4


@dataclass(eq=False)
class _Unit:
    """Messages that are kept or dropped together (a round is one unit); compared by identity."""

    label: str
    part: str
    position: tuple[int, int, int]
    messages: list[ContextMessage]
    pinned: bool = False
    rounds: frozenset[int] = field(default_factory=frozenset)

    @property
    def tokens(self) -> int:
        return sum(m.tokens for m in self.messages)

    @property
    def priority(self) -> int:
        return PRIORITIES[self.part]


class _Builder:
    def __init__(self, counter: TokenCounter, redact: Redactor) -> None:
        self.counter = counter
        self.redact = redact

    def message(self, role: str, content: str, part: str, *, pinned: bool = False) -> ContextMessage:
        text = self.redact(content)
        return ContextMessage(
            role=role,
            content=text,
            priority=PRIORITIES[part],
            tokens=self.counter.count_message(role, text),
            part=part,
            pinned=pinned,
        )

    def truncate(self, message: ContextMessage, target: int) -> bool:
        """Cut ``message`` to at most ``target`` tokens, ending with the marker; False if the
        marker alone would not fit (the caller then drops or accepts the overflow)."""
        counter = self.counter
        overhead = counter.count_message(message.role, "")
        original = message.content
        original_tokens = counter.count(original)
        keep = target - overhead - counter.count(TRUNCATION_MARKER.format(n=original_tokens))
        for _ in range(_MAX_TRUNCATION_PASSES):
            if keep < 0:
                return False
            head = counter.truncate(original, keep)
            removed = original_tokens - counter.count(head)
            content = head + TRUNCATION_MARKER.format(n=removed)
            tokens = counter.count_message(message.role, content)
            if tokens <= target:
                message.content, message.tokens = content, tokens
                return True
            keep -= tokens - target
        return False


def _round_units(
    builder: _Builder, rounds: list[Round], keep_recent_rounds: int
) -> tuple[list[_Unit], set[int]]:
    ordered = sorted(rounds, key=lambda r: r.index)
    recent_from = max(len(ordered) - keep_recent_rounds, 0)
    units: list[_Unit] = []
    recent: set[int] = set()
    for position, item in enumerate(ordered):
        part = RECENT if position >= recent_from else OLDER
        if part == RECENT:
            recent.add(item.index)
        messages = [builder.message(role, content, part) for role, content in item.messages]
        units.append(
            _Unit(f"round:{item.index}", part, (5, item.index, 1), messages, rounds=frozenset({item.index}))
        )
    return units, recent


def _summary_unit(builder: _Builder, summary: RoundSummary) -> _Unit:
    start, end = summary.start_round, summary.end_round
    content = f"[rounds {start}-{end}] {summary.text}" if end > start else f"[round {start}] {summary.text}"
    return _Unit(
        f"summary:L{summary.level}:{start}-{end}",
        ROUND_SUMMARY,
        (5, start, 0),
        [builder.message("system", content, ROUND_SUMMARY)],
        rounds=frozenset(range(start, end + 1)),
    )


class _History:
    """Which representation (raw round, level-1 or level-2 summary) each stretch uses."""

    def __init__(self, raw: list[_Unit], summaries: list[_Unit], recent: set[int]) -> None:
        self.raw = raw
        self.recent = recent
        self.levels = [
            sorted((u for u in summaries if u.label.startswith(f"summary:L{level}:")), key=lambda u: u.position)
            for level in (1, 2)
        ]
        self.active: list[_Unit] = []
        self.summarized: list[str] = []
        # A summary whose stretch is not all here in finer form stands in for it from the start.
        represented = {i for u in raw for i in u.rounds}
        for level in self.levels:
            for unit in level:
                if not unit.rounds <= represented:
                    self._activate(unit)
            represented |= {i for u in self.active for i in u.rounds}

    def units(self) -> list[_Unit]:
        covered = {i for u in self.active for i in u.rounds}
        kept = [u for u in self.raw if u.part == RECENT or not (u.rounds & covered)]
        return kept + self.active

    def _activate(self, unit: _Unit) -> list[_Unit]:
        before = self.units()
        self.active = [u for u in self.active if not u.rounds <= unit.rounds] + [unit]
        after = self.units()
        return [u for u in before if u not in after]

    def compressions(self) -> list[_Unit]:
        """Summaries that may replace older history, level 1 (oldest first) before level 2."""
        return [u for level in self.levels for u in level if not (u.rounds & self.recent)]

    def try_activate(self, unit: _Unit) -> None:
        """Use ``unit`` instead of what it covers, when that actually saves tokens."""
        if any(unit.rounds <= u.rounds for u in self.active):
            return  # already represented by itself or a higher-level summary
        replaced = [u for u in self.units() if u.rounds <= unit.rounds and u.part != RECENT]
        if not replaced or sum(u.tokens for u in replaced) <= unit.tokens:
            return
        self.summarized.extend(u.label for u in self._activate(unit))


def _total(units: list[_Unit]) -> int:
    return REPLY_PRIMING_TOKENS + sum(u.tokens for u in units)


def build_context(
    inputs: ContextInputs,
    *,
    budget: int,
    keep_recent_rounds: int,
    counter: TokenCounter,
    full_tokens: int | None = None,
) -> BuiltContext:
    """Build the messages for one LLM call within ``budget`` tokens; never raises for size.

    ``full_tokens`` is what sending the whole history would cost (the caller's running total);
    when omitted it is computed from the system prompt, every round passed and the current
    message. Cost is O(what ``inputs`` holds), with every count served from the counter's cache
    after its first turn. The steps are those of the module docstring, in that order.
    """
    builder = _Builder(counter, Redactor(inputs.sensitive_values))
    header = _header_units(builder, inputs)
    message = builder.message("user", inputs.current_user_message, CURRENT, pinned=True)
    current = _Unit(CURRENT, CURRENT, (6, 0, 0), [message], pinned=True)
    raw, recent = _round_units(builder, inputs.rounds, keep_recent_rounds)
    history = _History(raw, [_summary_unit(builder, s) for s in inputs.round_summaries], recent)
    if full_tokens is None:
        full_tokens = counter.count_messages(
            (m.role, m.content) for u in (header[0], *raw, current) for m in u.messages
        )
    room = budget - _total([u for u in header if u.pinned] + [current])
    truncated = _truncate_oversized(builder, [u for u in header if not u.pinned] + history.units(), room)
    # Compress older history into summaries, oldest stretch first, level 1 before level 2.
    for candidate in history.compressions():
        if _total(header + history.units() + [current]) <= budget:
            break
        history.try_activate(candidate)
    units = header + history.units() + [current]
    dropped = _drop_lowest(units, budget)
    _truncate_pinned(builder, units, budget, truncated)
    units.sort(key=lambda u: u.position)
    return _built([m for u in units for m in u.messages], budget, full_tokens, dropped, truncated,
                  history.summarized, counter.encoding_name)


def _header_units(builder: _Builder, inputs: ContextInputs) -> list[_Unit]:
    """System prompt, flow state, summary and entity memory (the non-empty ones), pinned messages."""
    message = builder.message("system", inputs.system_prompt, SYSTEM, pinned=True)
    header = [_Unit(SYSTEM, SYSTEM, (0, 0, 0), [message], pinned=True)]
    parts = ((FLOW, inputs.flow_instructions), (SUMMARY, inputs.summary), (ENTITY_MEMORY, inputs.entity_memory))
    for order, (part, text) in enumerate(parts, start=1):
        if text.strip():
            header.append(_Unit(part, part, (order, 0, 0), [builder.message("system", text, part)]))
    for order, (role, content) in enumerate(inputs.pinned):
        message = builder.message(role, content, PINNED, pinned=True)
        header.append(_Unit(f"pinned:{order}", PINNED, (4, 0, order), [message], pinned=True))
    return header


def _truncate_oversized(builder: _Builder, units: list[_Unit], room: int) -> list[str]:
    """Cut every non-pinned message larger than the room the pinned parts leave; their labels."""
    truncated: list[str] = []
    for unit in units:
        for message in unit.messages:
            if message.tokens > room and builder.truncate(message, room):
                truncated.append(unit.label)
    return truncated


def _drop_lowest(units: list[_Unit], budget: int) -> list[str]:
    """Remove the lowest-priority, oldest non-pinned units until ``units`` fit; their labels."""
    dropped: list[str] = []
    total = _total(units)
    for unit in sorted((u for u in units if not u.pinned), key=lambda u: (u.priority, u.position)):
        if total <= budget:
            break
        units.remove(unit)
        total -= unit.tokens
        dropped.append(unit.label)
    return dropped


def _built(messages: list[ContextMessage], budget: int, full_tokens: int, dropped: list[str],
           truncated: list[str], summarized: list[str], encoding: str) -> BuiltContext:
    """The result with its accounting: what is sent against what the full history would cost."""
    used = REPLY_PRIMING_TOKENS + sum(m.tokens for m in messages)
    breakdown: dict[str, int] = {}
    for message in messages:
        breakdown[message.part] = breakdown.get(message.part, 0) + message.tokens
    saved = max(full_tokens - used, 0)
    # The percentage is the true figure: negative while the system prompt, state and summaries
    # cost more than the short history they stand for (saved_tokens itself stops at 0).
    saved_pct = round(100.0 * (full_tokens - used) / full_tokens, 1) if full_tokens else 0.0
    return BuiltContext(
        messages=messages,
        budget=budget,
        used=used,
        dropped=dropped,
        truncated=truncated,
        full_tokens=full_tokens,
        sent_tokens=used,
        saved_tokens=saved,
        saved_pct=saved_pct,
        breakdown=breakdown,
        summarized=summarized,
        encoding=encoding,
    )


def _truncate_pinned(builder: _Builder, units: list[_Unit], budget: int, truncated: list[str]) -> None:
    """Cut the largest pinned messages until the pinned parts fit (or nothing can shrink)."""
    exhausted: set[int] = set()
    while _total(units) > budget:
        candidates = [(m, u) for u in units for m in u.messages if id(m) not in exhausted]
        if not candidates:
            return
        message, unit = max(candidates, key=lambda mu: mu[0].tokens)
        target = message.tokens - (_total(units) - budget)
        if builder.truncate(message, target):
            if unit.label not in truncated:
                truncated.append(unit.label)
        else:
            exhausted.add(id(message))


NEGATIVE_SAVING = ("negative: the window costs more than the full history so far (its system prompt, task "
                   "state and summary outweigh a short conversation); the saving grows as rounds accumulate")
"""What a negative ``Token saved`` figure means, said in an export that shows one."""


def saved_line(built: BuiltContext) -> str:
    """``Token saved: N (P%)``, both signed: N and P agree, negative while more is sent than the
    full history holds."""
    return f"Token saved: {built.net_saved_tokens} ({built.saved_pct:.1f}%)"


def export_text(built: BuiltContext) -> str:
    """The ``/export`` format: one block per message, then ``Token saved: N (P%)``."""
    blocks = [
        f"{number}, {m.role}, {m.priority}, {m.tokens}, {m.content}"
        for number, m in enumerate(built.messages, start=1)
    ]
    blocks.append(saved_line(built))
    return "\n".join(blocks) + "\n"
