"""The command processor: applies the commands the rules make of a turn to the task stack.

The rules (``engine.rules``, one ordered list) read the turn and decide; this module applies
what they decided, dispatching each command to the part that knows the step: starting and
ending tasks (``task_lifecycle``), asking the next question (``asking``), taking an answer's
values (``answers``), forgetting (``forgetting``). Together they validate values with the bot
file's rules, fire the machines' triggers, run actions and say what comes next.

The processor does not read the user's words: it works from the commands and the turn's
reading (its cues and refused values). The raw text (``ctx.interp.text``) is only quoted: as
the words an explanation or an FAQ answer names, as a clarification's original request, and in
the messages a handoff passes to a person. Where a new task starts, its values come from the
rules' slot offer (``rules.slot_offers``), as an answer's do. The LLM's values (``SetSlots``
made by ``llm``) are written with the words' own when a flow starts or an answer is taken, where
the rules let them stand (``rules.proposed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dialogkit.actions.table import ActionTable
from dialogkit.engine import answers, asking, explaining, forgetting, noted_values, rules, task_lifecycle
from dialogkit.engine.commands import (
    AnswerFaq,
    Cancel,
    Choose,
    Clarify,
    Command,
    Confirm,
    Deny,
    Farewell,
    Forget,
    Greet,
    Help,
    KeepQuestion,
    Note,
    NotUnderstood,
    SetSlots,
    StartFlow,
)
from dialogkit.engine.faq import FaqIndex
from dialogkit.engine.forget_value import ForgetValue
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.processor import bind
from dialogkit.engine.rules import proposed
from dialogkit.engine.slots import SlotLayout
from dialogkit.engine.turn import ClarificationNeeded, TurnContext
from dialogkit.memory import clarification as clar
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import BotSettings
from dialogkit.text import phrases as R
from dialogkit.text.labels import Texts
from dialogkit.understanding.rules import RuleUnderstanding


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
        self.named_any = lookahead.named_any
        self.faq = FaqIndex(texts.spec.faq)
        self._layouts = {name: SlotLayout.of(flow.spec) for name, flow in flows.items()}
        self.bot = rules.Bot(flows, texts, understanding, self.faq, self.forget_value, self.named_any, actions,
                             self._layouts)

    # ---- entry -------------------------------------------------------------------------
    def respond(self, ctx: TurnContext) -> None:
        """Ask the rules for this turn's commands and apply them. No rule decides a turn that finds
        the task in EXECUTION, which only a crash mid-turn leaves: it is finished (idempotently)."""
        bind(self.flows, ctx)
        commands = rules.generate(rules.Seen(ctx, self.bot))
        if ctx.session.pending is not None and not (commands and isinstance(commands[0], NotUnderstood)
                                                    and commands[0].empty):
            ctx.session.pending = None      # answered, kept (asked again below) or dropped by the turn
        if commands:
            self._apply(ctx, commands)
        elif ctx.task is not None:
            self.execute(ctx)

    def _apply(self, ctx: TurnContext, commands: list[Command]) -> None:
        """Apply the deciding command (and the flow a cancel's words request instead): an empty
        turn's, then one the in-task rules made while a task is active, then by its kind (a table
        of the kinds, ``_STEPS``, looked up once instead of a pattern tried after another)."""
        command = commands[0]
        kind = type(command)
        if isinstance(command, NotUnderstood) and command.empty:
            ctx.say.append(R.phrase("empty_input", ctx.language))
            asking.reask(self, ctx)
        elif kind in _IN_TASK and ctx.task is not None:
            self._in_task(ctx, command)
        else:
            _STEPS.get(kind, Policy._idle_reply)(self, ctx, command, commands)

    def _forget(self, ctx: TurnContext, command: Forget, commands: list[Command]) -> None:
        if command.slots:
            forgetting.forget_values(self, ctx, list(command.slots))
        else:
            forgetting.forget_last_turn(self, ctx)

    def _cancel(self, ctx: TurnContext, command: Cancel, commands: list[Command]) -> None:
        self._cancelled(ctx, next((c.flow for c in commands[1:] if isinstance(c, StartFlow)), None))

    def _start(self, ctx: TurnContext, command: StartFlow, commands: list[Command]) -> None:
        task_lifecycle.start(self, ctx, command.flow, by=command.rule)

    def _clarify(self, ctx: TurnContext, command: Clarify, commands: list[Command]) -> None:
        asking.ask_clarification(self, ctx, clar.make_pending(
            command.ambiguity, original_text=ctx.interp.text, language=ctx.language, turn=ctx.turn,
            texts=self.texts))

    def _idle_reply(self, ctx: TurnContext, command: Command, commands: list[Command]) -> None:
        """A greeting, facts noted, a request for help or nothing understood: said, then what the
        bot can do."""
        if isinstance(command, Greet):
            ctx.explain("greeting", "greeted back", explaining.cue_words(ctx))
            ctx.say.append(R.phrase("greeting", ctx.language))
        elif isinstance(command, Note):
            names = (self.texts.entity_value_label(m.type, m.value, ctx.language) for m in command.mentions)
            items = R.enumerate_items(list(dict.fromkeys(names)), ctx.language)
            ctx.explain("noted", f"noted {items}, with no request")
            noted_values.remember(ctx, command)
            ctx.say.append(R.phrase("noted", ctx.language, items=items))
        elif isinstance(command, NotUnderstood):
            ctx.explain("not_understood", "no flow, FAQ or value matched", command.words)
            ctx.say.append(R.phrase("not_understood", ctx.language))
        else:
            ctx.explain("help", "listed what the bot can do", explaining.cue_words(ctx))
        ctx.say.append(self.texts.help(ctx.language))

    def _farewell(self, ctx: TurnContext, command: Farewell, commands: list[Command]) -> None:
        """Goodbye, and nothing else: a task under way keeps its question for when the user is back."""
        ctx.explain(command.rule, "said goodbye" + ("; the task kept" if ctx.task is not None else ""), command.words)
        ctx.say.append(R.phrase("farewell", ctx.language))

    def _cancelled(self, ctx: TurnContext, instead: str | None) -> None:
        """Cancel the task in progress (none: nothing to cancel), then start the flow the same
        words request instead, if any, or go back to the task below."""
        bind(self.flows, ctx)
        had_task = ctx.task is not None
        if had_task:
            task_lifecycle.cancel(self, ctx)
        elif instead is None:
            ctx.explain("cancel", "nothing to cancel", explaining.cue_words(ctx))
            ctx.say.append(R.phrase("nothing_to_cancel", ctx.language))
        if instead is not None:
            task_lifecycle.start(self, ctx, instead, by="instead")
        elif had_task:
            task_lifecycle.resume(self, ctx)

    def _in_task(self, ctx: TurnContext, command: Command) -> None:
        """A command the in-task rules made: a task just started begins collecting first. The
        values the model heard for the task are written with an answer's own (``proposed.merge``)."""
        assert ctx.task is not None
        if ctx.task.state == "TASK_INIT":
            ctx.fire("collect")
        match command:
            case SetSlots(task=str()):
                answers.keep_for_waiting(self, ctx, command)
            case SetSlots() if ctx.task.state == "CONFIRMATION":
                proposed.merge(self.bot, ctx, command.offer)
                answers.correct(self, ctx, command.offer)
            case SetSlots():
                proposed.merge(self.bot, ctx, command.offer)
                answers.take(self, ctx, command.offer, command.message)
            case Help():
                ctx.explain(command.rule, "answered; asked again", command.words)
                if command.rule == "help":
                    ctx.say.append(self.texts.help(ctx.language))
                asking.reask(self, ctx)
            case AnswerFaq():
                self._answer_faq(ctx, command.entry)
            case Farewell():
                self._farewell(ctx, command, [])
            case Confirm():
                ctx.explain("confirm", "confirmed", command.words)
                ctx.fire("confirm")
                self.execute(ctx)
            case Deny():
                self._deny(ctx, command)
            case NotUnderstood():
                asking.failure(self, ctx, command.message)

    def _deny(self, ctx: TurnContext, command: Deny) -> None:
        ctx.explain("deny", "denied: asked what to change", command.words)
        ctx.fire("deny")
        assert ctx.task is not None
        if answers.impossible_value(self, ctx):
            return
        ctx.task.pending_slot = None
        ctx.task.reprompts = 0
        ctx.say.append(R.phrase("ask_what_to_change", ctx.language))

    def _faq(self, ctx: TurnContext, command: AnswerFaq, commands: list[Command]) -> None:
        self._answer_faq(ctx, command.entry)

    def _answer_faq(self, ctx: TurnContext, entry: str) -> None:
        self._say_faq(ctx, entry)
        if ctx.session.task is not None:
            asking.reask(self, ctx)

    def _say_faq(self, ctx: TurnContext, entry: str) -> None:
        ctx.explain("faq", f"answered FAQ {entry}", ctx.interp.text.strip())
        ctx.say.append(R.prompt(self.faq.faq[entry].answer, ctx.language, {}))

    # ---- the bot's own question -------------------------------------------------------------
    def _chosen(self, ctx: TurnContext, command: Choose, commands: list[Command]) -> None:
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
        bind(self.flows, ctx)
        ctx.updates = {pending.slot: choice.value} if pending.slot else {}
        ctx.resolved_text = clar.candidate_label(choice, ctx.language, self.texts)
        written = explaining.slot_writes(ctx, ctx.updates, {}, "clarification_answer")
        try:
            ctx.fire("provide_param")
        except ClarificationNeeded as question:     # the answer itself holds an ambiguous reference
            asking.ask_clarification(self, ctx, question.pending)
            return
        ctx.explained += written
        asking.advance(self, ctx)

    def _keep_question(self, ctx: TurnContext, command: KeepQuestion, commands: list[Command]) -> None:
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
        asking.ask_clarification(self, ctx, pending.model_copy(update={"kept": pending.kept + 1}))

    # ---- the steps the parts call back -------------------------------------------------------
    def execute(self, ctx: TurnContext) -> None:
        task_lifecycle.execute(self, ctx)

    def give_up(self, ctx: TurnContext, error: str | None) -> None:
        task_lifecycle.give_up(self, ctx, error)

    _in_doubt = staticmethod(answers.in_doubt)


_IN_TASK = frozenset({SetSlots, Help, AnswerFaq, Farewell, Confirm, Deny, NotUnderstood})
"""The kinds the in-task rules make: applied to the active task when there is one."""

_STEPS: dict[type[Command], Callable[[Policy, TurnContext, Any, list[Command]], None]] = {
    Choose: Policy._chosen,
    KeepQuestion: Policy._keep_question,
    Forget: Policy._forget,
    Cancel: Policy._cancel,
    AnswerFaq: Policy._faq,
    StartFlow: Policy._start,
    Clarify: Policy._clarify,
    Farewell: Policy._farewell,
}
"""The step each kind of command takes outside a task (any other kind: ``Policy._idle_reply``)."""

__all__ = ["Policy"]
