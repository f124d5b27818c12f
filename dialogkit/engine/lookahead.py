"""Look-ahead: find a turn's references before the policy decides, so it decides on the resolved text.

"它现在怎么样？" after order 12345 is a status question about 12345. The binding itself takes
effect later, in the ``resolve_references`` memory action (slots filled, or the clarification
asked); here the references only change which intent the turn reads as. The turn is not read
again: its reading is scored again with the referents' words and values in the references' place
(no entity looked for, no cue read), and the turn's cues stay its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from dialogkit.engine.named_any import NamedAny
from dialogkit.engine.turn import TurnContext
from dialogkit.memory import references, tracker
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Candidate, Entity, PendingClarification
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import prompt_text
from dialogkit.text.labels import Texts
from dialogkit.understanding.rules import RuleUnderstanding
from dialogkit.understanding.stand_ins import StandIn

__all__ = ["LookAhead"]


class LookAhead:
    """Reference look-ahead for one bot: its understanding scores the turn's intents again with
    the referents standing where the references were (``RuleUnderstanding.intents_with``)."""

    def __init__(self, understanding: RuleUnderstanding, flows: Mapping[str, CompiledFlow], texts: Texts) -> None:
        self.understanding = understanding
        self.flows = flows
        self.texts = texts
        self.named_any = NamedAny(texts.spec, texts)     # the processor's too: one per bot

    def run(self, ctx: TurnContext) -> None:
        """Resolve the turn's references against entity memory and the active task's object."""
        session = ctx.session
        task = session.task
        flow = self.flows[task.flow] if task else None
        has_object = flow is not None and flow.spec.object is not None
        if not ctx.text or (not session.entities and not has_object):
            return
        object_label = None
        if flow is not None and flow.spec.object is not None:
            object_label = prompt_text(flow.spec.object, ctx.language)
        resolution = references.resolve(
            session, ctx.text, ctx.language, turn=ctx.turn, mentions=ctx.interp.mentions,
            expected_types=self._expected_types(ctx, flow), task_object_label=object_label, texts=self.texts,
            reads_as=ctx.interp.read_as,
        )
        if (resolution.bindings or resolution.ambiguity is not None) and (
                self._corrects_a_value(ctx, flow) or self._leaves_asked_open(ctx, flow)
                or self._named_no_preference(ctx)):
            resolution = self._without_replaced_referents(resolution)
        self.use(ctx, resolution)

    @staticmethod
    def _without_replaced_referents(resolution: references.Resolution) -> references.Resolution:
        """Corrections win over references: "no, make it A10000" — the "it" is the value being
        replaced (whatever slot the question was for), so it is neither asked about nor written
        out; the new value fits its slot. So does a no-preference answer's "it" (the thing asked)."""
        if resolution.ambiguity is None and not resolution.bindings:
            return resolution
        return dataclasses.replace(resolution, resolved_text=resolution.text, shown_text=resolution.text,
                                   bindings=[], ambiguity=None, edits=[])

    @staticmethod
    def _leaves_asked_open(ctx: TurnContext, flow: CompiledFlow | None) -> bool:
        """"I don't care about it" / "it doesn't matter" / "那个无所谓" to a question, or with no task
        after a search answered: the "it" is what is left open, no value said before to look up or
        to ask about."""
        if "any" not in ctx.interp.cues:
            return False
        task = ctx.session.task
        return task is None or (flow is not None and task.pending_slot is not None)

    def _named_no_preference(self, ctx: TurnContext) -> bool:
        """"I don't care what part of town it is in" / "它在哪个区域都无所谓": the "it" is the thing
        looked for, whose area is left open, not a value said before."""
        return bool(self.named_any.slots_in(ctx.interp.text))

    def _corrects_a_value(self, ctx: TurnContext, flow: CompiledFlow | None) -> bool:
        """"no, make it 3" / "不，把它改成3": inside a task, a correction that brings a value of one
        of the task's types. Its "it" is the value being changed, not an entity to look up. A value
        another type claimed first ("damaged": an issue type to the rules) is read as each of the
        task's types too, as the correction's slot offer reads it."""
        if flow is None or not ctx.interp.cues & {"correction", "no"} or not ctx.interp.mentions:
            return False
        types = flow.spec.value_types
        if any(m.type in types for m in ctx.interp.mentions):
            return True
        return bool(ctx.interp.read_as(types))

    @staticmethod
    def _expected_types(ctx: TurnContext, flow: CompiledFlow | None) -> set[str]:
        """The entity types the task wants now: the asked slot's, else any of the flow's."""
        task = ctx.session.task
        if flow is None:
            return set()
        if task is not None and task.pending_slot:
            slot = flow.spec.slot(task.pending_slot)
            return {slot.entity} if slot is not None and slot.entity else set()
        return flow.spec.value_types

    def use(self, ctx: TurnContext, resolution: references.Resolution) -> None:
        """Take a resolution into the turn: the resolved text, and the intents it reads as."""
        ctx.resolution = resolution
        if resolution.resolved_text != resolution.text:
            ctx.resolved_text = resolution.shown_text
        if resolution.ambiguity is not None and resolution.ambiguity.candidates:
            # Decide the intent as if the first candidate were meant: "它还没到" is a report either way,
            # and the transition's resolve_references then stops it to ask which one.
            ref, first = resolution.ambiguity.reference, resolution.ambiguity.candidates[0]
            label = tracker.entity_label(first, ctx.language, self.texts)
            probe = StandIn(ref.start, ref.end, label, self._named(label, [first], ctx.language))
            ctx.interp.intents = self.understanding.intents_with(ctx.interp, [probe])
        if resolution.bindings:
            own = {(m.type, str(m.value)) for m in ctx.interp.mentions}
            ctx.interp.intents = self.understanding.intents_with(ctx.interp, self._stand_ins(resolution, ctx.language))
            ctx.bound_mentions = [
                self._mention(b.entity, b.reference.expression, b.reference.start)
                for b in resolution.bindings if (b.entity.type, str(b.entity.value)) not in own
            ]

    def _stand_ins(self, resolution: references.Resolution, language: str) -> list[StandIn]:
        """Each rewrite of the resolved text (``resolved_text``, for understanding), with the referents it names."""
        bound: dict[tuple[int, int], list[Entity]] = {}
        for b in resolution.bindings:
            bound.setdefault((b.reference.start, b.reference.end), []).append(b.entity)
        return [StandIn(start, end, read, self._named(read, bound.get((start, end), []), language))
                for start, end, read, _ in resolution.edits]

    def _named(self, words: str, entities: list[Entity], language: str) -> tuple[Mention, ...]:
        """The referents as mentions where ``words`` name them, in order: the identifier of
        "订单12345" (its type noun stays a word of the request, as the user might have written
        it), the "电脑" of "那台电脑". A lone referent whose name is not in them (a task's
        phrase) is named by all of them."""
        found: list[Mention] = []
        lowered, at = words.lower(), 0
        for entity in entities:
            name = tracker.short_label(entity, language, self.texts)
            start = lowered.find(name.lower(), at) if name else -1
            if start >= 0:
                found.append(self._mention(entity, words[start:start + len(name)], start))
                at = start + len(name)
            elif len(entities) == 1:
                found.append(self._mention(entity, words, 0))
        return tuple(found)

    def _mention(self, entity: Entity, words: str, start: int) -> Mention:
        """A referent as a mention of the turn, written as ``words`` at ``start``."""
        return Mention(type=entity.type, value=entity.value, text=words, start=start, end=start + len(words),
                       kind=entity.kind, builtin=entity.type not in self.texts.spec.entities)

    def replay_with_choice(self, ctx: TurnContext, pending: PendingClarification, choice: Candidate) -> None:
        """Continue the request a clarification interrupted, with the chosen referent bound.

        The request is an earlier turn's words ("它还没到", before "哪一个？" and the choice): the
        reading this turn made is of the choice, so the request is read once, here, at this
        turn's time, and it stands for the turn from now on."""
        entity = ctx.session.entity(choice.entity_id) if choice.entity_id else None
        now = self.understanding.local_time(ctx.now)
        ctx.interp = self.understanding.interpret(pending.original_text, ctx.language, now=now)
        ctx.text = pending.original_text
        resolution = references.resolve(ctx.session, pending.original_text, ctx.language, turn=ctx.turn,
                                        mentions=ctx.interp.mentions, texts=self.texts,
                                        reads_as=ctx.interp.read_as)
        if entity is not None:
            resolution = references.bind_choice(resolution, entity, ctx.language, self.texts)
        self.use(ctx, resolution)
        ctx.resolved_text = resolution.shown_text

