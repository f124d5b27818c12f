"""Memory actions: the callables the compiler attaches to transitions, named in the YAML.

``resolve_references`` and ``track_entities`` run before the state change (an ambiguous
reference must stop the transition before anything changes); the others run after it. A
``module:function`` custom action receives the same ``TurnContext`` and runs after.
``MemoryActions`` binds the built-ins to what they render with (the bot's ``Texts``), so no
memory action reaches for the bot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from transitions import EventData

from dialogkit.engine import slot_writes
from dialogkit.engine.turn import ClarificationNeeded
from dialogkit.logging import get_logger
from dialogkit.memory import clarification, forgetting, summary, tracker
from dialogkit.memory.summary import STORED
from dialogkit.model.session import PersistedValue, SlotChange
from dialogkit.spec.compiler import PhasedCallback
from dialogkit.spec.schema import BUILTIN_MEMORY_ACTIONS, SlotSpec
from dialogkit.text.labels import Texts
from dialogkit.text.phrases import phrase

if TYPE_CHECKING:
    from dialogkit.engine.turn import TurnContext

log = get_logger("dialogkit.memory")
_ZH, _EN = STORED


def resolve_references(ctx: TurnContext, texts: Texts) -> None:
    """Bind the turn's references to tracked entities, or stop the transition and ask."""
    resolution = ctx.resolution
    if resolution is None:
        return
    if resolution.ambiguity is not None:
        pending = clarification.make_pending(
            resolution.ambiguity,
            original_text=ctx.interp.text,
            language=ctx.language,
            turn=ctx.turn,
            kind="reference",
            flow=ctx.flow.name if ctx.flow else None,
            texts=texts,
        )
        raise ClarificationNeeded(pending)
    if ctx.flow is None:
        return
    for binding in resolution.bindings:
        entity = binding.entity
        for slot in ctx.flow.spec.slots:
            if slot.is_near:
                continue        # "它家的营业时间", "它周边": the thing itself, never a place looked around
            if slot.entity == entity.type and slot.name not in ctx.updates:
                current = ctx.task.slots.get(slot.name) if ctx.task else None
                if current is None or str(current) != str(entity.value):
                    ctx.updates[slot.name] = entity.value
                break
    ctx.resolved_text = resolution.shown_text


def track_entities(ctx: TurnContext) -> None:
    """Record the turn's mentions (once per turn, whichever list asks first)."""
    if ctx.tracked:
        return
    ctx.tracked = True
    mentions = list(ctx.interp.mentions)
    if mentions:
        tracker.track_mentions(ctx.session, mentions, turn=ctx.turn)
        ctx.session.last_turn_added.setdefault("entity_turn", ctx.turn)


_FACTS = frozenset({"start_task", "provide_param"})
_SUMMARIZED = _FACTS | {"confirm", "complete", "fail", "cancel"}


def summarize(ctx: TurnContext, texts: Texts) -> None:
    """Update the ticket summary from this transition's events only."""
    task, flow, trigger = ctx.task, ctx.flow, ctx.trigger
    # Most transitions of a turn record nothing (collect, request_confirmation, deny, a turn that
    # wrote no value): leave before labelling the flow in two languages for nothing.
    if task is None or flow is None or trigger not in _SUMMARIZED or (trigger in _FACTS and not ctx.updates):
        return
    desc = {lang: texts.describe_flow(flow.name, lang) for lang in summary.kept_languages(texts.languages)}
    state = ctx.session.summary
    if trigger in _FACTS:
        _record_facts(ctx, texts, desc, ctx.updates, ctx.turn)
    elif trigger == "confirm":
        summary.record_confirmed(state, key=f"{task.id}:confirmed", **desc, turn=ctx.turn)
        summary.record_pending(state, key=f"{task.id}:run", **_said("summary_run", desc), turn=ctx.turn)
    elif trigger == "complete":
        _record_completed(ctx, texts, desc)
    elif trigger in ("fail", "cancel"):
        summary.resolve_pending(state, f"{task.id}:run")
        outcome = "failed" if trigger == "fail" else "cancelled"
        summary.record_confirmed(state, key=f"{task.id}:{outcome}", **_said(f"summary_{outcome}", desc), turn=ctx.turn)


def _said(key: str, desc: Mapping[str, str]) -> dict[str, str]:
    """A summary phrase about the task, in each language the summary keeps (``zh=``, ``en=``, ...)."""
    return {lang: phrase(key, lang, task=text) for lang, text in desc.items()}


def restate_facts(ctx: TurnContext, texts: Texts, names: Iterable[str]) -> None:
    """Facts for values a forget gave back: "忘记刚才说的" after "金额是1" puts the amount said
    before back in the slot, while the summary's fact for the amount went with the forgotten turn.
    Each is recorded again at the turn it was first said, so a later forget leaves it be."""
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None:
        return
    desc = {lang: texts.describe_flow(flow.name, lang) for lang in summary.kept_languages(texts.languages)}
    for name in names:
        if task.slots.get(name) is not None:
            _record_facts(ctx, texts, desc, {name: task.slots[name]}, task.slot_turns.get(name, ctx.turn))


def _record_facts(ctx: TurnContext, texts: Texts, desc: Mapping[str, str], values: Mapping[str, Any],
                  turn: int) -> None:
    """The values a transition wrote, labelled in each language the summary keeps (sensitive ones never)."""
    task, flow = ctx.task, ctx.flow
    assert task is not None and flow is not None
    slots: dict[str, tuple[str, str, str, str]] = {}
    more: dict[str, tuple[str, dict[str, tuple[str, str]]]] = {
        lang: (heading, {}) for lang, heading in desc.items() if lang not in STORED}
    for name, value in values.items():
        slot = flow.spec.slot(name)
        if slot is None or slot.sensitive:
            continue
        slots[name] = (texts.slot_label(slot, _ZH), texts.slot_label(slot, _EN),
                       texts.value_label(slot, value, _ZH), texts.value_label(slot, value, _EN))
        for lang, (_, said) in more.items():
            said[name] = (texts.slot_label(slot, lang), texts.value_label(slot, value, lang))
    if slots:
        # Keyed by task, not flow: a second ticket adds its facts beside the first one's.
        summary.record_facts(ctx.session.summary, flow=task.key, flow_description=desc[_ZH],
                             flow_description_en=desc[_EN], slots=slots, turn=turn, more=more)


def _record_completed(ctx: TurnContext, texts: Texts, desc: Mapping[str, str]) -> None:
    """The task's outcome as the action's ``say`` put it, and its follow-up as pending."""
    task, flow = ctx.task, ctx.flow
    assert task is not None and flow is not None
    state = ctx.session.summary
    summary.resolve_pending(state, f"{task.id}:run")
    done = {lang: ctx.said.get(lang) or text for lang, text in _said("summary_done", desc).items()}
    summary.record_confirmed(state, key=f"{task.id}:done", **done, turn=ctx.turn)
    follow_up = flow.spec.follow_up
    if follow_up is not None:
        summary.record_pending(state, key=f"{task.id}:follow_up", turn=ctx.turn,
                               **{lang: texts.prompt(follow_up, lang) for lang in desc})


def persist_slots(ctx: TurnContext, texts: Texts) -> None:
    """Write ``persist: session|user`` slot values; a superseded value is kept as history."""
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None:
        return
    now = ctx.now
    user_values = None
    for slot in flow.spec.slots:
        value = task.slots.get(slot.name)
        if slot.persist == "none" or value is None:
            continue
        if slot.persist == "session" or ctx.session.user_id is None:     # anonymous: no user to keep it for
            held = ctx.session.session_slots.get(slot.name)
            if not _picks_within(texts, slot, held, value):
                ctx.session.session_slots[slot.name] = _superseding(held, value, now, flow.name, ctx.turn)
        else:
            if user_values is None:
                user_values = slot_writes.user_values(ctx)
            if _picks_within(texts, slot, user_values.get(slot.name), value):
                continue
            record = _superseding(user_values.get(slot.name), value, now, flow.name, ctx.turn)
            ctx.txn.set_user_slot(ctx.user_key, slot.name, record)
            user_values[slot.name] = record


def _picks_within(texts: Texts, slot: SlotSpec, held: PersistedValue | None, value: Any) -> bool:
    """"The address of the one in the centre" after "any area": a value a flow only accepts (it
    never asks for it) picks one result among those the wish "no preference" allows; the wish
    stays. A slot the flow asks for is a wish, and its value replaces the one held."""
    if slot.required or held is None:
        return False
    no_preference = texts.spec.any_value(slot)
    return no_preference is not None and str(held.value) == no_preference != str(value)


def _superseding(old: PersistedValue | None, value: Any, now: float, flow: str, turn: int) -> PersistedValue:
    history = list(old.history) if old else []
    if old is not None and str(old.value) != str(value):
        history.append(SlotChange(value=old.value, turn=turn, at=old.at, superseded_at=now))
    return PersistedValue(value=value, at=now, flow=flow, history=history[-20:])


def forget(ctx: TurnContext) -> None:
    """Drop a finished task's transient details; its summary and persisted values stay."""
    if ctx.task is not None:
        forgetting.forget_task_details(ctx.session, ctx.task)


def pin(ctx: TurnContext) -> None:
    """Pin the current user message so the context window never drops it."""
    for message in reversed(ctx.session.history):
        if message.role == "user" and message.turn == ctx.turn:
            message.pinned = True
            break


MemoryAction = Callable[["TurnContext"], None]

BEFORE = frozenset({"resolve_references", "track_entities"})
"""Built-ins that run before the state change; every other memory action runs after it."""


class MemoryActions:
    """The memory actions a bot's transitions can name: the built-ins, bound to the bot's texts,
    and the bot file's custom ``module:function`` ones."""

    def __init__(self, texts: Texts, custom: Mapping[str, Callable[..., Any]]) -> None:
        self._funcs: dict[str, MemoryAction] = {
            "resolve_references": partial(resolve_references, texts=texts),
            "track_entities": track_entities,
            "summarize": partial(summarize, texts=texts),
            "persist_slots": partial(persist_slots, texts=texts),
            "forget": forget,
            "pin": pin,
        }
        assert set(self._funcs) == set(BUILTIN_MEMORY_ACTIONS), "the schema's list names every built-in"
        for name, func in custom.items():
            self._funcs.setdefault(name, func)

    def callback(self, name: str) -> PhasedCallback:
        """Wrap a memory action for ``transitions``: it receives the turn from the event's kwargs."""
        func = self._funcs[name]

        def callback(event: EventData) -> None:
            ctx: TurnContext = event.kwargs["ctx"]
            ctx.memory_run.append(name)
            func(ctx)

        callback.__name__ = f"memory_{name.replace(':', '_').replace('.', '_')}"
        return PhasedCallback(name=name, func=callback, phase="before" if name in BEFORE else "after")

    def run(self, name: str, ctx: TurnContext) -> None:
        """Run one memory action outside a transition (the bot's ``every_turn`` list)."""
        func = self._funcs.get(name)
        if func is not None:
            ctx.memory_run.append(name)
            func(ctx)


__all__ = ["BEFORE", "ClarificationNeeded", "MemoryActions"]
