"""The decisions of a turn written down as they are made (``reply.explain``).

The policy's steps each add a record naming themselves; the names are stable snake_case
(``label_answer``, ``keep_to_asked_slot``, ``yes_no_reply``...) so that a test, a log or a
reader can hold on to them. Only decisions are recorded, a handful per turn: a few small
objects, no copy of the text.

Values of sensitive slots are never written here: the record says the slot, not the value,
and not the words that gave it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache, wraps
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from dialogkit.model.reply import Explanation
from dialogkit.strings.redaction import MASK
from dialogkit.understanding.intents import VALUES_ALONE_CEILING

if TYPE_CHECKING:
    from dialogkit.engine.slots import SlotOffer
    from dialogkit.engine.turn import TurnContext
    from dialogkit.spec.compiler import CompiledFlow

__all__ = ["bound_references", "command_text", "cue_words", "flow_chosen", "offer_step", "refused", "slot_writes"]

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")
_CLAUSE = re.compile(r"[,，。.!！?？;；]")


def offer_step(rule: str) -> Callable[[Callable[Concatenate[S, TurnContext, SlotOffer, P], R]],
                                      Callable[Concatenate[S, TurnContext, SlotOffer, P], R]]:
    """A policy step that changes the slot offer: each value it puts there is credited to
    ``rule`` (and explained when it is written), each it takes out is explained at once."""
    def decorate(step: Callable[Concatenate[S, TurnContext, SlotOffer, P], R]
                 ) -> Callable[Concatenate[S, TurnContext, SlotOffer, P], R]:
        @wraps(step)
        def run(self: S, ctx: TurnContext, offer: SlotOffer, /, *args: P.args, **kwargs: P.kwargs) -> R:
            before = offer.values.copy()
            result = step(self, ctx, offer, *args, **kwargs)
            if before != offer.values:
                _credit(ctx, offer, rule, before)
            return result
        return run
    return decorate


def _credit(ctx: TurnContext, offer: SlotOffer, rule: str, before: Mapping[str, Any]) -> None:
    for name, value in offer.values.items():
        if name not in before or str(before[name]) != str(value):
            ctx.value_rules[name] = rule
    for name, value in before.items():
        if name not in offer.values:
            ctx.explain(rule, f"dropped {name} = {_shown(ctx, name, value)}")


def slot_writes(ctx: TurnContext, values: Mapping[str, Any], surfaces: Mapping[str, str],
                rule: str = "slot_offer") -> list[Explanation]:
    """What writing ``values`` will do, each credited to the step that offered it (``rule`` for
    a value no words offered): set, or corrected from the value held. Made before the write
    (which changes what is held), kept after it."""
    held = ctx.task.slots if ctx.task is not None else {}
    records: list[Explanation] = []
    for name, value in values.items():
        old = held.get(name)
        if old is not None and str(old) == str(value):
            continue
        secret = _sensitive(ctx, name)
        shown = MASK if secret else str(value)
        did = f"set {name} = {shown}" if old is None else f"corrected {name}: {MASK if secret else old} → {shown}"
        words = None if secret else surfaces.get(name)
        records.append(Explanation.read(_writer(ctx, name, surfaces, rule, old is not None), did, words,
                                        ctx.interp.text))
    return records


def _writer(ctx: TurnContext, name: str, surfaces: Mapping[str, str], rule: str, held: bool) -> str:
    """The step a written value is credited to: the correction that offered it, else the step
    that last changed it in the offer, else the offer itself, else ``rule``."""
    if name in ctx.value_rules:
        return ctx.value_rules[name]
    if name not in surfaces:
        return rule
    return "correction" if held and ctx.interp.cues & {"correction", "no"} else "slot_offer"


_STARTED_BY = {
    "follow_up": "started {name} again, on what the words refer to",
    "flow_of_values": "started {name}: the words ask with values only it takes",
    "around_a_thing": "started {name}: the words ask what is around its thing",
}
"""What a start says when a rule other than the trigger's score chose the flow."""


def flow_chosen(ctx: TurnContext, flow: CompiledFlow, carried: bool, by: str | None = None) -> None:
    """The flow a turn starts, and the signal that chose it: ``then``, the rule that asked for it
    (``by``: a reference, values alone, what is around a thing), or else the trigger's keyword,
    examples that resemble the words, or values of its slots. The rule is the command's, never a
    guess from the intents: a start by values alone may share no intent with the words."""
    name = flow.name
    top = ctx.interp.top_intent
    if carried:
        ctx.explain("then", f"started {name} after the task before it")
    elif by in _STARTED_BY:
        words = ", ".join(m.text for m in ctx.interp.declared_mentions) or ctx.interp.text.strip() or None
        ctx.explain(by, _STARTED_BY[by].format(name=name), words)
    elif top is None or top.flow != name:
        ctx.explain(by or "intent", f"started {name}", ctx.interp.text.strip() or None)
    else:
        keyword = _keyword(ctx.interp.text, flow.spec.trigger.keywords)
        if keyword is not None:
            ctx.explain("intent_keyword", f"started {name} (score {top.score:.2f})", keyword)
        elif flow.spec.trigger.examples and top.score > VALUES_ALONE_CEILING:
            ctx.explain("intent_examples", f"started {name} (score {top.score:.2f})", ctx.interp.text.strip())
        else:
            ctx.explain("intent_values", f"started {name} (score {top.score:.2f})",
                        ", ".join(m.text for m in ctx.interp.declared_mentions) or None)


def bound_references(ctx: TurnContext) -> None:
    """Each reference the look-ahead bound: the words, and the thing they point at."""
    resolution = ctx.resolution
    if resolution is None:
        return
    for binding in resolution.bindings:
        ref, entity = binding.reference, binding.entity
        words = ref.expression or None
        did = f"{ref.expression or '(left out)'} → {entity.type} {entity.value}"
        ctx.explained.append(Explanation("reference", did, words, (ref.start, ref.end) if words else None))


def cue_words(ctx: TurnContext) -> str | None:
    """The words a cue was read in: the first clause of the text ("好的", "不对，改成…" → "不对")."""
    first = _CLAUSE.split(ctx.interp.text.strip(), maxsplit=1)[0].strip()
    return first or None


def _keyword(text: str, keywords: list[str]) -> str | None:
    lowered = text.lower()
    for sought, length in _sought(tuple(keywords)):
        at = lowered.find(sought)
        if at >= 0:
            return text[at:at + length]
    return None


@lru_cache(maxsize=256)
def _sought(keywords: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """A trigger's keywords as ``_keyword`` looks for them (lower-cased, and the length of each as
    written), worked out once per flow rather than on every start."""
    return tuple((k.strip().lower(), len(k.strip())) for k in keywords if k.strip())


def _sensitive(ctx: TurnContext, name: str) -> bool:
    slot = ctx.flow.spec.slot(name) if ctx.flow is not None else None
    return slot is not None and slot.sensitive


def _shown(ctx: TurnContext, name: str, value: Any) -> str:
    return MASK if _sensitive(ctx, name) else str(value)


def refused(ctx: TurnContext, name: str, message: str, words: str | None) -> None:
    """A value a slot's rule refused, with the rule's message (the value itself when not sensitive)."""
    if _sensitive(ctx, name):
        ctx.explain("slot_rule", f"refused {name}")
        return
    ctx.explain("slot_rule", f"refused {name}: {message}", words)


def command_text(command: Any) -> str:
    """An LLM command as a record says it: "start report_issue", "set_slot product = phone", "confirm"."""
    if (flow := getattr(command, "flow", None)) is not None:
        return f"start {flow}"
    if (slot := getattr(command, "slot", None)) is not None:
        return f"{command.command} {slot} = {getattr(command, 'value', '')}"
    return str(command.command)
