"""``Bot``: the front door. Loads a bot file, owns the shared machines, runs the turn pipeline.

One turn, under the session's store lock:
    load session -> language -> understanding -> reference look-ahead -> policy picks triggers ->
    machines fire them (memory actions as callbacks) -> reply text -> every_turn memory ->
    save in one transaction -> one structlog event.
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from transitions import EventData

from dialogkit.errors import DialogkitError
from dialogkit.spec.compiler import CompiledFlow, PhasedCallback, compile_bot
from dialogkit.actions.loading import LoadedBot, load_bot_file
from dialogkit.spec.schema import FlowSpec, Prompt, SlotSpec, prompt_text
from dialogkit.logging import configure_logging, enabled_for, mask_values
from dialogkit.engine import memory_actions as memory_actions
from dialogkit.memory import forgetting, references, summary as summaries, tracker
from dialogkit.engine import context_view
from dialogkit.text import phrases as R
from dialogkit.engine.policy import Policy
from dialogkit.model.reply import Reply
from dialogkit.model.session import (
    Candidate,
    Entity,
    Message,
    PendingClarification,
    Session,
    SlotChange,
    SummaryState,
    Task,
)
from dialogkit.engine.slots import slot_name_label
from dialogkit.engine.turn import TurnContext
from dialogkit.store import SessionStore, open_store
from dialogkit.model.interpretation import Mention
from dialogkit.understanding.rules import RuleUnderstanding

log = structlog.get_logger("dialogkit.bot")

MAX_UNDERSTOOD_CHARS = 4000      # understanding reads this much of a message; the rest is kept, not parsed
MAX_STORED_CHARS = 65536         # a message longer than this is stored truncated with a marker
TOO_LONG = {
    "zh": "（消息过长：共 {n} 个字符，只读取了前 {k} 个。）",
    "en": "(Your message is very long: {n} characters; I read the first {k}.)",
}


def clean_text(text: Any) -> str:
    """Any input -> printable text: bytes decoded, control characters and lone surrogates removed."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if text.isprintable():          # the common case: nothing to remove, no per-character scan
        return text.strip()
    text = text.encode("utf-8", errors="replace").decode("utf-8")
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C").strip()


@dataclass(slots=True)
class SessionView:
    """A read-only look at one session (``bot.session(id)``)."""

    id: str
    user_id: str
    state: str
    flow: str | None
    slots: dict[str, Any]
    summary: str
    entities: list[Entity]
    stack: list[str]
    language: str
    pending: list[Any] | None
    history: list[Message] = field(default_factory=list)
    data: Session | None = None


def _summary_snapshot(state: SummaryState, language: str) -> Callable[[], str]:
    """Render ``state`` as it is now, later: items are replaced, never edited, so copying the
    three lists is a faithful snapshot even after the next turn changes the session."""
    facts, confirmed, pending = list(state.facts), list(state.confirmed), list(state.pending)
    return lambda: summaries.render_summary(SummaryState(facts=facts, confirmed=confirmed, pending=pending), language)


class Bot:
    """A loaded bot: compiled flows, understanding, store, actions; ``handle`` runs one turn."""

    def __init__(self, loaded: LoadedBot, store: SessionStore, *, llm: Any = None,
                 clock: Callable[[], float] = time.time) -> None:
        if not structlog.is_configured():
            configure_logging()
        self.loaded = loaded
        self.spec = loaded.spec
        self.path = loaded.path
        self.store = store
        self.actions = loaded.actions
        self.clock = clock
        self.understanding = RuleUnderstanding(self.spec)
        from dialogkit.engine.llm_layer import LLMLayer

        self.llm_layer: LLMLayer | None = LLMLayer.create(self, llm)
        self.llm = self.llm_layer.client if self.llm_layer is not None else None
        self.policy = Policy(self)
        self._custom_memory: dict[str, Callable[..., Any]] = dict(loaded.memory_actions)
        hooks = {"start_task": [self._apply_updates], "provide_param": [self._apply_updates]}
        self.flows: dict[str, CompiledFlow] = compile_bot(self.spec, self._memory_callback, before_hooks=hooks)
        self._counter: Any = None
        self._descriptions: dict[tuple[str, str], str] = {}
        # Per flow, its ``sensitive: true`` slots: redaction looks them up on every turn.
        self.sensitive_slots: dict[str, tuple[str, ...]] = {
            name: tuple(s.name for s in flow.slots if s.sensitive) for name, flow in self.spec.flows.items()
        }
        # A turn needs the recent rounds only; older ones live on as summaries (dual track).
        self.history_tail = 2 * self.spec.context.effective_keep_recent_rounds + 24

    # ---- construction ---------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path, *, store: str | SessionStore | None = None, llm: Any = None,
                  actions: Mapping[str, Any] | None = None) -> Bot:
        loaded = load_bot_file(path, actions=actions)
        opened = store if store is not None and not isinstance(store, str) else open_store(store)
        return cls(loaded, opened, llm=llm)

    def close(self) -> None:
        try:
            self.store.close()
        finally:
            if self.llm_layer is not None:
                self.llm_layer.close()

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _memory_callback(self, name: str) -> PhasedCallback:
        if name in memory_actions.BUILTINS:
            d = memory_actions.BUILTINS[name]
            return memory_actions.as_callback(name, d.func, d.phase)
        return memory_actions.as_callback(name, self._custom_memory[name], "after")

    # ---- the turn -------------------------------------------------------------------------
    def handle(self, session_id: str, text: Any, *, user_id: str | None = None) -> Reply:
        started = time.perf_counter()
        raw = clean_text(text)
        stored = raw if len(raw) <= MAX_STORED_CHARS else raw[:MAX_STORED_CHARS] + "…[truncated]"
        understood = raw[:MAX_UNDERSTOOD_CHARS]
        with self.store.transaction(str(session_id), history_tail=self.history_tail) as txn:
            session = self._load_or_create(txn.session, str(session_id), user_id)
            state_before = session.state
            session.turn += 1
            turn = session.turn
            interp = self.understanding.interpret(understood, session.language)
            language = session.language = interp.language   # detected once, by understanding (SPEC section 2)
            self._append(session, "user", stored, turn, language)
            ctx = TurnContext(bot=self, txn=txn, session=session, text=understood, interp=interp,
                              language=language, turn=turn)
            ctx.extra["trace"] = enabled_for(logging.DEBUG)   # per-transition events
            ctx.extra["log_turn"] = enabled_for(logging.INFO)
            if len(raw) > MAX_UNDERSTOOD_CHARS:
                ctx.say.append(TOO_LONG[language].format(n=len(raw), k=MAX_UNDERSTOOD_CHARS))
            if self.llm_layer is not None and understood:
                self.llm_layer.understand(ctx)      # falls back to the rule interpretation on any failure
            self._look_ahead(ctx)
            self.policy.respond(ctx)
            for name in self.spec.bot.memory.every_turn:
                memory_actions.run_named(name, ctx, self._custom_memory)
            self._record_action_results(ctx)
            reply_text = R.join(ctx.say, ctx.language)
            if self.llm_layer is not None:
                reply_text = self.llm_layer.rephrase(ctx, reply_text)
            self._append(session, "assistant", reply_text, turn, ctx.language)
            context_view.after_turn(self, ctx)     # fold finished 5-round blocks into summaries
            session.updated_at = self.clock()
            txn.save(session)
        reply = self._reply(ctx, reply_text)
        self._log_turn(ctx, reply, state_before, time.perf_counter() - started)
        return reply

    def _load_or_create(self, session: Session | None, session_id: str, user_id: str | None) -> Session:
        now = self.clock()
        if session is not None and now - session.updated_at > self.spec.bot.timeout_seconds:
            log.info("session_expired", session_id=session_id)
            offset = session.history_offset + len(session.history)
            session = Session(id=session_id, user_id=user_id or session.user_id, language=session.language,
                              history_offset=offset, full_tokens=session.full_tokens)
        if session is None:
            initial = self.spec.bot.language if self.spec.bot.language != "auto" else "en"
            session = Session(id=session_id, user_id=user_id or session_id, language=initial)
        elif user_id and session.user_id != user_id:
            session.user_id = user_id
        return session

    def _append(self, session: Session, role: str, content: str, turn: int, language: str) -> None:
        session.history.append(Message(role=role, content=content, turn=turn, language=language))  # type: ignore[arg-type]
        session.full_tokens += self.token_counter.count_message(role, content)

    @property
    def token_counter(self) -> Any:
        if self._counter is None:
            from dialogkit.context.tokens import TokenCounter

            self._counter = TokenCounter(self.spec.context.model)
        return self._counter

    def _look_ahead(self, ctx: TurnContext) -> None:
        """Find the turn's references before the policy runs, so it decides on the resolved text."""
        session = ctx.session
        source = ctx.text
        task = session.task
        flow = self.flows[task.flow] if task else None
        has_object = flow is not None and flow.spec.object is not None
        if not source or (not session.entities and not has_object):
            return
        expected: set[str] = set()
        if task is not None and flow is not None and task.pending_slot:
            slot = flow.spec.slot(task.pending_slot)
            if slot is not None and slot.entity:
                expected.add(slot.entity)
        elif flow is not None:
            expected = {s.entity for s in flow.spec.slots if s.entity}
        object_label = None
        if flow is not None and flow.spec.object is not None:
            object_label = prompt_text(flow.spec.object, ctx.language)
        resolution = references.resolve(
            session, source, ctx.language, turn=ctx.turn, mentions=ctx.interp.mentions,
            expected_types=expected, task_object_label=object_label,
        )
        self._use_resolution(ctx, resolution)

    def _use_resolution(self, ctx: TurnContext, resolution: Any) -> None:
        ctx.resolution = resolution
        if resolution.resolved_text != resolution.text:
            ctx.resolved_text = resolution.resolved_text
        if resolution.ambiguity is not None and resolution.ambiguity.candidates:
            # Decide the intent as if the first candidate were meant: "它还没到" is a report either way,
            # and the transition's resolve_references then stops it to ask which one.
            ref, first = resolution.ambiguity.reference, resolution.ambiguity.candidates[0]
            probe = resolution.text[:ref.start] + tracker.entity_label(first, ctx.language) + resolution.text[ref.end:]
            ctx.interp.intents = self.understanding.interpret(probe, ctx.language).intents
        if resolution.bindings:
            again = self.understanding.interpret(resolution.resolved_text, ctx.language)
            own = {(m.type, str(m.value)) for m in ctx.interp.mentions}
            ctx.interp.intents = again.intents
            ctx.interp.cues = ctx.interp.cues | again.cues
            ctx.bound_mentions = [
                Mention(type=b.entity.type, value=b.entity.value, text=b.reference.expression,
                        start=b.reference.start, end=b.reference.end, kind=b.entity.kind)
                for b in resolution.bindings if (b.entity.type, str(b.entity.value)) not in own
            ]

    def replay_with_choice(self, ctx: TurnContext, pending: PendingClarification, choice: Candidate) -> None:
        """Continue the request a clarification interrupted, with the chosen referent bound."""
        entity = ctx.session.entity(choice.entity_id) if choice.entity_id else None
        ctx.interp = self.understanding.interpret(pending.original_text, ctx.language)
        ctx.text = pending.original_text
        resolution = references.resolve(ctx.session, pending.original_text, ctx.language, turn=ctx.turn,
                                        mentions=ctx.interp.mentions)
        if resolution.ambiguity is not None and entity is not None:
            ref = resolution.ambiguity.reference
            label = tracker.entity_label(entity, ctx.language)
            resolved = resolution.resolved_text.replace(ref.expression, label, 1)
            resolution = references.Resolution(
                text=resolution.text, resolved_text=resolved,
                bindings=[*resolution.bindings, references.Binding(reference=ref, entity=entity)], ambiguity=None,
            )
        self._use_resolution(ctx, resolution)
        ctx.resolved_text = resolution.resolved_text

    def fire(self, ctx: TurnContext, trigger: str) -> None:
        """Fire ``trigger`` on the active flow's shared machine for this turn's task."""
        task, flow = ctx.task, ctx.flow
        assert task is not None and flow is not None
        ctx.trigger = trigger
        before = task.state
        task.state = flow.fire(trigger, before, ctx)
        ctx.transitions.append(trigger)
        if ctx.extra.get("trace"):
            log.debug("transition", session_id=ctx.session.id, flow=flow.name, trigger=trigger,
                      source=before, dest=task.state, memory_actions=flow.memory.get(trigger, []))

    def _apply_updates(self, event: EventData) -> None:
        """Runtime before-hook of start_task/provide_param: write the turn's slot values."""
        ctx: TurnContext = event.kwargs["ctx"]
        task = ctx.task
        assert task is not None
        now = self.clock()
        for name, value in ctx.updates.items():
            old = task.slots.get(name)
            if old is not None and str(old) != str(value):
                task.slot_history.setdefault(name, []).append(
                    SlotChange(value=old, turn=task.slot_turns.get(name, ctx.turn), at=now, superseded_at=now))
            task.slots[name] = value
            task.slot_turns[name] = ctx.turn
            if name in task.prefilled and name not in ctx.prefilled:
                task.prefilled.remove(name)

    def prefill(self, ctx: TurnContext, task: Task, *, exclude: set[str]) -> dict[str, Any]:
        """Values of persisted slots for a new task: the more recent of session and user scope."""
        out: dict[str, Any] = {}
        flow = self.spec.flows[task.flow]
        user_values = None
        for slot in flow.slots:
            if slot.persist == "none" or slot.name in exclude:
                continue
            best = ctx.session.session_slots.get(slot.name)
            if user_values is None:
                user_values = ctx.txn.user_slots(ctx.session.user_id)
            user_value = user_values.get(slot.name)
            if user_value is not None and (best is None or user_value.at > best.at):
                best = user_value
            if best is not None:
                out[slot.name] = best.value
        return out

    def forget_turn(self, ctx: TurnContext, turn: int) -> bool:
        """"忘记刚才说的": drop the entities and slot values the given user turn added."""
        removed = forgetting.forget_last_turn(ctx.session, turn)      # counts of what went, per kind
        dropped = any(removed.values())
        for task in ctx.session.stack:
            for name in [n for n, t in task.slot_turns.items() if t == turn]:
                history = task.slot_history.get(name) or []
                if history:
                    previous = history.pop()
                    task.slots[name] = previous.value
                    task.slot_turns[name] = previous.turn
                else:
                    task.slots.pop(name, None)
                    task.slot_turns.pop(name, None)
                dropped = True
        return dropped

    def _record_action_results(self, ctx: TurnContext) -> None:
        """Action results become attributes of the entities the action ran on (order -> status)."""
        for run in ctx.action_runs:
            if not run.result:
                continue
            flow = self.spec.flows.get(ctx.ended_task.flow) if ctx.ended_task else None
            if flow is None:
                continue
            for slot in flow.slots:
                if slot.entity and slot.name in run.inputs and not slot.sensitive:
                    tracker.set_attributes(ctx.session, slot.entity, run.inputs[slot.name], dict(run.result),
                                           turn=ctx.turn)

    # ---- texts -----------------------------------------------------------------------------------
    def describe_flow(self, name: str, language: str) -> str:
        key = (name, language)
        text = self._descriptions.get(key)
        if text is None:
            text = self._descriptions[key] = R.flow_description(self.spec.flows[name], name, language)
        return text

    def task_label(self, name: str, language: str) -> str:
        return R.task_label(self.spec.flows[name], name, language)

    def slot_label(self, slot: SlotSpec | None, language: str) -> str:
        return slot_name_label(slot, language) if slot is not None else ""

    def value_label(self, slot: SlotSpec | None, value: Any, language: str) -> str:
        return R.slot_label(self.spec, slot.entity if slot else None, value, language)

    def prompt_in(self, p: Prompt, language: str) -> str:
        return prompt_text(p, language)

    def ask_slot(self, flow: FlowSpec, slot: SlotSpec, language: str, slots: Mapping[str, Any]) -> str:
        values = R.slot_values_for_template(self.spec, flow, slots, language)
        if slot.ask is not None:
            return R.prompt(slot.ask, language, values)
        return R.phrase("ask_slot", language, slot=slot_name_label(slot, language))

    def confirm_text(self, flow: CompiledFlow, task: Task, language: str) -> str:
        values = R.slot_values_for_template(self.spec, flow.spec, task.slots, language)
        if flow.spec.confirm is None:
            return R.phrase("confirm_default", language, task=self.task_label(flow.name, language))
        return R.prompt(flow.spec.confirm.ask, language, values)

    def help_text(self, language: str) -> str:
        lines = [R.phrase("help_intro", language)]
        for name, flow in self.spec.flows.items():
            lines.append(R.phrase("help_item", language, description=R.flow_description(flow, name, language)))
        return "\n".join(lines)

    def run_validator(self, action_name: str, value: Any) -> str | None:
        """A custom slot validator (``validate: - action: name``): returns an error message or None."""
        return self.actions.validate(action_name, value)

    # ---- reply & inspection ---------------------------------------------------------------------
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
            memory_actions=ctx.memory_run,
            summary=_summary_snapshot(session.summary, ctx.language),
        )

    def _log_turn(self, ctx: TurnContext, reply: Reply, state_before: str, seconds: float) -> None:
        if not ctx.extra.get("log_turn"):
            return
        # The reply's slots are those of the task that just ended when none is left on the stack.
        owner = reply.flow or (ctx.ended_task.flow if ctx.ended_task is not None else None)
        hidden = self.sensitive_slots.get(owner, ()) if owner else ()
        secret = [reply.slots[name] for name in hidden if reply.slots.get(name) is not None]
        log.info(
            "turn", session_id=ctx.session.id, turn=ctx.turn, flow=reply.flow, source=state_before,
            dest=reply.state, triggers=reply.transitions, memory_actions=reply.memory_actions,
            slots={k: ("***" if k in hidden else v) for k, v in reply.slots.items()},
            text=mask_values(ctx.text, secret), latency_ms=round(seconds * 1000, 2),
            tokens=ctx.session.full_tokens,
        )

    def session(self, session_id: str) -> SessionView:
        data = self.store.load(str(session_id), history_tail=None)
        if data is None:
            raise DialogkitError(f"no session {session_id!r} in {self.store.url}")
        slots: dict[str, Any] = {name: p.value for name, p in self.store.user_slots(data.user_id).items()}
        slots.update({name: p.value for name, p in data.session_slots.items()})
        if data.task is not None:
            slots.update(data.task.slots)
        pending = [c.value for c in data.pending.candidates] if data.pending else None
        return SessionView(
            id=data.id, user_id=data.user_id, state=data.state, flow=data.flow, slots=slots,
            summary=summaries.render_summary(data.summary, data.language), entities=list(data.entities),
            stack=[t.flow for t in data.stack], language=data.language, pending=pending,
            history=list(data.history), data=data,
        )

    # ---- the context window (SPEC section 6) ---------------------------------------------------
    def _load(self, session_id: str) -> Session:
        data = self.store.load(str(session_id), history_tail=self.history_tail)
        if data is None:
            raise DialogkitError(f"no session {session_id!r} in {self.store.url}")
        return data

    def build_context(self, session_id: str) -> Any:
        """The ``BuiltContext`` an LLM would receive now (messages plus the accounting)."""
        return context_view.build_for_session(self, self._load(session_id))

    def context(self, session_id: str) -> list[Any]:
        """The messages an LLM would receive now: role, content, priority, tokens."""
        return list(self.build_context(session_id).messages)

    def stats(self, session_id: str) -> dict[str, Any]:
        """full_tokens, sent_tokens, saved_tokens, saved_pct, messages, summary_chars, and more."""
        return context_view.stats(self, self._load(session_id))

    def export_context(self, session_id: str) -> str:
        """What ``/export FILE`` writes: each message, then ``Token saved: N (P%)``."""
        return context_view.export(self, self._load(session_id))
