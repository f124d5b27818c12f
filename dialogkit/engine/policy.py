"""The command processor: applies the commands the rules make of a turn to the task stack.

The rules (``engine.rules``, one ordered list) read the turn and decide; this module applies
what they decided: it starts and ends tasks, validates values with the bot file's rules, fires
the machines' triggers, runs actions, and asks the next question. It does not decide what the
words mean. (It still reads the text in a few places that have not moved to rules yet: a
slot's rule message for a bare answer, an impossible date, and the value checks of a refusal.)
The LLM's values (``SetSlots`` made by ``llm``) are written with the words' own when a flow
starts or an answer is taken, where the rules let them stand (``rules.proposed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.table import ActionTable
from dialogkit.engine import choices as choice_lists
from dialogkit.engine import (
    conditional_slots,
    explaining,
    memory_actions,
    rules,
    shared_wishes,
    slot_validation,
    slot_writes,
    task_runs,
)
from dialogkit.engine.commands import (
    AnswerFaq,
    Cancel,
    Choose,
    Clarify,
    Command,
    Confirm,
    Deny,
    Forget,
    Greet,
    Help,
    KeepQuestion,
    Note,
    NotUnderstood,
    SetSlots,
    StartFlow,
)
from dialogkit.engine.doubtful_values import doubt, typo_doubt
from dialogkit.engine.faq import FaqIndex
from dialogkit.engine.forget_value import ForgetValue
from dialogkit.engine.handoff import handoff_context, take_over_message
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.named_any import NamedAny
from dialogkit.engine.rules import proposed, slot_offers
from dialogkit.engine.slots import SlotLayout, SlotOffer, validate_slot
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.errors import ActionError
from dialogkit.logging import get_logger
from dialogkit.memory import clarification as clar
from dialogkit.memory import tracker
from dialogkit.memory.summary import STORED
from dialogkit.model.reply import ActionRun
from dialogkit.model.session import Candidate, PendingClarification, Task
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import BotSettings, HandoffAction, SlotSpec
from dialogkit.text import phrases as R
from dialogkit.text.labels import Texts
from dialogkit.understanding.rules import RuleUnderstanding

log = get_logger("dialogkit.policy")

# A slot of a closed set of values offers them as quick replies when there are at most this many.
MAX_OPTIONS = 8


class Policy:
    """Applies each turn's commands: the triggers they fire and what the bot says.

    It is built from the parts it uses: the compiled flows, the bot's texts, its understanding
    (to read values out of an answer), its actions, the reference look-ahead (to replay a request
    once a clarification is answered) and the bot-wide settings (re-asks, handoff).
    """

    def __init__(self, flows: Mapping[str, CompiledFlow], texts: Texts, understanding: RuleUnderstanding,
                 actions: ActionTable, lookahead: LookAhead, settings: BotSettings) -> None:
        self.flows = flows
        self.texts = texts
        self.understanding = understanding
        self.actions = actions
        self.lookahead = lookahead
        self.settings = settings
        self.forget_value = ForgetValue(texts.spec, texts)
        self.named_any = NamedAny(texts.spec, texts)
        self.faq = FaqIndex(texts.spec.faq)
        self._layouts = {name: SlotLayout.of(flow.spec) for name, flow in flows.items()}
        self.bot = rules.Bot(flows, texts, understanding, self.faq, self.forget_value, self.named_any, actions,
                             self._layouts)

    # ---- entry -------------------------------------------------------------------------
    def respond(self, ctx: TurnContext) -> None:
        """Ask the rules for this turn's commands and apply them. No rule decides a turn that finds
        the task in EXECUTION, which only a crash mid-turn leaves: it is finished (idempotently)."""
        self._bind(ctx)
        commands = rules.generate(rules.Seen(ctx, self.bot))
        if ctx.session.pending is not None and not (commands and isinstance(commands[0], NotUnderstood)
                                                    and commands[0].empty):
            ctx.session.pending = None      # answered, kept (asked again below) or dropped by the turn
        if commands:
            self._apply(ctx, commands)
        elif ctx.task is not None:
            self._execute(ctx)

    def _apply(self, ctx: TurnContext, commands: list[Command]) -> None:
        """Apply the deciding command (and the flow a cancel's words request instead)."""
        command = commands[0]
        instead = next((c.flow for c in commands[1:] if isinstance(c, StartFlow)), None)
        match command:
            case NotUnderstood(empty=True):
                ctx.say.append(R.phrase("empty_input", ctx.language))
                self._reask(ctx)
            case SetSlots() | Help() | AnswerFaq() | Confirm() | Deny() | NotUnderstood() if ctx.task is not None:
                self._in_task(ctx, command)
            case Choose():
                self._chosen(ctx, command)
            case KeepQuestion():
                self._keep_question(ctx, command)
            case Forget(slots=()):
                self._forget_last_turn(ctx)
            case Forget():
                self._forget_values(ctx, list(command.slots))
            case Cancel():
                self._cancelled(ctx, instead)
            case AnswerFaq():
                self._answer_faq(ctx, command.entry)
            case StartFlow():
                self._start(ctx, command.flow, by=command.rule)
            case Clarify():
                self._ask_clarification(ctx, clar.make_pending(
                    command.ambiguity, original_text=ctx.interp.text, language=ctx.language, turn=ctx.turn,
                    texts=self.texts))
            case _:
                self._idle_reply(ctx, command)

    def _idle_reply(self, ctx: TurnContext, command: Command) -> None:
        """A greeting, facts noted, a request for help or nothing understood: said, then what the
        bot can do."""
        if isinstance(command, Greet):
            ctx.explain("greeting", "greeted back", explaining.cue_words(ctx))
            ctx.say.append(R.phrase("greeting", ctx.language))
        elif isinstance(command, Note):
            names = (self.texts.entity_value_label(m.type, m.value, ctx.language) for m in command.mentions)
            items = R.enumerate_items(list(dict.fromkeys(names)), ctx.language)
            ctx.explain("noted", f"noted {items}, with no request")
            ctx.say.append(R.phrase("noted", ctx.language, items=items))
        elif isinstance(command, NotUnderstood):
            ctx.explain("not_understood", "no flow, FAQ or value matched", command.words)
            ctx.say.append(R.phrase("not_understood", ctx.language))
        else:
            ctx.explain("help", "listed what the bot can do", explaining.cue_words(ctx))
        ctx.say.append(self.texts.help(ctx.language))

    def _cancelled(self, ctx: TurnContext, instead: str | None) -> None:
        """Cancel the task in progress (none: nothing to cancel), then start the flow the same
        words request instead, if any, or go back to the task below."""
        self._bind(ctx)
        had_task = ctx.task is not None
        if had_task:
            self._cancel(ctx)
        elif instead is None:
            ctx.explain("cancel", "nothing to cancel", explaining.cue_words(ctx))
            ctx.say.append(R.phrase("nothing_to_cancel", ctx.language))
        if instead is not None:
            self._start(ctx, instead, by="instead")
        elif had_task:
            self._resume(ctx)

    def _in_task(self, ctx: TurnContext, command: Command) -> None:
        """A command the in-task rules made: a task just started begins collecting first. The
        values the model heard for the task are written with an answer's own (``proposed.merge``)."""
        assert ctx.task is not None
        if ctx.task.state == "TASK_INIT":
            self._fire(ctx, "collect")
        match command:
            case SetSlots(task=str()):
                self._keep_for_waiting(ctx, command)
            case SetSlots() if ctx.task.state == "CONFIRMATION":
                proposed.merge(self.bot, ctx, command.offer)
                self._correct(ctx, command.offer)
            case SetSlots():
                proposed.merge(self.bot, ctx, command.offer)
                self._take(ctx, command.offer, command.message)
            case Help():
                ctx.explain(command.rule, "answered; asked again", command.words)
                if command.rule == "help":
                    ctx.say.append(self.texts.help(ctx.language))
                self._reask(ctx)
            case AnswerFaq():
                self._answer_faq(ctx, command.entry)
            case Confirm():
                ctx.explain("confirm", "confirmed", command.words)
                self._fire(ctx, "confirm")
                self._execute(ctx)
            case Deny():
                self._deny(ctx, command)
            case NotUnderstood():
                self._failure(ctx, command.message)

    def _take(self, ctx: TurnContext, offer: SlotOffer, broken_rule: str | None) -> None:
        """Write what the answer gives; an answer that gives nothing is a failed answer, with the
        rule it breaks when it breaks one."""
        if not self._apply_offer(ctx, offer):
            return
        if offer.empty and self._impossible_value(ctx):
            return
        if offer.empty and not self._missing(ctx):
            assert ctx.flow is not None
            said_yes = "yes" in ctx.interp.cues or any(isinstance(c, Confirm) for c in ctx.proposed)
            if said_yes and ctx.flow.spec.confirm is not None:
                self._advance(ctx)
                return
            self._failure(ctx, None)
            return
        if offer.empty:
            self._failure(ctx, broken_rule)
            return
        self._advance(ctx)

    def _keep_for_waiting(self, ctx: TurnContext, command: SetSlots) -> None:
        """Write values into a waiting task (those its slots' rules take), say what was kept, and
        ask the active question again (no failed answer). Nothing valid: a failed answer."""
        task = next(t for t in ctx.session.stack if t.id == command.task)
        flow = self.flows[task.flow]
        kept = {name: value for name, value in command.offer.values.items()
                if (slot := flow.spec.slot(name)) is not None and not self._in_doubt(ctx, slot, value)
                and validate_slot(slot, value, ctx.language, self.actions.validate) is None}
        if not kept:
            self._failure(ctx, None)
            return
        for name, value in kept.items():
            task.slots[name] = value
            task.slot_turns[name] = ctx.turn
        if task.pending_slot in kept:
            missing = conditional_slots.missing(flow, task.slots)
            task.pending_slot = missing[0].name if missing else None
        labels = [f"{self.texts.slot_label(flow.spec.slot(n), ctx.language)} "
                  f"{self.texts.value_label(flow.spec.slot(n), v, ctx.language)}" for n, v in kept.items()]
        ctx.explain("for_waiting_task", f"kept {', '.join(kept)} for {flow.name}", command.words)
        ctx.say.append(R.phrase("noted", ctx.language, items=R.enumerate_items(labels, ctx.language)))
        self._reask(ctx)

    @staticmethod
    def _in_doubt(ctx: TurnContext, slot: SlotSpec, value: Any) -> bool:
        """A value the active task would ask about before writing (shaped like a phone number, or
        read through a typo) is not kept for a waiting one, which cannot ask now."""
        return doubt(slot, value, ctx.language) is not None or typo_doubt(ctx, slot.entity, value) is not None

    def _correct(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """New values at the confirmation. A rejection whose new value cannot be taken as it is
        (invalid, or two of them) denies first: the confirmed values no longer hold, so a later
        bare "yes" can never run the old ones."""
        if ctx.interp.cues & {"no", "correction"} and not slot_validation.fits(self.bot, ctx, offer):
            ctx.explain("deny", "denied, with a value that cannot be taken as it is", explaining.cue_words(ctx))
            self._fire(ctx, "deny")
        if self._apply_offer(ctx, offer):
            self._advance(ctx)

    def _deny(self, ctx: TurnContext, command: Deny) -> None:
        ctx.explain("deny", "denied: asked what to change", command.words)
        self._fire(ctx, "deny")
        assert ctx.task is not None
        if self._impossible_value(ctx):
            return
        ctx.task.pending_slot = None
        ctx.task.reprompts = 0
        ctx.say.append(R.phrase("ask_what_to_change", ctx.language))

    # ---- starting, digressing, ending -------------------------------------------------------
    def _start(self, ctx: TurnContext, flow_name: str, carried: Mapping[str, Any] | None = None,
               by: str | None = None) -> None:
        """Start ``flow_name`` (``by`` the rule that asked); ``carried`` are values of a finished
        task handed on by ``then``. The words' values for the new task are written with the
        model's that stand beside them."""
        session = ctx.session
        if by == "llm":
            ctx.explain("llm", f"started {flow_name}")
        else:
            explaining.flow_chosen(ctx, self.flows[flow_name], carried is not None, by)
        task = Task(flow=flow_name, state="IDLE", started_turn=ctx.turn)
        ctx.task, ctx.flow = task, self.flows[flow_name]
        offer = SlotOffer()
        if carried is None:
            offer = slot_offers.slot_offer(self.bot, ctx, free_text=False)
            proposed.merge(self.bot, ctx, offer)
        errors = slot_validation.validated(self.bot, ctx, offer) + slot_validation.outside_choices(self.bot, ctx, offer)
        carried = {s.name: carried[s.name] for s in ctx.flow.spec.slots if carried and carried.get(s.name) is not None}
        prefilled = slot_writes.prefill(ctx, ctx.flow.spec, exclude=set(offer.values) | set(offer.conflicts),
                                        validator=self.actions.validate)
        prefilled.update(carried)
        ctx.updates = {**prefilled, **offer.values}
        ctx.prefilled = list(prefilled)      # prefill already skipped the slots the utterance offers
        written = explaining.slot_writes(ctx, ctx.updates, offer.surfaces, "then" if carried else "prefill")
        if by == "digression" and session.task is not None:      # the waiting task's wishes
            shared_wishes.keep_wishes(self.bot, ctx, session.task, offer)
        session.stack.append(task)
        try:
            self._fire(ctx, "start_task")
        except ClarificationNeeded as question:
            session.stack.pop()
            ctx.task, ctx.flow = session.task, self.flows.get(session.flow) if session.flow else None
            self._ask_clarification(ctx, question.pending)
            return
        task.prefilled = list(ctx.prefilled)
        ctx.explained += written
        self._fire(ctx, "collect")
        if errors:
            ctx.say.append(errors[0][1])
            task.pending_slot = errors[0][0]
        if offer.conflicts:
            self._ask_conflict(ctx, offer)
            return
        if ctx.prefilled and ctx.flow.spec.confirm is None:
            labels = [self.texts.slot_label(ctx.flow.spec.slot(n), ctx.language) for n in ctx.prefilled]
            names = R.enumerate_items(labels, ctx.language)
            ctx.say.append(R.phrase("prefilled", ctx.language, slots=names))
        self._advance(ctx)

    def _cancel(self, ctx: TurnContext) -> None:
        assert ctx.task is not None and ctx.flow is not None
        cancelled = ctx.flow.name
        label = self.texts.task_label(cancelled, ctx.language)
        ctx.explain("cancel", f"cancelled {ctx.flow.name}", explaining.cue_words(ctx))
        self._fire(ctx, "cancel")
        self._end_task(ctx, "cancel")
        ctx.say.append(R.phrase("cancelled", ctx.language, task=label))

    def _execute(self, ctx: TurnContext) -> None:
        """Run the task's action (at most once per task) and say how it went; a completed task
        whose flow names ``then`` (and whose ``when`` holds) starts that flow with its values."""
        assert ctx.task is not None and ctx.flow is not None
        finished, then = dict(ctx.task.slots), self._then(ctx.flow, ctx.task.slots)
        result, error = task_runs.run_task_action(self.actions, ctx)
        if error is None:
            self._completed(ctx, result)
        else:
            self._failed(ctx, error)
        if error is None and then is not None and not any(t.flow == then for t in ctx.session.stack):
            self._start(ctx, then, carried=finished)
            return
        self._resume(ctx)

    def _then(self, flow: CompiledFlow, slots: Mapping[str, Any]) -> str | None:
        then = flow.spec.execute.then
        if then is None or then not in self.flows:
            return None
        if flow.then_when is not None and not flow.then_when.holds(slots, [s.name for s in flow.spec.slots]):
            return None
        return then

    def _outcome_values(self, ctx: TurnContext, result: Mapping[str, Any], language: str) -> dict[str, str]:
        """Slot values by their label in ``language`` ("张经理" / "Manager Zhang"), then what the
        action returned, shown as it came."""
        assert ctx.task is not None and ctx.flow is not None
        values = self.texts.template_values(ctx.flow.spec, ctx.task.slots, language)
        values.update((k, R.format_value(v)) for k, v in result.items())
        return values

    def _completed(self, ctx: TurnContext, result: Mapping[str, Any]) -> None:
        assert ctx.flow is not None
        say = ctx.flow.spec.execute.say
        if say:
            # The summary keeps the task's outcome in the languages it stores; the reply is the turn's one.
            ctx.said = {lang: R.prompt(say, lang, self._outcome_values(ctx, result, lang))
                        for lang in dict.fromkeys((ctx.language, *STORED))}
        self._fire(ctx, "complete")
        self._end_task(ctx, "complete")
        ctx.say.append(ctx.said[ctx.language] if say else R.phrase("done", ctx.language))

    def _failed(self, ctx: TurnContext, error: str) -> None:
        assert ctx.flow is not None
        on_error = ctx.flow.spec.execute.on_error
        values = self._outcome_values(ctx, {}, ctx.language)
        values["error"] = error
        self._fire(ctx, "fail")
        self._end_task(ctx, "fail")
        if on_error:
            ctx.say.append(R.prompt(on_error, ctx.language, values))
        else:
            ctx.say.append(R.phrase("action_failed", ctx.language, error=error))

    def _end_task(self, ctx: TurnContext, how: str) -> None:
        task = ctx.session.stack.pop()
        ctx.ended_task, ctx.ended_by = task, how
        if how in ("complete", "fail"):
            ctx.session.last_flow = task.flow
        ctx.task = ctx.session.task
        ctx.flow = self.flows[ctx.task.flow] if ctx.task else None

    def _resume(self, ctx: TurnContext) -> None:
        if ctx.task is None or ctx.flow is None:
            return
        ctx.say.append(R.phrase("resume", ctx.language, task=self.texts.task_label(ctx.flow.name, ctx.language)))
        self._reask(ctx)

    def _give_up(self, ctx: TurnContext, error: str | None) -> None:
        assert ctx.task is not None and ctx.flow is not None
        label = self.texts.task_label(ctx.flow.name, ctx.language)
        flow, slots = ctx.flow, dict(ctx.task.slots)      # before cancel's memory actions erase secrets
        ctx.explain("give_up", f"gave up {flow.name}: asked {self.settings.max_reprompts + 1} times")
        self._fire(ctx, "cancel")
        self._end_task(ctx, "cancel")
        handoff, to_person = self.settings.handoff, self.settings.handoff_action
        reason = error or R.phrase("give_up_default", ctx.language)
        if handoff:
            ctx.say.append(reason)
            self._start(ctx, handoff, by="handoff")
            return
        if to_person is not None and self._hand_to_person(ctx, to_person, flow, slots):
            ctx.say.append(R.as_sentence(reason, ctx.language))
            ctx.say.append(take_over_message(ctx.language))
            return
        ctx.say.append(R.phrase("give_up", ctx.language, error=reason, task=label))
        self._resume(ctx)

    def _hand_to_person(self, ctx: TurnContext, handoff: HandoffAction, flow: CompiledFlow,
                        slots: dict[str, Any]) -> bool:
        """Run the handoff action with what an agent needs; False when it fails (the bot then
        apologises as it would without a handoff)."""
        sensitive = {s.name for s in flow.spec.slots if s.sensitive}
        context = handoff_context(ctx.session, slots, sensitive, current=ctx.interp.text,
                                  language=ctx.language, messages=handoff.messages)
        action_ctx = ActionContext(slots=dict(context["slots"]), session_id=ctx.session.id,
                                   user_id=ctx.session.user_id or "", flow=flow.name, language=ctx.language,
                                   session=ctx.session, value=context)
        try:
            self.actions.run(handoff.action, action_ctx)
        except ActionError as exc:
            log.warning("handoff_failed", action=handoff.action, session_id=ctx.session.id, error=str(exc))
            return False
        ctx.action_runs.append(ActionRun(handoff.action, dict(context["slots"]), {}, None))
        return True

    # ---- slots ---------------------------------------------------------------------------------
    def _apply_offer(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """Fire ``provide_param`` with the offer's valid values; False when the turn is answered already."""
        errors = slot_validation.validated(self.bot, ctx, offer)
        resolution = ctx.resolution
        if offer.values or (resolution is not None and (resolution.bindings or resolution.ambiguity is not None)):
            ctx.updates = dict(offer.values)
            written = explaining.slot_writes(ctx, ctx.updates, offer.surfaces)
            try:
                self._fire(ctx, "provide_param")
            except ClarificationNeeded as question:
                self._ask_clarification(ctx, question.pending)
                return False
            ctx.explained += written
            if ctx.updates:
                assert ctx.task is not None
                ctx.task.reprompts = 0
        if offer.conflicts:
            self._ask_conflict(ctx, offer)
            return False
        if errors:
            self._failure(ctx, errors[0][1], slot=errors[0][0])
            return False
        if ctx.updates:
            offer.values.update({k: v for k, v in ctx.updates.items() if k not in offer.values})
        return True

    def _impossible_value(self, ctx: TurnContext) -> bool:
        """"2025-13-45" / "25:00" for a date or time slot: say there is no such date, ask again."""
        assert ctx.flow is not None
        types = {s.entity for s in ctx.flow.spec.slots if s.entity}
        rejected = next((r for r in ctx.interp.rejected if r.type in types), None)
        if rejected is None:
            return False
        if ctx.interp.cues & {"no", "correction"}:
            # "no, make it 25:00": the time it was to replace is rejected all the same.
            for slot in ctx.flow.spec.slots:
                if slot.entity == rejected.type:
                    slot_writes.drop_rejected(ctx, slot.name)
        key = "impossible_date" if rejected.type == "date" else "impossible_time"
        ctx.explain("impossible_value", f"refused {rejected.type}: no such {rejected.reason}", rejected.text)
        self._failure(ctx, R.phrase(key, ctx.language, text=rejected.text))
        return True

    def _said_impossible(self, ctx: TurnContext, missing: list[SlotSpec]) -> SlotSpec | None:
        """"运单SF…改到2月30日下午送" / "… to Feb 30": the other values are taken, and the reply says
        there is no such date before asking for the date, rather than asking as if none was said."""
        for rejected in ctx.interp.rejected:
            slot = next((s for s in missing if s.entity == rejected.type), None)
            if slot is not None:
                key = "impossible_date" if rejected.type == "date" else "impossible_time"
                ctx.say.append(R.as_sentence(R.phrase(key, ctx.language, text=rejected.text), ctx.language))
                return slot
        return None

    def _missing(self, ctx: TurnContext) -> list[Any]:
        assert ctx.task is not None and ctx.flow is not None
        return conditional_slots.missing(ctx.flow, ctx.task.slots)

    def _advance(self, ctx: TurnContext) -> None:
        """Ask for the next missing slot, or move on to confirmation / execution."""
        task, flow = ctx.task, ctx.flow
        assert task is not None and flow is not None
        conditional_slots.drop_unneeded(flow, task.slots)   # a correction may have made a slot unneeded
        missing = self._missing(ctx)
        if missing:
            if task.state == "CONFIRMATION":     # a correction made a conditional slot needed
                self._fire(ctx, "deny")
            slot = self._said_impossible(ctx, missing) or missing[0]
            task.pending_slot = slot.name
            self._ask(ctx, flow, slot)
            return
        task.pending_slot = None
        if flow.spec.confirm is not None:
            if task.state == "PARAM_COLLECT":
                self._fire(ctx, "request_confirmation")
            ctx.say.append(self.texts.confirm(flow.name, task.slots, ctx.language))
            ctx.options = self.texts.yes_no(ctx.language)
            return
        self._fire(ctx, "execute")
        self._execute(ctx)

    def _ask(self, ctx: TurnContext, flow: CompiledFlow, slot: SlotSpec) -> None:
        """Ask for ``slot``; a slot of a closed set of values offers them as quick replies."""
        task = ctx.session.task
        assert task is not None
        asked = conditional_slots.prompt_variant(slot, task.reprompts)
        question = self.texts.ask(flow.spec, asked, ctx.language, task.slots)
        options = slot_offers.options_of(self.bot, ctx, slot) if slot.choices is not None else None
        if options:
            ctx.say.append(choice_lists.listed(question, options, ctx.language))
            ctx.options = [c.label(ctx.language) for c in options]
            tracker.remember_offered(ctx.session, slot.entity or slot.name, [c.value for c in options], turn=ctx.turn)
            return
        ctx.say.append(question)
        entity = self.texts.spec.entities.get(slot.entity) if slot.entity else None
        if entity is not None and entity.values and len(entity.values) <= MAX_OPTIONS:
            ctx.options = [self.texts.value_label(slot, value, ctx.language) for value in entity.values]

    def _failure(self, ctx: TurnContext, message: str | None, slot: str | None = None) -> None:
        """A failed answer: re-ask, at most ``max_reprompts`` times, then give up. Words that answered
        a task a new bot file removed are no answer of the task resumed in its place: its question is
        asked again as it was, first wording included."""
        task = ctx.task
        assert task is not None
        ctx.explain("not_understood" if message is None else "reask", message or "asked again")
        if not ctx.meant_for_removed_task:
            task.reprompts += 1
        if task.reprompts > self.settings.max_reprompts:
            self._give_up(ctx, message)
            return
        if message:
            ctx.say.append(R.as_sentence(message, ctx.language))
        if slot:
            task.pending_slot = slot
        self._reask(ctx)

    def _reask(self, ctx: TurnContext) -> None:
        """Say the pending question again (the confirmation, the slot's question, or the clarification)."""
        task, flow = ctx.session.task, (self.flows[ctx.session.flow] if ctx.session.flow else None)
        if task is None or flow is None:
            if ctx.session.pending is not None:
                ctx.say.append(clar.clarification_question(ctx.session.pending.candidates, ctx.language,
                                                           texts=self.texts))
            return
        if task.state == "CONFIRMATION":
            ctx.say.append(self.texts.confirm(flow.name, task.slots, ctx.language))
            ctx.options = self.texts.yes_no(ctx.language)
            return
        slot = flow.spec.slot(task.pending_slot) if task.pending_slot else None
        if slot is None:
            missing = conditional_slots.missing(flow, task.slots)
            slot = missing[0] if missing else None
        if slot is not None:
            task.pending_slot = slot.name
            self._ask(ctx, flow, slot)
        else:
            ctx.say.append(R.phrase("ask_what_to_change", ctx.language))

    def _answer_faq(self, ctx: TurnContext, entry: str) -> None:
        self._say_faq(ctx, entry)
        if ctx.session.task is not None:
            self._reask(ctx)

    def _say_faq(self, ctx: TurnContext, entry: str) -> None:
        ctx.explain("faq", f"answered FAQ {entry}", ctx.interp.text.strip())
        ctx.say.append(R.prompt(self.faq.faq[entry].answer, ctx.language, {}))

    # ---- clarification -----------------------------------------------------------------------
    def _ask_conflict(self, ctx: TurnContext, offer: SlotOffer) -> None:
        slot_name, mentions = next(iter(offer.conflicts.items()))
        flow = ctx.flow
        assert flow is not None
        slot = flow.spec.slot(slot_name)
        candidates = [
            Candidate(value=m.value, type=m.type, label=self.texts.value_label(slot, m.value, ctx.language))
            for m in mentions
        ]
        pending = PendingClarification(
            kind="slot_value", candidates=candidates, original_text=ctx.interp.text, slot=slot_name,
            flow=flow.name, language=ctx.language, turn=ctx.turn,
        )
        self._ask_clarification(ctx, pending)

    def _ask_clarification(self, ctx: TurnContext, pending: PendingClarification) -> None:
        ctx.session.pending = pending
        ctx.clarification = pending
        ctx.say.append(clar.clarification_question(pending.candidates, ctx.language, texts=self.texts))
        ctx.options = clar.option_labels(pending.candidates, ctx.language, self.texts)
        ctx.explain("clarify", f"asked which {pending.slot or 'one'} is meant: {' / '.join(ctx.options)}")

    def _chosen(self, ctx: TurnContext, command: Choose) -> None:
        """The answer to the bot's question: a slot's value is written; a referent replays the turn
        that asked, with the choice bound."""
        pending, choice = command.pending, command.choice
        if pending.kind != "slot_value":
            ctx.explain("clarification_answer", f"chose {choice.value}", command.words)
            self.lookahead.replay_with_choice(ctx, pending, choice)
            # The model's request and values were about the answer's words, not the request replayed.
            ctx.proposed[:] = [c for c in ctx.proposed if not isinstance(c, (StartFlow, SetSlots))]
            self.respond(ctx)
            return
        self._bind(ctx)
        ctx.updates = {pending.slot: choice.value} if pending.slot else {}
        ctx.resolved_text = clar.candidate_label(choice, ctx.language, self.texts)
        written = explaining.slot_writes(ctx, ctx.updates, {}, "clarification_answer")
        try:
            self._fire(ctx, "provide_param")
        except ClarificationNeeded as question:     # the answer itself holds an ambiguous reference
            self._ask_clarification(ctx, question.pending)
            return
        ctx.explained += written
        self._advance(ctx)

    def _keep_question(self, ctx: TurnContext, command: KeepQuestion) -> None:
        """Reply to a turn that leaves the bot's question open, then ask it again (once)."""
        if command.reply == "help":
            ctx.explain("help", "listed what the bot can do; the question stays", explaining.cue_words(ctx))
            ctx.say.append(self.texts.help(ctx.language))
        elif command.reply == "greeting":
            ctx.say.append(R.phrase("greeting", ctx.language))
        elif command.entry is not None:
            self._say_faq(ctx, command.entry)
        else:
            ctx.explain("not_understood", "no answer to the question; it stays", command.words)
            ctx.say.append(R.phrase("not_understood", ctx.language))
        pending = command.pending
        self._ask_clarification(ctx, pending.model_copy(update={"kept": pending.kept + 1}))

    # ---- forgetting -------------------------------------------------------------------------
    def _forget_last_turn(self, ctx: TurnContext) -> None:
        task = ctx.session.task
        written = [n for n, t in task.slot_turns.items() if t == ctx.turn - 1] if task is not None else []
        removed = slot_writes.forget_turn(ctx, ctx.turn - 1)
        ctx.explain("forget_turn", f"forgot the last turn: {', '.join(written) or 'nothing'}", ctx.interp.text)
        ctx.say.append(R.phrase("forgot" if removed else "nothing_to_forget", ctx.language))
        self._bind(ctx)
        memory_actions.restate_facts(ctx, self.texts, written)     # the values given back, if any
        if ctx.task is not None:
            if ctx.task.state == "CONFIRMATION" and self._missing(ctx):
                # What was forgotten was needed: the confirmation no longer holds, so ask again.
                self._fire(ctx, "deny")
            ctx.task.pending_slot = None      # the next question is the first required slot now empty
        self._reask(ctx)

    def _forget_values(self, ctx: TurnContext, names: list[str]) -> None:
        """'忘记我的订单号': delete those persisted values (this bot's, for this user); '忘记时间' /
        'forget the time': clear that slot of the active task. Either way the task asks for the first
        required slot now empty, in its first wording: dropping a value is no failed answer. False
        when no slot named persists or belongs to the active task (the words are read as usual)."""
        self._bind(ctx)
        persisted = [n for n in names if self.bot.persists(n)]
        held = [n for n in names if n not in persisted and ctx.flow is not None and ctx.flow.spec.slot(n)]
        forgotten = [name for name in persisted if slot_writes.forget_persisted(ctx, name)]
        ctx.explain("forget_value", f"forgot {', '.join(names)}", ctx.interp.text.strip())
        for name in names:
            slot_writes.clear_slot(ctx, name)
        if persisted:
            labels = self._slot_labels(forgotten or persisted, ctx.language)
            ctx.say.append(R.phrase("forgot_value" if forgotten else "no_value_to_forget", ctx.language, slots=labels))
        if held:
            ctx.say.append(R.phrase("cleared_value", ctx.language, slots=self._slot_labels(held, ctx.language)))
        if ctx.task is not None:
            if ctx.task.state == "CONFIRMATION" and self._missing(ctx):
                self._fire(ctx, "deny")
            ctx.task.pending_slot = None
            ctx.task.reprompts = 0
            self._reask(ctx)

    def _slot_labels(self, names: list[str], language: str) -> str:
        return R.enumerate_items([self._slot_label(n, language) for n in names], language)

    def _slot_label(self, name: str, language: str) -> str:
        slot = next((s for f in self.flows.values() if (s := f.spec.slot(name)) is not None), None)
        return self.texts.slot_label(slot, language) or name

    # ---- helpers -----------------------------------------------------------------------------
    def _bind(self, ctx: TurnContext) -> None:
        ctx.task = ctx.session.task
        ctx.flow = self.flows[ctx.task.flow] if ctx.task else None

    @staticmethod
    def _fire(ctx: TurnContext, trigger: str) -> None:
        ctx.fire(trigger)


__all__ = ["Policy"]
