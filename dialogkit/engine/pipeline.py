"""One turn, from text to reply, under the session's store lock.

    load session -> language -> understanding -> reference look-ahead -> policy picks triggers ->
    machines fire them (memory actions as callbacks) -> reply text -> every_turn memory ->
    save in one transaction -> one structlog event.

``Turns`` is built from the parts it drives; the ``Bot`` facade wires them together.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast

from dialogkit import tracing
from dialogkit.engine import explaining
from dialogkit.engine.context_view import AsyncSummarizer, ContextView
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.memory_actions import MemoryActions
from dialogkit.engine.migration import migrate_session
from dialogkit.engine.ownership import bind, is_ambiguous
from dialogkit.engine.policy import Policy
from dialogkit.engine.result_entities import track_returned
from dialogkit.engine.slots import Validator
from dialogkit.engine.task_erasure import erase_ended_task
from dialogkit.engine.turn import TurnContext
from dialogkit.logging import enabled_for, get_logger
from dialogkit.memory import summary as summaries
from dialogkit.memory import tracker
from dialogkit.model.reply import Reply
from dialogkit.model.session import SCHEMA_VERSION, Message, Session, SummaryState, user_scope
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import BotFile
from dialogkit.store.protocol import SessionStore, StoreTxn
from dialogkit.store.secrets import plain_at_rest, warn_if_plain
from dialogkit.strings.limits import MAX_STORED_CHARS, MAX_UNDERSTOOD_CHARS, clean_text
from dialogkit.strings.redaction import MASK, mask_values
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import join, phrase
from dialogkit.understanding.rules import RuleUnderstanding

if TYPE_CHECKING:
    from dialogkit.engine.llm_layer import LLMLayer

__all__ = ["AsyncTransactions", "Clock", "Offload", "Turns"]

log = get_logger("dialogkit.bot")

Clock = Callable[[], float]
Summarizers = Callable[[list[str]], Callable[[list[str], str], str]]
T = TypeVar("T")


class Offload(Protocol):
    """Runs a synchronous step of an async turn: in a thread (a server) or inline (tests)."""

    def __call__(self, step: Callable[..., T], /, *args: Any) -> Awaitable[T]: ...


class AsyncTransactions(Protocol):
    """A store whose turn transaction can be awaited (the Redis store's ``atransaction``)."""

    def atransaction(self, session_id: str, *, history_tail: int = ...,
                     users: tuple[str, ...] = ...) -> AbstractAsyncContextManager[StoreTxn]: ...


async def _inline(step: Callable[..., T], /, *args: Any) -> T:
    return step(*args)


class Turns:
    """Runs turns for one bot: the parts it drives are given, never looked up."""

    def __init__(self, spec: BotFile, store: SessionStore, understanding: RuleUnderstanding,
                 flows: Mapping[str, CompiledFlow], policy: Policy, lookahead: LookAhead, memory: MemoryActions,
                 view: ContextView, llm: LLMLayer | None, clock: Clock, *, version: str = "",
                 texts: Texts | None = None, validator: Validator | None = None) -> None:
        self.spec = spec
        self.store = store
        self.understanding = understanding
        self.flows = flows
        self.policy = policy
        self.lookahead = lookahead
        self.memory = memory
        self.view = view
        self.llm = llm
        self.clock = clock
        self.version = version            # of the bot file: sessions saved with another are migrated
        self.texts = texts or Texts(spec)
        self.validator: Validator = validator or _accept
        self._astore = cast(AsyncTransactions, store) if hasattr(store, "atransaction") else None

    @property
    def native_async(self) -> bool:
        """Whether ``ahandle`` can await the store (it has ``atransaction``) instead of a thread."""
        return self._astore is not None

    def handle(self, session_id: str, text: object, *, user_id: str | None = None) -> Reply:
        started = time.perf_counter()
        raw = clean_text(text)
        with tracing.turn(self.spec.bot.name) as span, tracing.transaction(self.store.transaction(
                session_id, history_tail=self.view.history_tail, users=self._user_keys(user_id))) as txn:
            ctx, state_before = self._begin(txn, session_id, raw, user_id)
            if self.llm is not None and ctx.text:
                self.llm.understand(ctx)      # falls back to the rule interpretation on any failure
            reply_text = self._act(ctx)
            if self.llm is not None:
                reply_text = self.llm.rephrase(ctx, reply_text)
            self._end(ctx, reply_text, self._llm_summarizer(ctx))
            tracing.describe_turn(span, ctx)
        return self._finish(ctx, reply_text, state_before, started)

    def _user_keys(self, user_id: str | None) -> tuple[str, ...]:
        """The keys of the persisted values a turn may ask for, read along with the session: the
        user's values for this bot, and those stored under the bare user id before they were.
        None for an anonymous turn: it reads no user's values, whatever its session is called."""
        if user_id is None:
            return ()
        return user_scope(self.spec.bot.name, user_id), user_id

    async def ahandle(self, session_id: str, text: object, *, user_id: str | None = None,
                      offload: Offload = _inline) -> Reply:
        """``handle`` on an event loop: the same steps, with the store and the LLM awaited.

        The rules' part of the turn (the policy, which runs actions, and memory) goes through
        ``offload``: actions are the bot author's synchronous code, so a server runs it in a thread
        and the loop is never blocked by a slow one. LLM summaries of finished rounds are awaited
        through the async client like the other LLM steps.
        """
        assert self._astore is not None, "ahandle needs a store with atransaction (see native_async)"
        if not self.view.counter.loaded:
            # Reading the encoding takes 0.1-0.5 s once a process: on the loop, every turn in flight
            # would wait for it; ``offload`` runs it where the rules' step runs.
            await offload(self.view.counter.load)
        started = time.perf_counter()
        raw = clean_text(text)
        users = self._user_keys(user_id)
        async with tracing.aturn(self.spec.bot.name) as span, tracing.atransaction(
                self._astore.atransaction(session_id, history_tail=self.view.history_tail, users=users)) as txn:
            ctx, state_before = self._begin(txn, session_id, raw, user_id)
            if self.llm is not None and ctx.text:
                await self.llm.aunderstand(ctx)
            reply_text = await offload(self._act, ctx)
            if self.llm is not None:
                reply_text = await self.llm.arephrase(ctx, reply_text)
            self.append(ctx.session, "assistant", reply_text, ctx.turn, ctx.language)
            await self.view.aafter_turn(ctx, self._allm_summarizer(ctx))
            if ctx.ended_task is not None:
                await offload(self._stage, ctx)   # its erasure may read older stored rows (sync client)
            else:
                self._stage(ctx)
            tracing.describe_turn(span, ctx)
        return self._finish(ctx, reply_text, state_before, started)

    def _begin(self, txn: StoreTxn, session_id: str, raw: str, user_id: str | None) -> tuple[TurnContext, str]:
        """The turn's context, the user's message recorded; and the state the turn started in."""
        stored = raw if len(raw) <= MAX_STORED_CHARS else raw[:MAX_STORED_CHARS] + "…[truncated]"
        session = self._load_or_create(txn.session, session_id, user_id)
        state_before = session.state
        session.turn += 1
        ctx = self._context(txn, session, raw[:MAX_UNDERSTOOD_CHARS])
        if session.bot_version != self.version:
            self._migrate(ctx)
        self.append(session, "user", stored, ctx.turn, ctx.language)
        if len(raw) > MAX_UNDERSTOOD_CHARS:
            ctx.say.append(phrase("too_long", ctx.language, n=len(raw), k=MAX_UNDERSTOOD_CHARS))
        return ctx, state_before

    def _end(self, ctx: TurnContext, reply_text: str, summarizer: Summarizers | None) -> None:
        """The reply recorded, finished rounds folded into the summary, the session staged."""
        self.append(ctx.session, "assistant", reply_text, ctx.turn, ctx.language)
        self.view.after_turn(ctx, summarizer)   # fold finished 5-round blocks
        self._stage(ctx)

    def _stage(self, ctx: TurnContext) -> None:
        """The session staged, a task that ended this turn erased from it first (its sensitive values)."""
        if ctx.ended_task is not None:
            erase_ended_task(ctx, self.view.sensitive_slots, plain=plain_at_rest(self.store.url),
                             older=partial(self.store.history, ctx.session.id))
        ctx.session.updated_at = self.clock()
        ctx.txn.save(ctx.session)

    def _finish(self, ctx: TurnContext, reply_text: str, state_before: str, started: float) -> Reply:
        reply = self._reply(ctx, reply_text)
        self._log_turn(ctx, reply, state_before, time.perf_counter() - started)
        return reply

    def _context(self, txn: StoreTxn, session: Session, understood: str) -> TurnContext:
        """The turn's context, with the text understood and the session's language updated."""
        now = self.clock()     # "明天" is read on the bot's clock, in the bot's time zone
        with tracing.span(tracing.UNDERSTANDING) as span:
            interp = self.understanding.interpret(understood, session.language, now=self.understanding.local_time(now))
            tracing.describe_understanding(span, interp)
        session.language = interp.language        # detected once, by understanding
        log_turn = enabled_for(logging.INFO)
        return TurnContext(txn=txn, session=session, text=understood, interp=interp,
                           language=interp.language, turn=session.turn, now=now,
                           user_key=user_scope(self.spec.bot.name, session.user_id) if session.user_id else "",
                           trace=log_turn and enabled_for(logging.DEBUG), log_turn=log_turn)

    def _migrate(self, ctx: TurnContext) -> None:
        """The session was saved with another version of the bot file: bring it up to date before
        the turn is handled, and say what is gone (docs/lifecycle.md)."""
        session = ctx.session
        migration = migrate_session(session, self.spec, self.texts, self.validator)
        log.info("session_migrated", session_id=session.id, from_version=session.bot_version,
                 to_version=self.version, **migration.event())
        session.bot_version = self.version
        ctx.say.extend(migration.messages)
        ctx.meant_for_removed_task = migration.resumed

    def _act(self, ctx: TurnContext) -> str:
        """Look ahead, let the policy act, run every-turn memory; the reply's text (not rephrased)."""
        with tracing.span(tracing.POLICY) as span:
            self.lookahead.run(ctx)
            explaining.bound_references(ctx)
            self.policy.respond(ctx)
            for name in self.spec.bot.memory.every_turn:
                self.memory.run(name, ctx)
            tracing.describe_policy(span, ctx)
        self._record_action_results(ctx)
        return join(ctx.say, ctx.language)

    def _summarizing(self) -> LLMLayer | None:
        """The LLM layer when it writes the round summaries (``use_for: [summaries]``), else None."""
        return self.llm if self.llm is not None and self.llm.uses("summaries") else None

    def _llm_summarizer(self, ctx: TurnContext) -> Summarizers | None:
        llm = self._summarizing()
        return partial(llm.summarizer, ctx) if llm is not None else None

    def _allm_summarizer(self, ctx: TurnContext) -> AsyncSummarizer | None:
        llm = self._summarizing()
        return partial(llm.asummarize, ctx) if llm is not None else None

    def _load_or_create(self, session: Session | None, session_id: str, user_id: str | None) -> Session:
        now = self.clock()
        if session is not None and user_id is None and is_ambiguous(session):
            log.info("session_restarted_anonymous", session_id=session_id)
            session = self._afresh(session, None, now)
        elif session is not None and now - session.updated_at > self.spec.bot.timeout_seconds:
            log.info("session_expired", session_id=session_id)
            session = self._afresh(session, session.user_id, now)
        if session is None:
            initial = self.spec.bot.language if self.spec.bot.language != "auto" else "en"
            session = Session(id=session_id, user_id=user_id, language=initial, created_at=now,
                              updated_at=now, bot_version=self.version)
            warn_if_plain(self.store.url, lambda: any(s.sensitive for f in self.spec.flows.values() for s in f.slots))
        else:
            bind(session, user_id)      # never re-owned, even once expired: SessionOwnerError
            session.version = SCHEMA_VERSION
        return session

    def _afresh(self, old: Session, user_id: str | None, now: float) -> Session:
        """A new conversation under ``old``'s id: nothing of it but its language and where its
        history ends (the stored messages stay, outside every later window)."""
        offset = old.history_offset + len(old.history)
        return Session(id=old.id, user_id=user_id, language=old.language, history_offset=offset,
                       full_tokens=old.full_tokens, created_at=now, updated_at=now, bot_version=self.version)

    def append(self, session: Session, role: Literal["user", "assistant"], content: str, turn: int,
               language: str) -> None:
        session.history.append(Message(role=role, content=content, turn=turn, language=language, at=self.clock()))
        session.full_tokens += self.view.counter.count_message(role, content)

    def _record_action_results(self, ctx: TurnContext) -> None:
        """Action results become attributes of the entities the action ran on (order -> status)."""
        ended = ctx.ended_task
        flow = self.spec.flows.get(ended.flow) if ended is not None else None
        if flow is None:
            return
        for run in ctx.action_runs:
            if not run.result:
                continue
            for slot in flow.slots:
                if slot.entity and slot.name in run.inputs and not slot.sensitive:
                    tracker.set_attributes(ctx.session, slot.entity, run.inputs[slot.name], dict(run.result),
                                           turn=ctx.turn)
            track_returned(ctx.session, self.spec, self.understanding, dict(run.result), turn=ctx.turn)

    def _reply(self, ctx: TurnContext, text: str) -> Reply:
        session = ctx.session
        task = session.task
        if ctx.ended_task is not None and ctx.ended_by in ("complete", "fail") and task is None:
            slots = dict(ctx.ended_task.slots)
        elif task is not None:
            slots = dict(task.slots)
        else:
            slots = {}
        pending = session.pending
        return Reply(
            text=text, state=session.state, flow=session.flow, slots=slots, session_id=session.id,
            language=ctx.language,
            clarification=[c.value for c in pending.candidates] if pending is not None and ctx.clarification else None,
            # The turn's own lists: the context is dropped after the turn, so they need no copy.
            resolved=ctx.resolved_text or ctx.text, actions=ctx.action_runs, options=ctx.options,
            trigger=ctx.transitions[-1] if ctx.transitions else None, transitions=ctx.transitions,
            memory_actions=ctx.memory_run, explain=ctx.explained,
            summary=_summary_snapshot(session.summary, ctx.language),
        )

    def _log_turn(self, ctx: TurnContext, reply: Reply, state_before: str, seconds: float) -> None:
        if not ctx.log_turn:
            return
        # The reply's slots are those of the task that just ended when none is left on the stack.
        owner = reply.flow or (ctx.ended_task.flow if ctx.ended_task is not None else None)
        hidden = self.view.sensitive_slots.get(owner, ()) if owner else ()
        secret = [reply.slots[name] for name in hidden if reply.slots.get(name) is not None]
        log.info(
            "turn", session_id=ctx.session.id, turn=ctx.turn, flow=reply.flow, source=state_before,
            dest=reply.state, triggers=reply.transitions, memory_actions=reply.memory_actions,
            slots={k: (MASK if k in hidden else v) for k, v in reply.slots.items()},
            text=mask_values(ctx.text, secret), latency_ms=round(seconds * 1000, 2),
            tokens=ctx.session.full_tokens,
        )


def _accept(action: str, value: object) -> None:
    """The validator of ``Turns`` built without one: custom rules accept every value."""
    return None


def _summary_snapshot(state: SummaryState, language: str) -> Callable[[], str]:
    """Render ``state`` as it is now, later (``summaries.snapshot``)."""
    return summaries.snapshot(state, language)
