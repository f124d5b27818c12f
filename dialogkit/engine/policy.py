"""The dialogue policy: (state, interpretation) -> which trigger fires, and what the bot says.

Every decision behaviours 1-7 and 15 (docs/behaviours.md) describe lives here, one method per state.
The machines only move states and run the memory actions bound to the transitions; this class
chooses the trigger and composes the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.table import ActionTable
from dialogkit.engine import choices as choice_lists
from dialogkit.engine import conditional_slots, explaining, labelled_values, memory_actions, slot_writes, value_flows
from dialogkit.engine.execution import run_at_most_once
from dialogkit.engine.faq import FaqIndex
from dialogkit.engine.forget_value import ForgetValue
from dialogkit.engine.handoff import handoff_context, take_over_message
from dialogkit.engine.instead import request_after_cancel
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.named_any import NamedAny
from dialogkit.engine.slots import ANSWER_TYPE, SlotLayout, SlotOffer, offer_slots, validate_slot
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.engine.yes_no_slots import echo_answer
from dialogkit.errors import ActionError
from dialogkit.logging import get_logger
from dialogkit.memory import clarification as clar
from dialogkit.memory import tracker
from dialogkit.model.interpretation import Mention
from dialogkit.model.reply import ActionRun
from dialogkit.model.session import Candidate, PendingClarification, Task
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import BotSettings, HandoffAction, SlotSpec
from dialogkit.text import phrases as R
from dialogkit.text.labels import Texts
from dialogkit.understanding.bare_hours import bare_hour
from dialogkit.understanding.cues import is_question, leading_answer
from dialogkit.understanding.intents import INTENT_THRESHOLD
from dialogkit.understanding.language import fold
from dialogkit.understanding.rules import RuleUnderstanding
from dialogkit.understanding.value_heads import names_by_value
from dialogkit.understanding.value_questions import sets_nothing

log = get_logger("dialogkit.policy")

# A different flow's intent must beat the active flow by this margin to count as a digression,
# and must be this sure when the same utterance also answers the pending question.
_WANT_COUNT = re.compile(r"^(要|需要)(?=[一二两三四五六七八九十几\d])")
DIGRESSION_MARGIN = 0.1
DIGRESSION_OVER_ANSWER = 0.75
# A bare answer is one value plus at most this many other letters or digits ("是", "就这个").
BARE_REMAINDER = 3
NUMERIC = frozenset({"number", "integer"})
IDENTIFIERS = frozenset({"phone", "email"})
# A slot of a closed set of values offers them as quick replies when there are at most this many.
MAX_OPTIONS = 8
# Idempotency records kept per session: enough for any retry, without growing the session row forever.
MAX_EXECUTED_RECORDS = 32


class Policy:
    """Chooses each turn's triggers and composes what the bot says.

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
        self._layouts = {name: SlotLayout.of(flow.spec) for name, flow in flows.items()}
        self.faq = FaqIndex(texts.spec.faq)

    # ---- entry -------------------------------------------------------------------------
    def respond(self, ctx: TurnContext) -> None:
        session = ctx.session
        if not ctx.text.strip():
            ctx.say.append(R.phrase("empty_input", ctx.language))
            self._reask(ctx)
            return
        if session.pending is not None and self._answer_clarification(ctx):
            return
        if "forget" in ctx.interp.cues:
            self._forget_last_turn(ctx)
            return
        if (names := self.forget_value.slots_in(ctx.interp.text)) and self._forget_values(ctx, names):
            return
        state = session.state
        if state == "IDLE":
            self._idle(ctx)
        elif state in ("TASK_INIT", "PARAM_COLLECT"):
            self._collect(ctx)
        elif state == "CONFIRMATION":
            self._confirmation(ctx)
        else:  # EXECUTION survives only a crash mid-turn: finish it (idempotently) now
            self._bind(ctx)
            self._execute(ctx)

    # ---- states --------------------------------------------------------------------------
    def _idle(self, ctx: TurnContext) -> None:
        if "cancel" in ctx.interp.cues:
            if not self._instead(ctx, None):
                ctx.explain("cancel", "nothing to cancel", explaining.cue_words(ctx))
                ctx.say.append(R.phrase("nothing_to_cancel", ctx.language))
            return
        if self._faq(ctx):
            return
        flow = self._intent(ctx) or self._follow_up(ctx) or self._flow_of_values(ctx)
        if flow is not None:
            self._start(ctx, flow)
            return
        if self._clarify_reference(ctx):
            return
        if "greeting" in ctx.interp.cues:
            ctx.explain("greeting", "greeted back", explaining.cue_words(ctx))
            ctx.say.append(R.phrase("greeting", ctx.language))
        elif (declared := self._noted(ctx)) and "help" not in ctx.interp.cues:
            # Facts offered with no request ("我有两个订单 12345 和 67890") are remembered, not refused;
            # the acknowledgement names things of the bot's own types, never helper matches ("两").
            names = (self.texts.entity_value_label(m.type, m.value, ctx.language) for m in declared)
            items = R.enumerate_items(list(dict.fromkeys(names)), ctx.language)
            ctx.explain("noted", f"noted {items}, with no request")
            ctx.say.append(R.phrase("noted", ctx.language, items=items))
        elif "help" not in ctx.interp.cues:
            ctx.explain("not_understood", "no flow, FAQ or value matched", ctx.interp.text.strip() or None)
            ctx.say.append(R.phrase("not_understood", ctx.language))
        else:
            ctx.explain("help", "listed what the bot can do", explaining.cue_words(ctx))
        ctx.say.append(self.texts.help(ctx.language))

    @staticmethod
    def _noted(ctx: TurnContext) -> list[Mention]:
        """What an acknowledgement names: values of the bot's own types, and the identifiers among
        the built-ins ("我的号码是13812345678" is noted; the 两 of "两个订单" is no thing)."""
        return [m for m in ctx.interp.mentions if not m.builtin or m.type in IDENTIFIERS]

    def _collect(self, ctx: TurnContext) -> None:
        self._bind(ctx)
        if self._gives_up(ctx):
            self._cancel(ctx)
            return
        task = ctx.task
        assert task is not None and ctx.flow is not None
        offer = self._offer(ctx)
        self._choice_by_name(ctx, offer)
        # A value's label said alone ("商品损坏") answers the question, though a trigger's keyword is in it.
        if not self._label_answer(ctx, offer) and self._digression(ctx, offer):
            return
        if task.state == "TASK_INIT":
            self._fire(ctx, "collect")
        # An FAQ's own words are its question, whatever they offer ("我这里有5G吗", "is there 5G coverage":
        # no 5 GB); a free-text answer is one only when it asks ("服务台几点下班"), not when it states
        # ("it crashes when I open Excel").
        text = ctx.interp.text
        faq_shaped = (not self._news(ctx, offer) or self.faq.says(text)
                      or self.faq.names_all(text, offer.surfaces.values())
                      or (self._whole_text_answer(ctx, offer) and is_question(text)))
        if self._aside(ctx, offer) or (faq_shaped and self._faq(ctx)):
            return
        self._keep_to_asked_slot(ctx, offer)
        self._keep_filled_slots(ctx, offer)
        self._any_answer(ctx, offer)
        self._yes_no_reply(ctx, offer)
        if not self._choose(ctx, offer) or not self._apply_offer(ctx, offer):
            return
        if offer.empty and self._impossible_value(ctx):
            return
        if offer.empty and not self._missing(ctx):
            if "yes" in ctx.interp.cues and ctx.flow.spec.confirm is not None:
                self._advance(ctx)
                return
            self._failure(ctx, None)
            return
        if offer.empty:
            self._failure(ctx, self._rule_message(ctx))
            return
        self._advance(ctx)

    def _confirmation(self, ctx: TurnContext) -> None:
        self._bind(ctx)
        cues = ctx.interp.cues
        if self._gives_up(ctx):
            self._cancel(ctx)
            return
        offer = self._offer(ctx, free_text=False)
        self._choice_by_name(ctx, offer)
        if self._digression(ctx, offer):
            return
        self._keep_filled_slots(ctx, offer)
        if self._news(ctx, offer):     # (a pronoun pointing at a value held changes nothing)
            if cues & {"no", "correction"} and not self._fits(ctx, offer):
                # A rejection whose new value cannot be taken as it is (invalid, or two of them): the
                # confirmed values no longer hold, so a later bare "yes" can never run the old ones.
                ctx.explain("deny", "denied, with a value that cannot be taken as it is", explaining.cue_words(ctx))
                self._fire(ctx, "deny")
            if not self._apply_offer(ctx, offer):
                return
            self._advance(ctx)
            return
        if self._aside(ctx, offer) or (not cues & {"yes", "no"} and self._faq(ctx)):
            return
        if "yes" in cues and "no" not in cues:
            ctx.explain("confirm", "confirmed", explaining.cue_words(ctx))
            self._fire(ctx, "confirm")
            self._execute(ctx)
            return
        if "no" in cues or "correction" in cues:
            ctx.explain("deny", "denied: asked what to change", explaining.cue_words(ctx))
            self._fire(ctx, "deny")
            assert ctx.task is not None
            if self._impossible_value(ctx):
                return
            ctx.task.pending_slot = None
            ctx.task.reprompts = 0
            ctx.say.append(R.phrase("ask_what_to_change", ctx.language))
            return
        if not self._clarify_reference(ctx):
            self._failure(ctx, None)

    def _clarify_reference(self, ctx: TurnContext) -> bool:
        """"它现在怎么样？" after two orders, with no request it clearly makes (or at a confirmation it
        neither confirms nor corrects): ask which one first."""
        ambiguity = ctx.resolution.ambiguity if ctx.resolution is not None else None
        if ambiguity is None:
            return False
        self._ask_clarification(ctx, clar.make_pending(ambiguity, original_text=ctx.interp.text,
                                                       language=ctx.language, turn=ctx.turn, texts=self.texts))
        return True

    # ---- starting, digressing, ending -------------------------------------------------------
    def _start(self, ctx: TurnContext, flow_name: str, carried: Mapping[str, Any] | None = None) -> None:
        """Start ``flow_name``; ``carried`` are values of a finished task handed on by ``then``."""
        session = ctx.session
        explaining.flow_chosen(ctx, self.flows[flow_name], carried is not None)
        task = Task(flow=flow_name, state="IDLE", started_turn=ctx.turn)
        ctx.task, ctx.flow = task, self.flows[flow_name]
        offer = self._offer(ctx, free_text=False) if carried is None else SlotOffer()
        errors = self._validated(ctx, offer) + self._outside_choices(ctx, offer)
        carried = {s.name: carried[s.name] for s in ctx.flow.spec.slots if carried and carried.get(s.name) is not None}
        prefilled = slot_writes.prefill(ctx, ctx.flow.spec, exclude=set(offer.values) | set(offer.conflicts),
                                        validator=self.actions.validate)
        prefilled.update(carried)
        ctx.updates = {**prefilled, **offer.values}
        ctx.prefilled = list(prefilled)      # prefill already skipped the slots the utterance offers
        written = explaining.slot_writes(ctx, ctx.updates, offer.surfaces, "then" if carried else "prefill")
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

    def _follow_up(self, ctx: TurnContext) -> str | None:
        """"第二个呢？" / "and the other one?" after a task: the same task again, on the new referent."""
        last = ctx.session.last_flow
        resolution = ctx.resolution
        if last is None or last not in self.flows or resolution is None or not resolution.bindings:
            return None
        if ctx.interp.declared_mentions:
            return None      # "我有两个订单号 67890 和 第一个" tells values: a mention starts no flow
        types = {s.entity for s in self.flows[last].spec.slots if s.entity}
        return last if any(b.entity.type in types for b in resolution.bindings) else None

    def _flow_of_values(self, ctx: TurnContext) -> str | None:
        """"明天晚上8点6个人有位子吗？": no trigger's words, but values only the booking flow takes."""
        specs = {name: flow.spec for name, flow in self.flows.items()}
        return value_flows.flow_of_values(specs, ctx.interp.mentions, ctx.interp.text)

    def _digression(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        flow = self._intent(ctx)
        if flow is None or ctx.flow is None or flow == ctx.flow.name:
            return False
        if ctx.interp.cues & {"correction", "no"} and offer.values and not self._only_fits(ctx, flow):
            return False     # "no, make it A10000" corrects this task; it starts no other
        scores = {s.flow: s.score for s in ctx.interp.intents}
        own = scores.get(ctx.flow.name, 0.0)
        top = scores[flow]
        if top < own + DIGRESSION_MARGIN:
            return False
        pending = ctx.task.pending_slot if ctx.task else None
        if pending and pending in offer.values and top < DIGRESSION_OVER_ANSWER and not self._only_fits(ctx, flow):
            return False
        if any(t.flow == flow for t in ctx.session.stack) or self._faq_outranks(ctx, top):
            return False
        log.info("digression", session_id=ctx.session.id, suspended=ctx.flow.name, started=flow)
        self._start(ctx, flow)
        return True

    @staticmethod
    def _news(ctx: TurnContext, offer: SlotOffer) -> bool:
        """Whether the offer changes anything: "do I need to return it with a full tank" offers the
        city "it" points at, which the task holds already, and is a question all the same."""
        held = ctx.task.slots if ctx.task is not None else {}
        return bool(offer.conflicts) or any(str(held.get(k)) != str(v) for k, v in offer.values.items())

    def _faq_outranks(self, ctx: TurnContext, score: float) -> bool:
        """"派送时间" asks the FAQ it is a keyword of, though a flow's example holds it too ("我想改一下
        派送时间"): the FAQ, answered later in the turn, wins a tie as it does outside a task."""
        hit = self.faq.match(ctx.interp.text) if self.faq else None
        return hit is not None and hit[1] >= score

    def _only_fits(self, ctx: TurnContext, flow_name: str) -> bool:
        """The turn brings a value only the other flow has a slot for ("先帮我把尾号1234的卡额度提高到
        8000" while a card is asked, the 8000): a request for that flow, though it answers too. Words
        this task reads as one of its own values ("坏了": a return reason here, an issue type there)
        are this task's."""
        assert ctx.flow is not None
        own = {s.entity for s in ctx.flow.spec.slots if s.entity is not None}
        other = {s.entity for s in self.flows[flow_name].spec.slots} - own
        theirs = [m for m in ctx.interp.mentions if m.type in other]
        if not theirs:
            return False
        ours = self.understanding.extract(ctx.interp.text, own)
        return any(not any(o.start < m.end and m.start < o.end for o in ours) for m in theirs)

    def _cancel(self, ctx: TurnContext) -> None:
        assert ctx.task is not None and ctx.flow is not None
        cancelled = ctx.flow.name
        label = self.texts.task_label(cancelled, ctx.language)
        ctx.explain("cancel", f"cancelled {ctx.flow.name}", explaining.cue_words(ctx))
        self._fire(ctx, "cancel")
        self._end_task(ctx, "cancel")
        ctx.say.append(R.phrase("cancelled", ctx.language, task=label))
        if not self._instead(ctx, cancelled):
            self._resume(ctx)

    def _instead(self, ctx: TurnContext, cancelled: str | None) -> bool:
        """"那算了，帮我推荐一个餐厅" / "never mind, book a table instead": the words after the cancel
        request another flow, which starts in the same turn (the cancelled one is not asked again)."""
        rest = request_after_cancel(ctx.interp.text)
        top = self.understanding.interpret(rest, ctx.language).top_intent if rest else None
        if top is None or top.score < INTENT_THRESHOLD or top.flow not in self.flows or top.flow == cancelled:
            return False
        self._start(ctx, top.flow)
        return True

    def _execute(self, ctx: TurnContext) -> None:
        """Run the task's action (at most once per task) and say how it went; a completed task
        whose flow names ``then`` (and whose ``when`` holds) starts that flow with its values."""
        assert ctx.task is not None and ctx.flow is not None
        finished, then = dict(ctx.task.slots), self._then(ctx.flow, ctx.task.slots)
        result, error = self._run_action(ctx)
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

    def _run_action(self, ctx: TurnContext) -> tuple[dict[str, Any], str | None]:
        """(result, error) of the task's action; a task whose run is on record is not run again."""
        task, flow = ctx.task, ctx.flow
        assert task is not None and flow is not None
        action = flow.spec.execute.action
        key = f"{ctx.session.id}:{task.id}"
        record = ctx.session.executed.get(key)
        if record is not None:
            return dict(record.get("result") or {}), record.get("error")
        if not action:
            return {}, None
        action_ctx = ActionContext(
            slots=dict(task.slots), session_id=ctx.session.id, user_id=ctx.session.user_id or "",
            flow=flow.name, language=ctx.language, idempotency_key=key, session=ctx.session,
        )
        result: dict[str, Any] = {}
        error: str | None = None
        try:
            result = run_at_most_once(ctx.txn, self.actions, action, action_ctx, ctx.now)
        except ActionError as exc:
            error = str(exc) or type(exc.original).__name__
            log.warning("action_failed", action=action, session_id=ctx.session.id, error=error)
        if error is None and flow.spec.execute.returns:
            self._check_returns(ctx, action, flow.spec.execute.returns, result)
        executed = ctx.session.executed
        executed[key] = {"result": result, "error": error, "at": ctx.now}
        while len(executed) > MAX_EXECUTED_RECORDS:      # oldest first: dicts keep insertion order
            del executed[next(iter(executed))]
        ctx.action_runs.append(ActionRun(action, dict(task.slots), None if error else dict(result), error))
        return result, error

    def _check_returns(self, ctx: TurnContext, action: str, promised: list[str], result: Mapping[str, Any]) -> None:
        """A result lacking a key ``execute.returns`` promises: an error for a stub of values (a
        test's stand-in must keep the promise; an empty stub only says the action ran), a warning
        for a real action (the reply shows a gap)."""
        missing = [key for key in promised if key not in result]
        if not missing:
            return
        message = f"action '{action}' returned no {', '.join(missing)} (promised by execute.returns)"
        if result and getattr(self.actions.get(action), "__name__", "").startswith("stub_"):
            raise ActionError(message)
        log.warning("action_result_incomplete", action=action, session_id=ctx.session.id, missing=missing)

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
            # The summary keeps the task's outcome in both languages; the reply is the turn's one.
            ctx.said = {lang: R.prompt(say, lang, self._outcome_values(ctx, result, lang)) for lang in ("zh", "en")}
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
            self._start(ctx, handoff)
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
    def _offer(self, ctx: TurnContext, *, free_text: bool = True) -> SlotOffer:
        assert ctx.task is not None and ctx.flow is not None
        pending = ctx.task.pending_slot if free_text else None
        # A correction names a value of the task even where another type claimed its words first
        # ("no, make it damaged": an issue type to the rules, a return reason to this task).
        # So does a "no" to the confirmation ("no, the reason is damaged").
        cues = ctx.interp.cues
        correcting = "correction" in cues or ("no" in cues and ctx.task.state == "CONFIRMATION")
        offer = offer_slots(
            self._layouts[ctx.flow.name], ctx.interp, filled=ctx.task.slots, pending_slot=pending,
            extract=self.understanding.extract, extra_mentions=[*ctx.bound_mentions, *self._asked_hour(ctx)],
            read_every_type=correcting,
        )
        self._drop_asked_about(ctx, offer)
        return offer

    @staticmethod
    def _drop_asked_about(ctx: TurnContext, offer: SlotOffer) -> None:
        """"有会议室吗？" / "does it have wifi?" ask about a value, "没健身房也行" / "除了X" waive one:
        those values fill nothing, unless the thing looked for is named after them ("有川菜的餐馆吗")."""
        assert ctx.flow is not None
        text, sought = ctx.interp.text, tuple(ctx.flow.spec.trigger.keywords)
        for name in [n for n in offer.values if n not in offer.labelled]:
            surface = offer.surfaces.get(name, "")
            start = text.find(surface) if surface else -1
            after = text[start + len(surface):].lower()
            if start >= 0 and sets_nothing(text, start, start + len(surface)) and not any(
                    word.lower() in after for word in sought):
                del offer.values[name]
                offer.surfaces.pop(name, None)

    def _asked_hour(self, ctx: TurnContext) -> list[Mention]:
        """"7" to "几点开始？" / "what time?": a bare number answering a time question is its hour."""
        assert ctx.task is not None and ctx.flow is not None
        asked = ctx.flow.spec.slot(ctx.task.pending_slot) if ctx.task.pending_slot else None
        if asked is None or asked.entity != "time" or any(m.type == "time" for m in ctx.interp.mentions):
            return []
        hour = bare_hour(ctx.interp.text, self.understanding.extract(ctx.interp.text, ["integer"]))
        return [hour] if hour is not None else []

    def _validated(self, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
        """Drop invalid values from the offer; return (slot, message) for each refusal."""
        assert ctx.flow is not None
        errors = self._labelled_elsewhere(ctx, offer)
        for name, value in list(offer.values.items()):
            slot = ctx.flow.spec.slot(name)
            if slot is None:
                continue
            message = validate_slot(slot, value, ctx.language, self.actions.validate)
            if message and not self._fits_elsewhere(ctx, offer, slot):
                errors.append((name, message))
                explaining.refused(ctx, name, message, offer.surfaces.get(name))
                del offer.values[name]
                if self._rejects_held(ctx, name, value):
                    slot_writes.drop_rejected(ctx, name)
        for name, mentions in list(offer.conflicts.items()):
            errors += self._valid_candidates(ctx, offer, name, mentions)
        return errors

    @explaining.offer_step("valid_candidates")
    def _valid_candidates(self, ctx: TurnContext, offer: SlotOffer, name: str,
                          mentions: list[Mention]) -> list[tuple[str, str]]:
        """"20个人还是30个人" with at most 12: no question between values the slot refuses. Those
        that pass stay a question (or, one left, the value); none left is the rule's message."""
        assert ctx.flow is not None
        slot = ctx.flow.spec.slot(name)
        if slot is None:
            return []
        messages = [validate_slot(slot, m.value, ctx.language, self.actions.validate) for m in mentions]
        kept = [m for m, message in zip(mentions, messages, strict=True) if message is None]
        if len(kept) == len(mentions):
            return []
        del offer.conflicts[name]
        if len(kept) > 1:
            offer.conflicts[name] = kept
        elif kept:
            offer.values[name], offer.surfaces[name] = kept[0].value, kept[0].text
        return [] if kept else [(name, next(m for m in messages if m))]

    @explaining.offer_step("fits_elsewhere")
    def _fits_elsewhere(self, ctx: TurnContext, offer: SlotOffer, refused: SlotSpec) -> bool:
        """A value one slot refuses that another slot's type reads whole and whose rules it passes is
        that slot's ("把它改成18000000000" at a confirmation: eleven digits the tracking-number pattern
        takes and its rule refuses, a phone number to the phone slot). True when it moved there. An
        answer to the question asked stays that question's ("13812345678" asked for the tracking number
        gets the rule's message), unless it corrects ("把它改成14000000000" changes the phone held)."""
        assert ctx.flow is not None and ctx.task is not None
        if refused.name == ctx.task.pending_slot and not ctx.interp.cues & {"correction", "no"}:
            return False
        if refused.name in offer.labelled:
            return False     # "my order number is 12345": the words name the slot that refused it
        surface = offer.surfaces.get(refused.name, "")
        for slot in ctx.flow.spec.slots:
            if slot.entity in (None, refused.entity) or slot.name in offer.values or not surface:
                continue
            whole = [m for m in self.understanding.extract(surface, [slot.entity]) if m.end - m.start == len(surface)]
            if whole and validate_slot(slot, whole[0].value, ctx.language, self.actions.validate) is None:
                del offer.values[refused.name]
                offer.values[slot.name], offer.surfaces[slot.name] = whole[0].value, surface
                return True
        return False

    def _labelled_elsewhere(self, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
        """"my order number is 3": a value said after one slot's label that its type does not read is
        no other slot's (not the quantity 3); the labelled slot refuses it with its rule's message."""
        assert ctx.flow is not None
        errors: list[tuple[str, str]] = []
        for wrong in list(labelled_values.misplaced(offer, self._layouts[ctx.flow.name], ctx.interp.text,
                                                    ctx.interp.mentions)):
            offer.values.pop(wrong.taken_by, None)
            message = validate_slot(wrong.labelled, wrong.text, ctx.language, self.actions.validate)
            if message:      # (no rule to refuse it: the slot stays empty and is asked in its turn)
                errors.append((wrong.labelled.name, message))
        return errors

    @staticmethod
    def _rejects_held(ctx: TurnContext, name: str, value: Any) -> bool:
        """The turn says the slot's value is wrong ("不对" / "no" / "make it") and offers another."""
        held = ctx.task.slots.get(name) if ctx.task is not None else None
        return held is not None and str(held) != str(value) and bool(ctx.interp.cues & {"no", "correction"})

    def _apply_offer(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """Fire ``provide_param`` with the offer's valid values; False when the turn is answered already."""
        errors = self._validated(ctx, offer)
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

    def _fits(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """True when every offered value passes its slot's rules. (A value in doubt, shaped like a
        phone number, passes: writing it empties its slot instead, and ``_advance`` asks again.)"""
        assert ctx.flow is not None
        if offer.conflicts:
            return False
        for name, value in offer.values.items():
            slot = ctx.flow.spec.slot(name)
            if slot is not None and validate_slot(slot, value, ctx.language, self.actions.validate):
                return False
        return True

    def _aside(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """A request for help, or for the other options ("还有别的吗"), inside a task: answer it and
        ask the pending question again, with the task's values kept.

        Neither is a failed answer, so neither counts towards the re-ask limit.
        """
        cues = ctx.interp.cues
        if not offer.empty or not cues & {"help", "alternatives"} or "any" in cues:
            return False
        if self.faq and self.faq.match(ctx.interp.text) is not None:
            return False          # "出国怎么用手机" asks the roaming FAQ, not how to use the bot
        ctx.explain("help" if "help" in cues else "alternatives", "answered; asked again", explaining.cue_words(ctx))
        if "help" in cues:
            ctx.say.append(self.texts.help(ctx.language))
        self._reask(ctx)
        return True

    @explaining.offer_step("any_answer")
    def _any_answer(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """"随便" / "I don't care" to a question fills the asked slot with its type's ``any`` value;
        said about a slot by name ("价格无所谓" / "I don't care about the price"), that slot instead."""
        task = ctx.task
        if self._named_any(ctx, offer):
            return
        if "any" not in ctx.interp.cues or task is None or not task.pending_slot or task.pending_slot in offer.values:
            return
        slot = ctx.flow.spec.slot(task.pending_slot) if ctx.flow is not None else None
        entity = self.texts.spec.entities.get(slot.entity) if slot is not None and slot.entity else None
        if slot is not None and entity is not None and entity.any is not None:
            offer.values[slot.name] = entity.any
            offer.surfaces[slot.name] = ctx.interp.text

    def _named_any(self, ctx: TurnContext, offer: SlotOffer) -> list[str]:
        """The active task's slots the words say there is no preference for; each whose type declares
        ``any`` takes that value, unless the same words give it a value of its own."""
        flow = ctx.flow
        if flow is None:
            return []
        said = self.named_any.slots_in(ctx.interp.text)
        named = [slot for name in said if (slot := flow.spec.slot(name)) is not None]
        for slot in named:
            entity = self.texts.spec.entities.get(slot.entity) if slot.entity else None
            if entity is not None and entity.any is not None and slot.name not in offer.values:
                offer.values[slot.name] = entity.any
                offer.surfaces[slot.name] = ctx.interp.text
        return [slot.name for slot in named]

    @explaining.offer_step("yes_no_reply")
    def _yes_no_reply(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """Asked a yes/no question, "yes, please send me a new one" / "要的，麻烦寄一张新卡给我" is a
        yes: a reply to that question may say more after its answer than a confirmation's yes may
        (with a number, "yes, we need 2" / "要一个吧", though never with "but" or a doubt), and so is an
        answer that echoes the question ("很急" / "not urgent" to "紧急吗？" / "Is it urgent?")."""
        task, flow, slot = ctx.task, ctx.flow, self._asked_yes_no(ctx)
        if task is None or flow is None or slot is None or slot.name in offer.values:
            return
        said = _WANT_COUNT.sub(r"\1，", fold(ctx.interp.text), count=1)    # "要一个吧": yes, one of them
        answer = leading_answer(said, tail_cjk=12, tail_words=10, tail_digits=True)
        value = answer.value if answer is not None and not answer.correction else echo_answer(
            [self.texts.ask(flow.spec, slot, language, task.slots) for language in ("zh", "en")], ctx.interp.text)
        if value is not None:
            offer.values[slot.name] = value
            offer.surfaces[slot.name] = ctx.interp.text

    @explaining.offer_step("label_answer")
    def _label_answer(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """An answer that is exactly a value's label ("平板电脑", or a quick reply the bot offered) names
        that value, even where the label holds another value's alias ("电脑"); True when it does."""
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or not task.pending_slot:
            return False
        slot = flow.spec.slot(task.pending_slot)
        entity = self.texts.spec.entities.get(slot.entity) if slot is not None and slot.entity else None
        if slot is None or entity is None or not entity.values:
            return False
        value = self.texts.value_labelled(slot.entity, _said_alone(ctx.interp.text)) if slot.entity else None
        if value is None:
            return False
        offer.values[slot.name] = value
        offer.surfaces[slot.name] = ctx.interp.text
        offer.conflicts.pop(slot.name, None)
        return True

    def _gives_up(self, ctx: TurnContext) -> bool:
        """A cancel cue that is not, in this task, a value the bot file declares: said alone to
        the question for its slot, or named by a correction."""
        return ("cancel" in ctx.interp.cues and not self._declared_answer(ctx) and not self._corrects_to_declared(ctx)
                and not self._declines_asked(ctx))

    def _declines_asked(self, ctx: TurnContext) -> bool:
        """"不用了，谢谢" / "no thanks" to a yes/no question ("需要补寄新卡吗？") answers no: the
        task goes on without it, though the same words give up anywhere else."""
        if self._asked_yes_no(ctx) is None:
            return False
        answer = leading_answer(fold(ctx.interp.text))
        return answer is not None and answer.whole and not answer.value

    @staticmethod
    def _asked_yes_no(ctx: TurnContext) -> SlotSpec | None:
        """The yes/no slot whose question is pending, if that is what is asked."""
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or not task.pending_slot:
            return None
        slot = flow.spec.slot(task.pending_slot)
        return slot if slot is not None and slot.entity == ANSWER_TYPE else None

    def _declared_answer(self, ctx: TurnContext) -> bool:
        """The whole answer is a value the bot file declares for the asked slot: asked "暂停还是停止？"
        / "pause or stop?", "停止" / "stop" is that value, though the same words give up elsewhere."""
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or not task.pending_slot:
            return False
        slot = flow.spec.slot(task.pending_slot)
        if slot is None or slot.entity not in self.texts.spec.entities:
            return False
        answer = _said_alone(ctx.interp.text)
        return any(m.start == 0 and m.end == len(answer) for m in self.understanding.extract(answer, [slot.entity]))

    def _corrects_to_declared(self, ctx: TurnContext) -> bool:
        """A correction naming a value the bot file declares for the task: "不对，停止" / "actually
        stop" changes the value to "stop", though "停止" / "stop" alone would give up."""
        task, flow = ctx.task, ctx.flow
        if "correction" not in ctx.interp.cues or task is None or flow is None:
            return False
        types = {s.entity for s in flow.spec.slots if s.entity is not None and s.entity in self.texts.spec.entities}
        slots = [s for s in flow.spec.slots if s.entity in types]
        found = self.understanding.extract(ctx.interp.text, types) if types else []
        # A change, not the value already held ("不对，手机……算了" gives up on the phone it names).
        return any(m.type == s.entity and str(task.slots.get(s.name)) != str(m.value) for m in found for s in slots)

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

    @explaining.offer_step("keep_to_asked_slot")
    def _keep_to_asked_slot(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """A bare number ("12345" after "请提供订单号") is an answer to the asked slot: when it does
        not fit that slot it never silently lands in a number slot of the task instead.

        A plain number is the weakest evidence there is (ids, amounts and counts are all digits);
        a value of any other kind ("耳机", "下午三点"), a correction cue, or the label said before it
        ("数量是1" / "the quantity is 1" while the medicine is asked) says which slot is meant.
        """
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or not task.pending_slot or "correction" in ctx.interp.cues:
            return
        asked = flow.spec.slot(task.pending_slot)
        kinds = {m.type for m in ctx.interp.mentions}
        if asked is None or asked.entity in NUMERIC or not kinds or not kinds <= NUMERIC or not self._is_bare(ctx):
            return
        for name in [n for n in offer.values if n != task.pending_slot and n not in offer.labelled]:
            del offer.values[name]
            offer.surfaces.pop(name, None)
        for name in [n for n in offer.conflicts if n != task.pending_slot]:
            del offer.conflicts[name]

    @explaining.offer_step("keep_filled_slots")
    def _keep_filled_slots(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """A filled slot changes only when the user corrects it ("不对，是耳机" / "actually it's
        67890"), names it ("the attendee is Supervisor Li") or chooses by the value ("the italian
        one", "川菜那家"): a value that merely appears in
        another answer ("the weather is nice today" while the cabin is asked) never silently
        replaces what the user said before."""
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or ctx.interp.cues & {"correction", "no"}:
            return
        if task.state == "CONFIRMATION":
            if self._is_bare(ctx):
                return     # "67890" in answer to the confirmation is the new value
        elif not task.pending_slot:
            return         # after "what would you like to change?" any value is a change
        text = ctx.interp.text.lower()
        sought = tuple(flow.spec.trigger.keywords)     # "an italian restaurant": the thing looked for
        if self._is_bare(ctx) and not any(n == task.pending_slot for n in offer.values):
            return         # "老城" / "indian, please" alone, to another question: that slot's new value
        for name in [n for n, v in offer.values.items() if n != task.pending_slot
                     and task.slots.get(n) is not None and str(task.slots[n]) != str(v)]:
            slot = flow.spec.slot(name)
            named = name in offer.labelled or names_by_value(text, offer.surfaces.get(name, ""), sought) or (
                slot is not None and any(self.texts.slot_label(slot, lang).lower() in text for lang in ("zh", "en")))
            if not named:
                del offer.values[name]
                offer.surfaces.pop(name, None)

    @staticmethod
    def _is_bare(ctx: TurnContext) -> bool:
        """True when the utterance is one value and little else ("12345", "三件", "是 67890")."""
        interp = ctx.interp
        spans = {(m.start, m.end) for m in interp.mentions}
        if len(spans) > 1 or (interp.top_intent is not None and interp.top_intent.score >= INTENT_THRESHOLD):
            return False
        text = interp.text
        for start, end in spans:
            text = text[:start] + " " * (end - start) + text[end:]
        return sum(ch.isalnum() for ch in text) <= BARE_REMAINDER

    def _rule_message(self, ctx: TurnContext) -> str | None:
        """An answer that is no value of the slot's type may still break one of its rules: say which.

        "1234" for an order number never becomes an ``order_id`` (the type wants 5-12 digits), but
        the user should hear the rule's message ("订单号应为5到12位数字。"), not a bare re-ask.
        """
        assert ctx.task is not None and ctx.flow is not None
        slot = ctx.flow.spec.slot(ctx.task.pending_slot) if ctx.task.pending_slot else None
        answer = ctx.interp.text.strip()
        value_like = any(ch.isdigit() for ch in answer) or (answer.isascii() and " " not in answer)
        if slot is None or not slot.validate_ or not value_like or len(answer) > 40 or ctx.interp.intents:
            return None
        return validate_slot(slot, answer, ctx.language, self.actions.validate)

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
        options = self._choices(ctx, slot) if slot.choices is not None else None
        if options:
            ctx.say.append(choice_lists.listed(question, options, ctx.language))
            ctx.options = [c.label(ctx.language) for c in options]
            tracker.remember_offered(ctx.session, slot.entity or slot.name, [c.value for c in options], turn=ctx.turn)
            return
        ctx.say.append(question)
        entity = self.texts.spec.entities.get(slot.entity) if slot.entity else None
        if entity is not None and entity.values and len(entity.values) <= MAX_OPTIONS:
            ctx.options = [self.texts.value_label(slot, value, ctx.language) for value in entity.values]

    def _choices(self, ctx: TurnContext, slot: SlotSpec) -> list[choice_lists.Choice] | None:
        """The slot's options from its action; None when it fails (the question is then free-form)."""
        task = ctx.task or ctx.session.task
        if slot.choices is None or task is None:
            return None
        action_ctx = ActionContext(slots=dict(task.slots), session_id=ctx.session.id,
                                   user_id=ctx.session.user_id or "", flow=task.flow, language=ctx.language,
                                   session=ctx.session)
        try:
            return choice_lists.parse_choices(self.actions.run(slot.choices.action, action_ctx))
        except ActionError as exc:
            log.warning("choices_failed", action=slot.choices.action, session_id=ctx.session.id, error=str(exc))
            return None

    @explaining.offer_step("outside_choices")
    def _outside_choices(self, ctx: TurnContext, offer: SlotOffer) -> list[tuple[str, str]]:
        """Values a new task's first utterance offers for slots with choices: a choice it names is
        taken, any other value is dropped and refused like an invalid one."""
        assert ctx.flow is not None
        refused: list[tuple[str, str]] = []
        for slot in [s for s in ctx.flow.spec.slots if s.choices is not None and s.name in offer.values]:
            options = self._choices(ctx, slot)
            if not options:
                continue
            picked = choice_lists.pick(options, "", offer.values[slot.name])
            if picked is not None:
                offer.values[slot.name] = picked.value
                continue
            value = offer.surfaces.get(slot.name) or str(offer.values[slot.name])
            del offer.values[slot.name]
            refused.append((slot.name, choice_lists.outside(value, ctx.language)))
        return refused

    @explaining.offer_step("choose")
    def _choose(self, ctx: TurnContext, offer: SlotOffer) -> bool:
        """An answer to a question with choices: the choice it names fills the slot; a value outside
        them is refused with the list (False: the turn is answered)."""
        task, flow = ctx.task, ctx.flow
        pending = task.pending_slot if task is not None else None
        slot = flow.spec.slot(pending) if flow is not None and pending else None
        if slot is None or slot.choices is None or ctx.interp.cues & {"any", "cancel"}:
            return True
        options = self._choices(ctx, slot)
        if not options:
            return True
        picked = choice_lists.pick(options, ctx.interp.text, offer.values.get(slot.name))
        if picked is not None:
            offer.values[slot.name] = picked.value
            offer.surfaces.setdefault(slot.name, ctx.interp.text)
            return True
        if slot.name not in offer.values:
            return True
        refused = offer.surfaces.get(slot.name, str(offer.values[slot.name]))
        self._failure(ctx, choice_lists.outside(refused, ctx.language))
        return False

    @explaining.offer_step("choice_by_name")
    def _choice_by_name(self, ctx: TurnContext, offer: SlotOffer) -> None:
        """"不对，订单号是第二个" / "no, the order number is the last one": a correction that names a
        slot with choices, and no value for it, picks from that slot's options (by ordinal, label
        or value), listed to the user or not; the asked free-text slot then does not take the text."""
        task, flow = ctx.task, ctx.flow
        if "correction" not in ctx.interp.cues or task is None or flow is None:
            return
        text = ctx.interp.text.lower()
        referred = {m.text for m in ctx.bound_mentions}     # a value a reference brought may be replaced
        for slot in flow.spec.slots:
            if slot.choices is None or slot.name == task.pending_slot:
                continue
            if slot.name in offer.values and offer.surfaces.get(slot.name) not in referred:
                continue
            if not any((label := self.texts.slot_label(slot, lang)) and label.lower() in text for lang in ("zh", "en")):
                continue
            options = self._choices(ctx, slot)
            picked = choice_lists.pick(options, ctx.interp.text) if options else None
            if picked is None:
                continue
            if task.pending_slot is not None and offer.surfaces.get(task.pending_slot) == ctx.interp.text.strip():
                offer.values.pop(task.pending_slot, None)
                offer.surfaces.pop(task.pending_slot, None)
            offer.values[slot.name] = picked.value
            offer.surfaces[slot.name] = ctx.interp.text
            return

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

    def _faq(self, ctx: TurnContext) -> bool:
        """An FAQ question: answer it, then (inside a task) ask the pending question again.

        It fires no transition, so reply.flow stays as it was, and it is no failed answer. A flow's
        trigger that scores at least as high wins: the FAQ is for questions, not requests.
        """
        if not self._faq_answer(ctx):
            return False
        if ctx.session.task is not None:
            self._reask(ctx)
        return True

    def _faq_answer(self, ctx: TurnContext) -> bool:
        """Say the answer of the FAQ entry the turn asks, if any; the caller asks what is pending."""
        if not self.faq:
            return False
        hit = self.faq.match(ctx.interp.text)
        top = ctx.interp.top_intent
        if hit is None or (top is not None and top.flow in self.flows and top.score >= hit[1]):
            return False
        ctx.explain("faq", f"answered FAQ {hit[0]}", ctx.interp.text.strip())
        ctx.say.append(R.prompt(self.faq.faq[hit[0]].answer, ctx.language, {}))
        return True

    @staticmethod
    def _whole_text_answer(ctx: TurnContext, offer: SlotOffer) -> bool:
        """True when the offer is only the asked free-text slot taking the whole utterance: an FAQ
        question ("营业时间是什么") is then asked, not given as the slot's text."""
        task, flow = ctx.task, ctx.flow
        if task is None or flow is None or not task.pending_slot:
            return False
        asked = flow.spec.slot(task.pending_slot)
        return (asked is not None and asked.entity is None and not offer.conflicts and len(offer.values) == 1
                and offer.surfaces.get(asked.name) == ctx.interp.text.strip())

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

    def _answer_clarification(self, ctx: TurnContext) -> bool:
        """Resolve a pending question; False when the answer names none of the candidates."""
        pending = ctx.session.pending
        assert pending is not None
        ctx.session.pending = None
        choice = clar.answer_clarification(pending, ctx.interp.text, ctx.interp.mentions)
        if choice is None:
            return self._keep_question(ctx, pending)
        if pending.kind == "slot_value":
            self._bind(ctx)
            if ctx.task is None or ctx.flow is None or ctx.flow.name != pending.flow:
                return False
            ctx.updates = {pending.slot: choice.value} if pending.slot else {}
            ctx.resolved_text = clar.candidate_label(choice, ctx.language, self.texts)
            written = explaining.slot_writes(ctx, ctx.updates, {}, "clarification_answer")
            try:
                self._fire(ctx, "provide_param")
            except ClarificationNeeded as question:     # the answer itself holds an ambiguous reference
                self._ask_clarification(ctx, question.pending)
                return True
            ctx.explained += written
            self._advance(ctx)
            return True
        ctx.explain("clarification_answer", f"chose {choice.value}", ctx.interp.text.strip())
        self.lookahead.replay_with_choice(ctx, pending, choice)
        self.respond(ctx)
        return True

    def _fills_active_task(self, ctx: TurnContext) -> bool:
        """True when the turn brings a value of a type the active task's slots take ("2028年1月1日")."""
        task = ctx.session.task
        flow = self.flows.get(task.flow) if task is not None else None
        if flow is None:
            return False
        types = {s.entity for s in flow.spec.slots if s.entity}
        # A number in running text ("我刚喝了一杯咖啡") is no value for the task; a bare one is.
        return any(m.type in types and (m.type not in NUMERIC or self._is_bare(ctx)) for m in ctx.interp.mentions)

    def _keep_question(self, ctx: TurnContext, pending: PendingClarification) -> bool:
        """An unrelated turn (help, small talk) while a clarification is pending: answer it and ask
        again, once. A new request, a cancel, a forget or a new value drops the question (False:
        the turn is then handled as a new one)."""
        cues = ctx.interp.cues
        top = ctx.interp.top_intent
        if (pending.kept >= 1 or cues & {"cancel", "forget", "yes", "no", "correction"} or ctx.interp.declared_mentions
                or self._fills_active_task(ctx) or (top is not None and top.score >= INTENT_THRESHOLD)):
            return False
        if "help" in cues:
            ctx.explain("help", "listed what the bot can do; the question stays", explaining.cue_words(ctx))
            ctx.say.append(self.texts.help(ctx.language))
        elif "greeting" in cues:
            ctx.say.append(R.phrase("greeting", ctx.language))
        elif not self._faq_answer(ctx):
            ctx.explain("not_understood", "no answer to the question; it stays", ctx.interp.text.strip() or None)
            ctx.say.append(R.phrase("not_understood", ctx.language))
        self._ask_clarification(ctx, pending.model_copy(update={"kept": pending.kept + 1}))
        return True

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

    def _forget_values(self, ctx: TurnContext, names: list[str]) -> bool:
        """'忘记我的订单号': delete those persisted values (this bot's, for this user); '忘记时间' /
        'forget the time': clear that slot of the active task. Either way the task asks for the first
        required slot now empty, in its first wording: dropping a value is no failed answer. False
        when no slot named persists or belongs to the active task (the words are read as usual)."""
        self._bind(ctx)
        persisted = [n for n in names if self._persists(n)]
        held = [n for n in names if n not in persisted and ctx.flow is not None and ctx.flow.spec.slot(n)]
        if not persisted and not held:
            return False
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
        return True

    def _persists(self, name: str) -> bool:
        return any((s := f.spec.slot(name)) is not None and s.persist != "none" for f in self.flows.values())

    def _slot_labels(self, names: list[str], language: str) -> str:
        return R.enumerate_items([self._slot_label(n, language) for n in names], language)

    def _slot_label(self, name: str, language: str) -> str:
        slot = next((s for f in self.flows.values() if (s := f.spec.slot(name)) is not None), None)
        return self.texts.slot_label(slot, language) or name

    # ---- helpers -----------------------------------------------------------------------------
    def _bind(self, ctx: TurnContext) -> None:
        ctx.task = ctx.session.task
        ctx.flow = self.flows[ctx.task.flow] if ctx.task else None

    def _intent(self, ctx: TurnContext) -> str | None:
        top = ctx.interp.top_intent
        if top is None or top.score < INTENT_THRESHOLD or top.flow not in self.flows:
            return None
        return top.flow

    @staticmethod
    def _fire(ctx: TurnContext, trigger: str) -> None:
        ctx.fire(trigger)


def _said_alone(text: str) -> str:
    """An answer as a whole, without the full stop or exclamation it may end with."""
    return text.strip().strip("。.!！")


__all__ = ["Policy"]
