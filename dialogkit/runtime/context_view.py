"""The context window of a session: what an LLM receives for a turn, and its accounting.

``dialogkit.context`` knows nothing of sessions; this module turns a ``Session`` into
``ContextInputs`` and folds finished rounds into hierarchical summaries after each turn.

Everything here is O(recent window), never O(all history): a turn loads only the tail of the
history (``bot.history_tail`` messages), older rounds live on as round summaries, and the cost
of the full history (the dual track's other side) is the running total ``session.full_tokens``
the bot keeps as it appends messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import structlog

from dialogkit.context.parts import REDACTED, BuiltContext, ContextInputs, Round, RoundSummary
from dialogkit.context.tokens import REPLY_PRIMING_TOKENS
from dialogkit.context.window import build_context, export_text
from dialogkit.errors import LLMError
from dialogkit.flow.schema import prompt_text
from dialogkit.memory import hierarchy, tracker
from dialogkit.memory.summary import render_summary
from dialogkit.runtime.session import Message, Session, SummaryState
from dialogkit.runtime.slots import slot_name_label

if TYPE_CHECKING:
    from dialogkit.runtime.bot import Bot
    from dialogkit.runtime.turn import TurnContext

__all__ = ["after_turn", "build_for_session", "context_inputs", "export", "rule_summary", "sensitive_slot_values", "stats"]

log = structlog.get_logger("dialogkit.context")

ENTITY_RECALL_LIMIT = 10
"""How many of the most salient entities the window shows: enough to resolve "it", small enough to stay cheap."""
MAX_BLOCK_SUMMARIES = 8
"""Level-2 summaries passed to the window (8 x 15 = the last 120 rounds beyond the recent ones)."""
SUMMARY_RECENT_ITEMS = 12
"""The ticket summary's confirmed and pending sections grow with every task; the window shows the
latest this many of each (facts are keyed per flow and slot, so they stay bounded on their own).
Older conclusions live on in the round summaries of the rounds that reached them."""

_DEFAULT_SYSTEM = {
    "zh": "你是「{name}」，一个任务型助手，用简体中文回答。你能处理的任务：\n{flows}",
    "en": "You are \"{name}\", a task-oriented assistant; answer in English. The tasks you handle:\n{flows}",
}
_FLOW_LINES = {
    "zh": {"task": "当前任务：{label}（{flow}），状态 {state}", "asking": "正在询问：{slot}",
           "filled": "已填写：{slots}", "missing": "待填写：{slots}", "suspended": "暂停的任务：{tasks}",
           "none": "（无）"},
    "en": {"task": "Current task: {label} ({flow}), state {state}", "asking": "Asking for: {slot}",
           "filled": "Filled: {slots}", "missing": "Still needed: {slots}", "suspended": "Suspended tasks: {tasks}",
           "none": "(none)"},
}


# ---------------------------------------------------------------------------------- inputs


def sensitive_slot_values(bot: Bot, session: Session) -> list[str]:
    """Values of ``sensitive: true`` slots of every task on the stack (suspended ones too),
    including values a correction replaced: those are still in the recent rounds."""
    values: list[str] = []
    for task in session.stack:
        flow = bot.spec.flows.get(task.flow)
        if flow is None:
            continue
        for slot in flow.slots:
            if not slot.sensitive:
                continue
            held = [task.slots.get(slot.name), *(change.value for change in task.slot_history.get(slot.name, []))]
            values.extend(str(v) for v in held if v is not None and str(v).strip())
    return values


def _system_prompt(bot: Bot, language: str) -> str:
    """The bot file's ``context.system_prompt``, else one naming the bot and listing its flows."""
    custom = bot.spec.context.system_prompt
    if custom is not None:
        return prompt_text(custom, language)
    lang = "zh" if language == "zh" else "en"
    flows = "\n".join(f"- {name}: {bot.describe_flow(name, lang)}" for name in bot.spec.flows)
    return _DEFAULT_SYSTEM[lang].format(name=bot.spec.bot.name, flows=flows)


def _flow_instructions(bot: Bot, session: Session, language: str) -> str:
    """The active task: what it is, its state, the question pending, filled and missing slots."""
    task = session.task
    if task is None:
        return ""
    flow = bot.spec.flows.get(task.flow)
    if flow is None:
        return ""
    lang = "zh" if language == "zh" else "en"
    lines = _FLOW_LINES[lang]
    sep = "，" if lang == "zh" else ", "
    out = [lines["task"].format(label=bot.task_label(task.flow, lang), flow=task.flow, state=task.state)]
    if task.pending_slot:
        out.append(lines["asking"].format(slot=task.pending_slot))
    filled = []
    for slot in flow.slots:
        value = task.slots.get(slot.name)
        if value is None:
            continue
        shown = REDACTED if slot.sensitive else bot.value_label(slot, value, lang)
        filled.append(f"{slot.name} ({slot_name_label(slot, lang)}) = {shown}")
    missing = [s.name for s in flow.slots if s.required and task.slots.get(s.name) is None]
    out.append(lines["filled"].format(slots=sep.join(filled) or lines["none"]))
    out.append(lines["missing"].format(slots=sep.join(missing) or lines["none"]))
    if len(session.stack) > 1:
        suspended = [f"{t.flow} ({t.state})" for t in session.stack[:-1]]
        out.append(lines["suspended"].format(tasks=sep.join(suspended)))
    return "\n".join(out)


def _session_messages(session: Session) -> list[Message]:
    """The loaded tail, minus messages of an expired earlier session (its turn numbers restart)."""
    history = session.history
    start = len(history)
    while start > 0 and (start == len(history) or history[start - 1].turn <= history[start].turn):
        start -= 1
    return history[start:]


def _split_current(messages: list[Message]) -> tuple[list[Message], Message | None]:
    """(messages before the last user message, that message); its own reply is the LLM's to write."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages[:i], messages[i]
    return messages, None


def _recent_summary(state: SummaryState) -> SummaryState:
    """The ticket summary as the window shows it: every fact, the latest conclusions and to-dos."""
    if len(state.confirmed) <= SUMMARY_RECENT_ITEMS and len(state.pending) <= SUMMARY_RECENT_ITEMS:
        return state
    return SummaryState(facts=state.facts, confirmed=state.confirmed[-SUMMARY_RECENT_ITEMS:],
                        pending=state.pending[-SUMMARY_RECENT_ITEMS:])


def _folded_until(session: Session) -> int:
    summaries = session.summary.round_summaries
    return int(summaries[-1]["end_round"]) if summaries else 0


def _rounds(messages: Iterable[Message], after: int) -> list[Round]:
    """Messages grouped by turn (a round), skipping rounds a summary already covers."""
    rounds: list[Round] = []
    for message in messages:
        if message.turn <= after or message.pinned:
            continue  # covered by a summary, or shown in the pinned part
        if not rounds or rounds[-1].index != message.turn:
            rounds.append(Round(index=message.turn, messages=[]))
        rounds[-1].messages.append((message.role, message.content))
    return rounds


def _round_summaries(bot: Bot, session: Session, budget: int) -> list[RoundSummary]:
    """The level-1 summaries no level-2 one covers yet, plus the newest level-2 summaries (at most
    ``MAX_BLOCK_SUMMARIES``, within a quarter of the budget): bounded, whatever the history's length."""
    state = session.summary
    covered = int(state.block_summaries[-1]["end_round"]) if state.block_summaries else 0
    out: list[RoundSummary] = []
    for entry in reversed(state.round_summaries):
        if int(entry["start_round"]) <= covered:
            break
        out.append(_as_summary(entry, 1))
    spent = 0
    for entry in reversed(state.block_summaries[-MAX_BLOCK_SUMMARIES:]):
        spent += bot.token_counter.count_message("system", str(entry["text"]))
        if spent > budget // 4:
            break
        out.append(_as_summary(entry, 2))
    out.sort(key=lambda s: (s.start_round, -s.level))
    return out


def _as_summary(entry: dict[str, Any], level: int) -> RoundSummary:
    return RoundSummary(start_round=int(entry["start_round"]), end_round=int(entry["end_round"]),
                        text=str(entry["text"]), level=2 if level == 2 else 1)


def context_inputs(bot: Bot, session: Session) -> tuple[ContextInputs, int]:
    """The window's inputs for ``session`` and the full-history cost they stand for."""
    language = session.language
    messages = _session_messages(session)
    before, current = _split_current(messages)
    entities = tracker.recall(session, turn=session.turn, limit=ENTITY_RECALL_LIMIT) if session.entities else []
    system_prompt = _system_prompt(bot, language)
    inputs = ContextInputs(
        system_prompt=system_prompt,
        flow_instructions=_flow_instructions(bot, session, language),
        summary=render_summary(_recent_summary(session.summary), language),
        pinned=[(m.role, m.content) for m in before if m.pinned],
        entity_memory=tracker.render_entities(entities, language) if entities else "",
        rounds=_rounds(before, _folded_until(session)),
        round_summaries=_round_summaries(bot, session, bot.spec.context.budget),
        current_user_message=current.content if current is not None else "",
        sensitive_values=sensitive_slot_values(bot, session),
    )
    return inputs, _full_tokens(bot, session, messages, current, system_prompt)


def _full_tokens(bot: Bot, session: Session, messages: list[Message], current: Message | None,
                 system_prompt: str) -> int:
    """What sending everything would cost, counted as ``build_context`` counts its baseline:
    system prompt + every stored message up to the current one + the reply priming.

    ``session.full_tokens`` already sums every message ever appended; the reply to the current
    message (present once the turn is over) is not part of this request, so it is taken out.
    """
    counter = bot.token_counter
    after_current = 0
    if current is not None:
        index = len(messages) - 1 - messages[::-1].index(current)
        after_current = sum(counter.count_message(m.role, m.content) for m in messages[index + 1:])
    history = max(session.full_tokens - after_current, 0)
    return REPLY_PRIMING_TOKENS + counter.count_message("system", system_prompt) + history


def build_for_session(bot: Bot, session: Session, *, extra_sensitive: Iterable[str] = ()) -> BuiltContext:
    """The ``BuiltContext`` an LLM would receive for the session's current user message.

    ``extra_sensitive`` adds values to redact beyond the sensitive slots on the stack (the LLM
    layer passes values the rules found in the current message for sensitive slot types).
    """
    inputs, full = context_inputs(bot, session)
    inputs.sensitive_values.extend(str(v) for v in extra_sensitive if str(v).strip())
    context = bot.spec.context
    return build_context(inputs, budget=context.budget, keep_recent_rounds=context.effective_keep_recent_rounds,
                         counter=bot.token_counter, full_tokens=full)


# ---------------------------------------------------------------------------------- folding


def after_turn(bot: Bot, ctx: TurnContext) -> None:
    """Fold each complete block of 5 rounds that has left the recent window into a summary.

    Cheap when there is nothing to fold (one comparison); a fold reads only the block's rounds
    from the loaded tail. Summaries come from the LLM when it is configured for "summaries",
    else they are extractive; an LLM failure falls back to extractive inside ``fold_rounds``.
    """
    session = ctx.session
    keep = bot.spec.context.effective_keep_recent_rounds
    first = _folded_until(session) + 1
    if first + hierarchy.ROUNDS_PER_SUMMARY - 1 > session.turn - keep:
        return
    last_foldable = session.turn - keep
    rounds: dict[int, list[str]] = {}
    replies: dict[int, list[str]] = {}
    for message in _session_messages(session):
        if first <= message.turn <= last_foldable:
            target = rounds if message.role == "user" else replies
            target.setdefault(message.turn, []).append(message.content)
            rounds.setdefault(message.turn, [])
    items = [(turn, "\n".join(rounds[turn]), "\n".join(replies.get(turn, []))) for turn in sorted(rounds)]
    hierarchy.fold_rounds(session.summary, items, summarize_text=_summarizer(bot, ctx), language=session.language)
    _drop_covered(session.summary)


def _drop_covered(state: SummaryState) -> None:
    """Level-1 summaries a level-2 one covers are redundant: drop them so the session stays small.

    The last level-1 entry is kept: ``fold_rounds`` reads where folding stopped from it.
    """
    if not state.block_summaries or len(state.round_summaries) <= 1:
        return
    covered = int(state.block_summaries[-1]["end_round"])
    last = state.round_summaries[-1]
    kept = [s for s in state.round_summaries[:-1] if int(s["end_round"]) > covered]
    if len(kept) + 1 < len(state.round_summaries):
        state.round_summaries[:] = [*kept, last]


def _summarizer(bot: Bot, ctx: TurnContext) -> Callable[[list[str], str], str]:
    """The LLM's summary when configured for "summaries", else (or when it fails) the rules'."""
    layer = bot.llm_layer
    secret = sensitive_slot_values(bot, ctx.session)
    llm = layer.summarizer(ctx, secret) if layer is not None and layer.uses("summaries") else None

    def summarize(texts: list[str], language: str) -> str:
        if llm is not None:
            try:
                return llm(texts, language)
            except LLMError:
                pass  # already logged and counted by the layer
        return _redact(rule_summary(bot, texts, language), secret)

    return summarize


def rule_summary(bot: Bot, texts: list[str], language: str) -> str:
    """Extractive summary that never loses a value: the first clause of each text, then every
    entity value (order numbers, products ...) the rules find in the texts but the clauses lost.

    Level-2 summaries are summaries of level-1 ones, so without this a value said after the
    first clause of the first round of a block would vanish from the window at the second fold.
    """
    base = hierarchy.extractive_summary(texts, language)
    types = list(bot.understanding.entities.custom)
    seen: list[str] = []
    try:
        for text in texts:
            for mention in bot.understanding.extract(text, types):
                value = str(mention.value)
                if value not in seen and value not in base and mention.text not in base:
                    seen.append(value)
    except ValueError:  # an unknown type name: keep the plain extractive summary
        return base
    if not seen:
        return base
    return f"{base}（{'、'.join(seen)}）" if language == "zh" else f"{base} ({', '.join(seen)})"


def _redact(text: str, values: list[str]) -> str:
    for value in sorted(values, key=len, reverse=True):
        if value:
            text = text.replace(value, REDACTED)
    return text


# ---------------------------------------------------------------------------------- views


def stats(bot: Bot, session: Session) -> dict[str, Any]:
    """What ``/stats`` shows: the dual track's two sides, savings, state and LLM usage."""
    built = build_for_session(bot, session)
    state = session.summary
    usage = session.usage
    return {
        "full_tokens": built.full_tokens,
        "sent_tokens": built.sent_tokens,
        "saved_tokens": built.saved_tokens,
        "saved_pct": built.saved_pct,
        "messages": session.history_offset + len(session.history),
        "summary_chars": len(render_summary(state, session.language)),
        "state": session.state,
        "flow": session.flow,
        "slots": _visible_slots(bot, session),
        "summary": {
            "facts": len(state.facts), "confirmed": len(state.confirmed), "pending": len(state.pending),
            "round_summaries": len(state.round_summaries), "block_summaries": len(state.block_summaries),
        },
        "encoding": built.encoding,
        "budget": built.budget,
        "breakdown": dict(built.breakdown),
        "dropped": list(built.dropped),
        "summarized": list(built.summarized),
        "llm": {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens, "failures": usage.failures},
        "stack": [t.flow for t in session.stack],
    }


def _visible_slots(bot: Bot, session: Session) -> dict[str, Any]:
    task = session.task
    if task is None:
        return {}
    flow = bot.spec.flows.get(task.flow)
    secret = {s.name for s in flow.slots if s.sensitive} if flow is not None else set()
    return {name: (REDACTED if name in secret else value) for name, value in task.slots.items()}


def export(bot: Bot, session: Session) -> str:
    """``/export FILE``: each message (number, role, priority, tokens, content), then the savings."""
    return export_text(build_for_session(bot, session))
