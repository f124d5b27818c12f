"""The context window of a session: what an LLM receives for a turn, and its accounting.

``dialogkit.context`` knows nothing of sessions; this module turns a ``Session`` into
``ContextInputs`` and folds finished rounds into hierarchical summaries after each turn.

Everything here is O(recent window), never O(all history): a turn loads only the tail of the
history (``ContextView.history_tail`` messages), older rounds live on as round summaries, and the cost
of the full history (the dual track's other side) is the running total ``session.full_tokens``
the engine keeps as it appends messages.

No round waits in raw form for its 5-round block: the rounds that left the recent window after
the last stored summary (at most a block's worth) get a provisional rule summary built on the
fly. What the session row keeps is bounded too: the ticket summary folds its older items
(``memory.summary``), stored level-2 summaries are capped, entities beyond ``MAX_ENTITIES``
lose their least salient ones, and sensitive values of finished tasks are kept (capped) in
``session.secrets`` so later windows still redact them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from dialogkit.context.parts import BuiltContext, ContextInputs, Round, RoundSummary
from dialogkit.context.tokens import REPLY_PRIMING_TOKENS
from dialogkit.context.window import build_context, export_text
from dialogkit.engine.filler import FillerTrim
from dialogkit.engine.rule_summary import rule_summary
from dialogkit.engine.slots import missing_required
from dialogkit.engine.turn import TurnContext
from dialogkit.lexicon import writing
from dialogkit.logging import get_logger
from dialogkit.memory import hierarchy, tracker
from dialogkit.memory.summary import compacted, mentions, render_summary, trim_for_window
from dialogkit.model.session import Entity, Message, Session, Task
from dialogkit.spec.schema import BotFile, prompt_text
from dialogkit.strings.redaction import MASK, Redactor, mask_values
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import phrase
from dialogkit.understanding.rules import RuleUnderstanding

if TYPE_CHECKING:
    from dialogkit.context.tokens import TokenCounter

__all__ = ["AsyncSummarizer", "ContextView", "Summarizer", "entity_memory"]

Summarizer = Callable[[list[str], str], str]
"""(texts, language) -> summary: how rounds are folded (the LLM's, or the rules')."""
AsyncSummarizer = Callable[[list[str], str, list[str]], Awaitable[str]]
"""(texts, language, sensitive values) -> summary, awaited: the LLM's through its async client."""

log = get_logger("dialogkit.context")

ENTITY_RECALL_LIMIT = 6
"""How many of the most salient entities the window shows: enough to resolve "it", small enough to stay cheap."""
MAX_BLOCK_SUMMARIES = 8
"""Level-2 summaries kept and passed to the window (8 x 15 = the last 120 rounds beyond the recent ones)."""
WINDOW_TASKS = 2
"""Tasks the window's ticket summary shows verbatim; older ones appear by their values only
(the summary's "earlier" item). The session keeps more (``summary.RECENT_TASKS``) for /summary."""
WINDOW_ITEMS = 2
"""Confirmed / pending items the window shows verbatim, per section; older ones are folded the same way."""
SUMMARY_SHARE = 24
"""Round summaries passed to the window take at most 1/SUMMARY_SHARE of the budget (the
provisional one always goes): the ticket summary and entity memory already carry the values,
these add what happened around them."""
MAX_ENTITIES = 200
"""Entities the session keeps; past it the least salient go (down to ``ENTITIES_AFTER_DECAY``)."""
ENTITIES_AFTER_DECAY = 180
SUMMARY_CACHE = 64
"""Window summaries kept per bot (by summary content): the sessions of the moment, small beside a session row."""
MAX_SECRETS = 50
"""Sensitive values of finished tasks remembered for redaction (the newest ones)."""



# ---------------------------------------------------------------------------------- the view


class ContextView:
    """The context window of one bot's sessions: built from its settings, texts and understanding."""

    def __init__(self, spec: BotFile, texts: Texts, understanding: RuleUnderstanding) -> None:
        self.spec = spec
        self.texts = texts
        self.understanding = understanding
        self.settings = spec.context
        # Per flow, its ``sensitive: true`` slots: redaction looks them up on every turn.
        self.sensitive_slots: dict[str, tuple[str, ...]] = {
            name: tuple(s.name for s in flow.slots if s.sensitive) for name, flow in spec.flows.items()
        }
        self.sensitive_names = frozenset(name for names in self.sensitive_slots.values() for name in names)
        # Entity types a sensitive slot reads: an entity of one may hold a sensitive value.
        self.sensitive_types = frozenset(s.entity for flow in spec.flows.values() for s in flow.slots
                                         if s.sensitive and s.entity)
        # A turn needs the recent rounds only; older ones live on as summaries (dual track).
        self.history_tail = 2 * self.settings.effective_keep_recent_rounds + 24
        self._slot_labels = [texts.slot_label(slot, lang) for flow in spec.flows.values()
                             for slot in flow.slots for lang in texts.languages]
        self._types = list(understanding.entities.custom)
        self._counter: TokenCounter | None = None
        self._summaries: dict[tuple[object, ...], str] = {}
        self._filler: FillerTrim | None = None

    @property
    def counter(self) -> TokenCounter:
        """The token counter, loaded on first use (loading an encoding takes a while)."""
        if self._counter is None:
            from dialogkit.context.tokens import TokenCounter

            self._counter = TokenCounter(self.settings.model)
        return self._counter

    # -- sensitive values ------------------------------------------------------------------

    def sensitive_values(self, session: Session, *, extra_tasks: Iterable[Task | None] = ()) -> list[str]:
        """Values of ``sensitive: true`` slots of every task on the stack (suspended ones too) and
        of ``extra_tasks``, including values a correction replaced (still in the recent rounds), plus
        those of finished tasks the session remembers (``session.secrets``)."""
        values: list[str] = list(session.secrets)
        for task in (*session.stack, *extra_tasks):
            if task is None:
                continue
            for name in self.sensitive_slots.get(task.flow, ()):
                held = [task.slots.get(name), *(change.value for change in task.slot_history.get(name, []))]
                values.extend(str(v) for v in held if v is not None and str(v).strip())
        return values

    def output_secrets(self, session: Session) -> list[str]:
        """What every output about ``session`` masks (HTTP routes, the inspector, exports, the chat's
        commands; docs/serving.md, "Sensitive values"): the values of ``sensitive_values``, and the
        values and aliases of entities of a type a sensitive slot reads, since working memory tracks
        a number as the rules read it, whether or not a slot then took it."""
        values = self.sensitive_values(session)
        for entity in session.entities:
            if entity.type in self.sensitive_types:
                values.extend((str(entity.value), *entity.aliases))
        return values

    def output_redactor(self, session: Session) -> Redactor:
        return Redactor(self.output_secrets(session))

    def remember_secrets(self, session: Session, ended: Task | None = None) -> None:
        """Keep the sensitive values of the stack (and of a task that just ended) in ``session.secrets``
        (the newest ``MAX_SECRETS``), so windows built after the task is gone still redact them."""
        merged = list(dict.fromkeys(self.sensitive_values(session, extra_tasks=(ended,))))[-MAX_SECRETS:]
        if merged != session.secrets:
            session.secrets[:] = merged

    def visible_slots(self, session: Session) -> dict[str, Any]:
        """The active task's slots with the sensitive ones masked."""
        task = session.task
        if task is None:
            return {}
        secret = self.sensitive_slots.get(task.flow, ())
        return {name: (MASK if name in secret else value) for name, value in task.slots.items()}

    # -- the parts ---------------------------------------------------------------------------

    def system_prompt(self, language: str) -> str:
        """The bot file's ``context.system_prompt``, else one naming the bot and listing its flows."""
        custom = self.settings.system_prompt
        if custom is not None:
            return prompt_text(custom, language)
        flows = "\n".join(f"- {name}: {self.texts.describe_flow(name, language)}" for name in self.spec.flows)
        return phrase("llm_system", language, name=self.spec.bot.name, flows=flows)

    def flow_instructions(self, session: Session, language: str) -> str:
        """The active task: what it is, its state, the question pending, filled and missing slots
        (as ``slot=value``: the slot names are what the LLM's commands use; empty lines are left out)."""
        task = session.task
        flow = self.spec.flows.get(task.flow) if task is not None else None
        if task is None or flow is None:
            return ""
        sep = writing(language).comma
        # The default system prompt describes every flow: its name is enough here.
        label = "" if self.settings.system_prompt is None else self.texts.task_label(task.flow, language)
        out = [phrase("llm_task" if label else "llm_task_named", language, label=label, flow=task.flow,
                      state=task.state)]
        if task.pending_slot:
            out.append(phrase("llm_asking", language, slot=task.pending_slot))
        shown = self.texts.labelled_value
        filled = [f"{slot.name}={MASK if slot.sensitive else shown(slot, task.slots[slot.name], language)}"
                  for slot in flow.slots if task.slots.get(slot.name) is not None]
        missing = [s.name for s in missing_required(flow, task.slots)]
        if filled:
            out.append(phrase("llm_filled", language, slots=sep.join(filled)))
        if missing:
            out.append(phrase("llm_missing", language, slots=sep.join(missing)))
        if len(session.stack) > 1:
            suspended = [f"{t.flow} ({t.state})" for t in session.stack[:-1]]
            out.append(phrase("llm_suspended", language, tasks=sep.join(suspended)))
        return "\n".join(out)

    def rule_summary(self, texts: list[str], language: str) -> str:
        """The extractive summary of ``texts`` with this bot's entity types."""
        return rule_summary(self._values_in, texts, language)

    def _values_in(self, text: str) -> list[tuple[str, str]]:
        """(canonical value, surface text) of the bot's own entity types in ``text``."""
        try:
            return [(str(m.value), m.text) for m in self.understanding.extract(text, self._types)]
        except ValueError:
            return []

    def _provisional(self, session: Session, messages: list[Message], after: int) -> RoundSummary | None:
        """A rule summary of the rounds that left the recent window but no stored summary covers yet
        (at most a block's worth): cheap, no LLM round trip, never stored."""
        first = hierarchy.folded_until(session.summary) + 1
        if first > after:
            return None
        rounds = _round_texts(messages, first, after)
        if not rounds:
            return None
        secret = self.sensitive_values(session)
        text = hierarchy.summarize_rounds(rounds, session.language, self._rules(secret))
        return RoundSummary(start_round=rounds[0][0], end_round=rounds[-1][0], text=text, level=1)

    def _round_summaries(self, session: Session, provisional: RoundSummary | None) -> list[RoundSummary]:
        """Summaries of the rounds before the recent ones, newest first while they fit in
        ``budget // SUMMARY_SHARE``: the provisional one (always), the level-1 summaries no level-2
        one covers yet, then the newest level-2 summaries (at most ``MAX_BLOCK_SUMMARIES``).
        Bounded whatever the history's length, and a contiguous stretch back from the recent rounds."""
        state = session.summary
        covered = int(state.block_summaries[-1]["end_round"]) if state.block_summaries else 0
        candidates = [_as_summary(e, 1) for e in reversed(state.round_summaries) if int(e["start_round"]) > covered]
        candidates += [_as_summary(e, 2) for e in reversed(state.block_summaries[-MAX_BLOCK_SUMMARIES:])]
        out: list[RoundSummary] = [provisional] if provisional is not None else []
        count = self.counter.count_message
        room = self.settings.budget // SUMMARY_SHARE - sum(count("system", s.text) for s in out)
        for summary in candidates:
            room -= count("system", summary.text)
            if room < 0:
                break
            out.append(summary)
        out.sort(key=lambda s: (s.start_round, -s.level))
        return out

    # -- building ----------------------------------------------------------------------------

    def inputs(self, session: Session) -> tuple[ContextInputs, int]:
        """The window's inputs for ``session`` and the full-history cost they stand for."""
        language = session.language
        messages = _session_messages(session)
        before, current = _split_current(messages)
        entities = tracker.recall(session, turn=session.turn, limit=ENTITY_RECALL_LIMIT) if session.entities else []
        system_prompt = self.system_prompt(language)
        after = _raw_after(session, current, self.settings.effective_keep_recent_rounds)
        flow = self.flow_instructions(session, language)
        summary = self._window_summary(session, shown_task=bool(flow))
        inputs = ContextInputs(
            system_prompt=system_prompt,
            flow_instructions=flow,
            summary=summary,
            pinned=[(m.role, m.content) for m in before if m.pinned],
            entity_memory=entity_memory(entities, language, self.texts, named=f"{flow}\n{summary}"),
            rounds=self._without_filler(_rounds(before, max(after, hierarchy.folded_until(session.summary))),
                                        language),
            round_summaries=self._round_summaries(session, self._provisional(session, before, after)),
            current_user_message=current.content if current is not None else "",
            sensitive_values=self.sensitive_values(session),
        )
        return inputs, self._full_tokens(session, messages, current, system_prompt)

    def _without_filler(self, rounds: list[Round], language: str) -> list[Round]:
        """The rounds with their user messages' filler cut, when the bot asks for it (``drop_filler``)."""
        if not self.settings.drop_filler:
            return rounds
        if self._filler is None:
            self._filler = FillerTrim(self.understanding, self.counter.count)
        trim = self._filler.trim
        for item in rounds:
            item.messages = [(role, trim(content, language) if role == "user" else content)
                             for role, content in item.messages]
        return rounds

    def _window_summary(self, session: Session, *, shown_task: bool) -> str:
        """The ticket summary as the window sends it: older tasks by their values only, and
        nothing the flow instructions (the active task, when ``shown_task``) already say.

        Kept per summary content: it changes on a transition, while every build until then
        (each LLM call, ``/context``) asks for the same text and folding it costs far more."""
        task = session.task
        shown = task.key if shown_task and task is not None else None
        state = session.summary
        key = (session.language, shown, *(tuple((i.key, i.zh, i.en) for i in items)
                                           for items in (state.facts, state.confirmed, state.pending)))
        text = self._summaries.get(key)
        if text is None:
            view = compacted(state, tasks=WINDOW_TASKS, items=WINDOW_ITEMS, labels=self._slot_labels,
                             earlier_conclusions=False)
            trim_for_window(view, shown_task=shown, flow_names=self.settings.system_prompt is None,
                            labels=self._slot_labels)
            if len(self._summaries) >= SUMMARY_CACHE:
                self._summaries.clear()
            text = self._summaries[key] = render_summary(view, session.language)
        return text

    def _full_tokens(self, session: Session, messages: list[Message], current: Message | None,
                     system_prompt: str) -> int:
        """What sending everything would cost, counted as ``build_context`` counts its baseline:
        system prompt + every stored message up to the current one + the reply priming.

        ``session.full_tokens`` already sums every message ever appended; the reply to the current
        message (present once the turn is over) is not part of this request, so it is taken out.
        """
        count = self.counter.count_message
        after_current = 0
        if current is not None:
            index = len(messages) - 1 - messages[::-1].index(current)
            after_current = sum(count(m.role, m.content) for m in messages[index + 1:])
        history = max(session.full_tokens - after_current, 0)
        return REPLY_PRIMING_TOKENS + count("system", system_prompt) + history

    def build(self, session: Session, *, extra_sensitive: Iterable[str] = ()) -> BuiltContext:
        """The ``BuiltContext`` an LLM would receive for the session's current user message.

        ``extra_sensitive`` adds values to redact beyond the sensitive slots on the stack (the LLM
        layer passes values the rules found in the current message for sensitive slot types).
        """
        inputs, full = self.inputs(session)
        inputs.sensitive_values.extend(str(v) for v in extra_sensitive if str(v).strip())
        return build_context(inputs, budget=self.settings.budget,
                             keep_recent_rounds=self.settings.effective_keep_recent_rounds,
                             counter=self.counter, full_tokens=full)

    # -- folding -------------------------------------------------------------------------------

    def after_turn(self, ctx: TurnContext, llm_summarizer: Callable[[list[str]], Summarizer] | None = None) -> None:
        """Bound what the session row keeps, then fold each complete block of 5 rounds that has
        left the recent window into a summary.

        Cheap when there is nothing to fold (one comparison); a fold reads only the block's rounds
        from the loaded tail. ``llm_summarizer(sensitive values)`` gives the LLM's summarizer when
        it writes summaries; it falls back to the rules' summary on failure. Folding stays one
        round behind the window (see ``_raw_after``).
        """
        fold = self._fold_due(ctx)
        if fold is not None:
            items, secret = fold
            llm = llm_summarizer(secret) if llm_summarizer is not None else None
            hierarchy.fold_rounds(ctx.session.summary, items, summarize_text=llm, fallback=self._rules(secret),
                                  language=ctx.session.language, max_blocks=MAX_BLOCK_SUMMARIES)

    async def aafter_turn(self, ctx: TurnContext, asummarize: AsyncSummarizer | None) -> None:
        """``after_turn`` with the LLM's summaries awaited (``asummarize(texts, language, sensitive
        values)``, the async client's), so an async turn never blocks its loop on them: the same
        folds, fallback and masking, hence the same summaries for the same answers."""
        if asummarize is None:
            self.after_turn(ctx)
            return
        fold = self._fold_due(ctx)
        if fold is not None:
            items, secret = fold
            await hierarchy.afold_rounds(ctx.session.summary, items, fallback=self._rules(secret),
                                         asummarize=partial(_with_secret, asummarize, secret),
                                         language=ctx.session.language, max_blocks=MAX_BLOCK_SUMMARIES)

    def _fold_due(self, ctx: TurnContext) -> tuple[list[tuple[int, str, str]], list[str]] | None:
        """Bound the session's secrets and entities; then the rounds to fold and the sensitive
        values their summaries must mask, or None when no 5-round block is complete yet."""
        session = ctx.session
        self.remember_secrets(session, ctx.ended_task)
        _decay_entities(session)
        first = hierarchy.folded_until(session.summary) + 1
        last_foldable = session.turn - self.settings.effective_keep_recent_rounds - 1
        if first + hierarchy.ROUNDS_PER_SUMMARY - 1 > last_foldable:
            return None
        items = _round_texts(_session_messages(session), first, last_foldable)
        loaded = {turn for turn, _, _ in items}
        # A round no longer in the loaded tail (a round of many messages pushed it out) is folded as
        # an empty one rather than stalling every later fold: the next block must start after it.
        items += [(turn, "", "") for turn in range(first, last_foldable + 1) if turn not in loaded]
        return items, self.sensitive_values(session, extra_tasks=(ctx.ended_task,))

    def _rules(self, secret: list[str]) -> Summarizer:
        """The rules' summary, masked: what stands in when the LLM writes none."""
        return lambda texts, language: mask_values(self.rule_summary(texts, language), secret)

    # -- views -----------------------------------------------------------------------------------

    def stats(self, session: Session) -> dict[str, Any]:
        """What ``/stats`` shows: the dual track's two sides, savings, state and LLM usage."""
        built = self.build(session)
        state, usage = session.summary, session.usage
        return {
            "full_tokens": built.full_tokens, "sent_tokens": built.sent_tokens,
            "saved_tokens": built.saved_tokens, "saved_pct": built.saved_pct,
            "messages": session.history_offset + len(session.history),
            "summary_chars": len(render_summary(state, session.language)),
            "state": session.state, "flow": session.flow, "slots": self.visible_slots(session),
            "summary": {
                "facts": len(state.facts), "confirmed": len(state.confirmed), "pending": len(state.pending),
                "round_summaries": len(state.round_summaries), "block_summaries": len(state.block_summaries),
            },
            "encoding": built.encoding, "budget": built.budget, "breakdown": dict(built.breakdown),
            "dropped": list(built.dropped), "summarized": list(built.summarized),
            "llm": {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens, "failures": usage.failures},
            "stack": [t.flow for t in session.stack],
        }

    def export(self, session: Session) -> str:
        """``/export FILE``: each message (number, role, priority, tokens, content), then the savings."""
        return export_text(self.build(session))


# ---------------------------------------------------------------------------------- helpers


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


def _raw_after(session: Session, current: Message | None, keep: int) -> int:
    """The last round the window shows in summary form; later rounds are raw.

    Rounds up to ``current turn - keep - 1`` have left the recent window. Stored summaries never
    reach past that (``after_turn`` folds one round behind it), so the current request and the
    view after the turn show the same ``keep`` raw rounds."""
    turn = current.turn if current is not None else session.turn + 1
    return max(turn - keep - 1, 0)


def _rounds(messages: Iterable[Message], after: int) -> list[Round]:
    """Messages grouped by turn (a round), skipping rounds a summary stands for."""
    rounds: list[Round] = []
    for message in messages:
        if message.turn <= after or message.pinned:
            continue  # covered by a summary, or shown in the pinned part
        if not rounds or rounds[-1].index != message.turn:
            rounds.append(Round(index=message.turn, messages=[]))
        rounds[-1].messages.append((message.role, message.content))
    return rounds


def _round_texts(messages: Iterable[Message], first: int, last: int) -> list[tuple[int, str, str]]:
    """(round, user text, bot text) for the loaded rounds ``first..last``, as ``fold_rounds`` takes them."""
    users: dict[int, list[str]] = {}
    bots: dict[int, list[str]] = {}
    for message in messages:
        if first <= message.turn <= last:
            users.setdefault(message.turn, [])
            (users if message.role == "user" else bots).setdefault(message.turn, []).append(message.content)
    return [(turn, "\n".join(users[turn]), "\n".join(bots.get(turn, []))) for turn in sorted(users)]


def _with_secret(asummarize: AsyncSummarizer, secret: list[str], texts: list[str], language: str) -> Awaitable[str]:
    return asummarize(texts, language, secret)


def _as_summary(entry: dict[str, Any], level: int) -> RoundSummary:
    return RoundSummary(start_round=int(entry["start_round"]), end_round=int(entry["end_round"]),
                        text=str(entry["text"]), level=2 if level == 2 else 1)


def entity_memory(entities: list[Entity], language: str, texts: Texts | None = None, named: str = "") -> str:
    """The recalled entities grouped by type, most salient first:
    "实体：order_id：553565、128785；product：手机 (phone)". An empty list is "".

    Canonical values are what the LLM's commands must name, so a value with a label in the
    turn's language shows both (``Texts.labelled_entity_value``); the per-entity details of
    ``/entities`` (aliases, counts, turns) would cost tokens on every request for little.
    An entity ``named`` already names (the flow instructions and ticket summary sent beside
    this, by its value or its label) is left out: said once is enough."""
    by_type: dict[str, list[str]] = {}
    for entity in entities:
        label = texts.entity_value_label(entity.type, entity.value, language) if texts else str(entity.value)
        if named and (mentions(named, label) or mentions(named, str(entity.value))):
            continue
        shown = texts.labelled_entity_value(entity.type, entity.value, language) if texts else str(entity.value)
        by_type.setdefault(entity.type, []).append(shown)
    if not by_type:
        return ""
    written = writing(language)
    return phrase("llm_entities", language) + written.clause_separator.join(
        f"{kind}{written.colon}{written.list_separator.join(values)}" for kind, values in by_type.items())


def _decay_entities(session: Session) -> None:
    """Past ``MAX_ENTITIES``, forget the least salient entities (never one of the last list)."""
    if len(session.entities) <= MAX_ENTITIES:
        return
    keep = {e.id for e in tracker.recall(session, turn=session.turn, limit=ENTITIES_AFTER_DECAY)}
    keep.update(session.last_list)
    session.entities[:] = [e for e in session.entities if e.id in keep]
