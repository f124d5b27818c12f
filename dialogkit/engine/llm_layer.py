"""The LLM path of a turn: understanding, round summaries, rephrasing. Optional by design.

Rules first, LLM second: the rule interpretation is computed before anything here runs, and
every failure of the LLM path (an ``LLMError``, a timeout, garbage, a value the rules refuse)
leaves it untouched, logs one warning and counts ``session.usage.failures``. The LLM proposes
commands; the rule layer validates every value (entity type parse + slot rules), and the user's
words must ground it (``grounding``: a confirm needs a yes in them, a value must be the user's).
What stands becomes the engine's own commands on the turn (``ctx.proposed``, made by ``llm``): a
flow to start, one ``SetSlots`` per value, a confirm, deny or cancel. Rules of the rule command
generator take them where the words' reading does not decide, and a value the user typed wins
over the model's (``rules.proposed``). Nothing the model said enters the words' reading (their
intents, mentions or cues). Nothing here raises into the turn.

The understanding prompt is built THROUGH the context window, so it is budgeted, trimmed by
priority and redacted like any other request: sensitive slot values never leave the process.
One deadline (``llm.timeout_s``) covers every LLM call of a turn.

One client serves every session of a bot, possibly at once: each completion's usage is charged
to the session that made it (the call's ``Exchange`` carries the session's ``Usage``), never a
difference of the client's shared counters.

Every entry point has an async twin (``aunderstand``, ``arephrase``, ``asummarize``) for an
async service: the same preparation, the same sans-IO call, driven by the async SDK.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from dialogkit.engine import commands as engine_commands
from dialogkit.engine import explaining
from dialogkit.engine.context_view import ContextView
from dialogkit.engine.grounding import Grounding
from dialogkit.engine.sensitive_reading import SensitiveReading
from dialogkit.engine.slots import SlotOffer, Validator, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.errors import DialogkitError, LLMError
from dialogkit.llm import calls as llm_calls
from dialogkit.llm import commands as llm_commands
from dialogkit.llm.client import LLMClient
from dialogkit.llm.exchange import Exchange, LLMRejected, Steps
from dialogkit.llm.once import log_once
from dialogkit.logging import get_logger
from dialogkit.model.reply import Explanation
from dialogkit.spec.schema import BotFile, LLMSpec, SlotSpec
from dialogkit.strings.redaction import MASK, mask_values
from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["LLMLayer"]

log = get_logger("dialogkit.llm")

_MIN_CALL_S = 0.05

T = TypeVar("T")
Ask = Callable[[Exchange], Steps[T]]
"""One LLM step of a turn as sans-IO steps, given the call's exchange (its deadline and charge)."""


class LLMLayer:
    """The bot's LLM: a client plus what it is used for (``llm.use_for``)."""

    def __init__(self, bot_spec: BotFile, understanding: RuleUnderstanding, view: ContextView,
                 validator: Validator, client: LLMClient) -> None:
        self.bot_spec = bot_spec
        self.understanding = understanding
        self.view = view
        self.validator = validator
        self.client = client
        self.spec: LLMSpec = client.spec
        self.use_for = frozenset(self.spec.use_for)
        self._sensitive = SensitiveReading(bot_spec)
        self.grounding = Grounding(bot_spec, understanding)

    @classmethod
    def create(cls, bot_spec: BotFile, understanding: RuleUnderstanding, view: ContextView, validator: Validator,
               llm: LLMClient | LLMSpec | Mapping[str, Any] | None) -> LLMLayer | None:
        """The layer for ``llm``, or None for a rule-based bot.

        ``llm`` is a ready ``LLMClient``, an ``LLMSpec`` or its dict form, or None to use the bot
        file's ``llm:`` section. Without a spec, or without an API key (spec or
        ``OPENAI_API_KEY``), the bot stays rule-based.
        """
        if isinstance(llm, LLMClient):
            return cls(bot_spec, understanding, view, validator, llm)
        if llm is None:
            spec = bot_spec.llm
        elif isinstance(llm, LLMSpec):
            spec = llm
        elif isinstance(llm, Mapping):
            spec = LLMSpec.model_validate(dict(llm))
        else:
            raise DialogkitError(f"llm= takes an LLMClient, an LLMSpec or a dict, not {type(llm).__name__}")
        client = LLMClient.from_spec(spec)
        return cls(bot_spec, understanding, view, validator, client) if client is not None else None

    def uses(self, purpose: str) -> bool:
        return purpose in self.use_for

    def close(self) -> None:
        self.client.close()

    # ------------------------------------------------------------------------ the deadline

    def _remaining(self, ctx: TurnContext) -> float:
        """Seconds left of this turn's LLM deadline (started by the turn's first LLM call)."""
        if ctx.llm_deadline is None:
            ctx.llm_deadline = time.monotonic() + self.spec.timeout_s
        return ctx.llm_deadline - time.monotonic()

    def _exchange(self, ctx: TurnContext, what: str) -> Exchange | None:
        """A call within what is left of the turn's deadline, charged to the session; None when none is left."""
        remaining = self._remaining(ctx)
        if remaining < _MIN_CALL_S:
            self._failed(ctx, what, LLMError("the turn's LLM deadline has passed"))
            return None
        return self.client.exchange(remaining, charge=ctx.session.usage)

    def _call(self, ctx: TurnContext, what: str, ask: Ask[T]) -> T | None:
        """Run ``ask`` with the sync SDK; None on any failure (logged and counted)."""
        exchange = self._exchange(ctx, what)
        if exchange is None:
            return None
        try:
            return self.client.run(ask(exchange))
        except Exception as exc:
            self._failed(ctx, what, exc)
        return None

    async def _acall(self, ctx: TurnContext, what: str, ask: Ask[T]) -> T | None:
        """``_call`` with the async SDK."""
        exchange = self._exchange(ctx, what)
        if exchange is None:
            return None
        try:
            return await self.client.arun(ask(exchange))
        except Exception as exc:
            self._failed(ctx, what, exc)
        return None

    def _failed(self, ctx: TurnContext, what: str, exc: Exception) -> None:
        """Count the failure; log it, once per process when the server rejected the request (it
        would reject it again every turn)."""
        ctx.session.usage.failures += 1
        reason = str(exc) if isinstance(exc, LLMError) else f"{type(exc).__name__}: {exc}"
        fields = {"step": what, "session_id": ctx.session.id, "turn": ctx.turn, "reason": reason}
        if isinstance(exc, LLMRejected):
            log_once(("fallback", self.client.endpoint.server, what, reason), "llm_fallback", **fields)
        else:
            log.warning("llm_fallback", **fields)

    # ------------------------------------------------------------------------ understanding

    def understand(self, ctx: TurnContext) -> None:
        """Leave the LLM's validated, grounded commands on the turn (``ctx.proposed``); none on failure."""
        ask = self._understanding(ctx)
        if ask is not None:
            self._apply(ctx, self._call(ctx, "understanding", ask))

    async def aunderstand(self, ctx: TurnContext) -> None:
        """``understand`` through the async SDK."""
        ask = self._understanding(ctx)
        if ask is not None:
            self._apply(ctx, await self._acall(ctx, "understanding", ask))

    def _understanding(self, ctx: TurnContext) -> Ask[list[llm_commands.Command]] | None:
        """The understanding call of this turn, or None when this turn's message must not be sent."""
        if not self.uses("understanding"):
            return None
        session, spec = ctx.session, self.bot_spec
        task = session.task
        if task is not None and task.pending_slot:
            flow = spec.flows.get(task.flow)
            slot = flow.slot(task.pending_slot) if flow is not None else None
            if slot is not None and slot.sensitive:
                return None  # this message answers a sensitive question: it never leaves the process
        hidden = self._sensitive.values(ctx.interp) if self._sensitive else []
        messages = self.view.build(session, extra_sensitive=hidden).messages
        active = session.flow
        pending = task.pending_slot if task is not None else None
        return lambda exchange: llm_calls.understand_steps(exchange, messages, spec, active, pending)

    def _apply(self, ctx: TurnContext, proposed: list[llm_commands.Command] | None) -> None:
        """Validate what the LLM proposed, keep what the user's words ground, and leave it on the turn."""
        if proposed is None:
            return
        active = ctx.session.flow
        kept = llm_commands.validate_commands(proposed, self.bot_spec, self._value_validator(ctx), active_flow=active)
        if len(kept) < len(proposed):
            dropped = LLMError(f"{len(proposed) - len(kept)} command(s) dropped by validation")
            self._failed(ctx, "understanding", dropped)
            ctx.explain("llm", f"{len(proposed) - len(kept)} proposed command(s) refused by the rules")
        # What the user's words do not ground is dropped too, and logged, but is no failure of the
        # call: the model heard something else (a value other than the one typed, say).
        grounded = self.grounding.keep(ctx, kept)
        ctx.explained.extend(Explanation("llm", f"proposed {explaining.command_text(c)}") for c in grounded)
        made = self._commands(ctx, grounded)
        ctx.proposed.extend(made)
        if made:
            ctx.interp.source = "llm"       # the turn's commands include the model's (traced)

    def _value_validator(self, ctx: TurnContext) -> llm_commands.ValueValidator:
        """The rule layer's check of a proposed value: entity type parse, then the slot's rules."""
        def validate(slot: SlotSpec, value: Any) -> tuple[bool, Any, str | None]:
            text = str(value).strip()
            if not text or text == MASK:
                return False, None, "empty value"
            if slot.sensitive:
                return False, None, "sensitive slots are filled by the rules only"
            canonical: Any = text
            if slot.entity:
                try:
                    canonical = self.understanding.parse_value(slot.entity, text,
                                                               now=self.understanding.local_time(ctx.now))
                except ValueError:
                    canonical = None
                if canonical is None:
                    return False, None, f"not a {slot.entity}"
            error = validate_slot(slot, canonical, ctx.language, self.validator)
            return (error is None, canonical, error)

        return validate

    def _commands(self, ctx: TurnContext, kept: Iterable[llm_commands.Command]) -> list[engine_commands.Command]:
        """The engine's commands for the model's, each made by ``llm``: a flow to start, one
        ``SetSlots`` per value (for the flow the model last started, else the active one, when it
        has the slot), a confirm, deny or cancel. Small talk and a clarify make none."""
        flow = ctx.session.flow
        made: list[engine_commands.Command] = []
        for command in kept:
            if isinstance(command, llm_commands.StartFlow):
                flow = command.flow
                made.append(engine_commands.StartFlow(rule="llm", flow=command.flow))
            elif isinstance(command, (llm_commands.SetSlot, llm_commands.CorrectSlot)):
                made.append(self._set_slots(ctx, flow, command))
            elif (answer := self._command(ctx, command)) is not None:
                made.append(answer)
        return made

    def _command(self, ctx: TurnContext, command: llm_commands.Command) -> engine_commands.Command | None:
        """The engine's command for the model's confirm, deny or cancel (made by ``llm``, on the
        words that grounded it: the yes a confirm stands on); None for small talk or a clarify."""
        if isinstance(command, llm_commands.Confirm):
            return engine_commands.Confirm(rule="llm", words=self.grounding.yes_words(ctx))
        if isinstance(command, llm_commands.Deny):
            return engine_commands.Deny(rule="llm")
        if isinstance(command, llm_commands.Cancel):
            return engine_commands.Cancel(rule="llm")
        return None

    def _set_slots(self, ctx: TurnContext, flow: str | None,
                   command: llm_commands.SetSlot | llm_commands.CorrectSlot) -> engine_commands.SetSlots:
        """One proposed value as the engine's command, on the words it was written in (if it was)."""
        owner = self._owner(flow, command.slot)
        surface = self._surface(ctx, owner, command.slot, command.value)
        offer = SlotOffer(values={command.slot: command.value},
                          surfaces={command.slot: surface} if surface is not None else {})
        return engine_commands.SetSlots(rule="llm", words=surface, offer=offer, flow=owner,
                                        correction=isinstance(command, llm_commands.CorrectSlot))

    def _owner(self, flow: str | None, slot_name: str) -> str | None:
        """``flow`` when it has slot ``slot_name``; else None: the value is for whichever flow the
        turn starts or holds that has the slot (the words may request the flow the model did not name)."""
        spec = self.bot_spec.flows.get(flow) if flow is not None else None
        return flow if spec is not None and spec.slot(slot_name) is not None else None

    def _surface(self, ctx: TurnContext, flow: str | None, slot_name: str, value: Any) -> str | None:
        """The user's words a proposed value stands on: the rules' mention of that value, else the
        value written as it is in the message; None when it is not written there (a number read out
        in words, a value given before)."""
        spec = self.bot_spec.flows.get(flow) if flow is not None else None
        slot = spec.slot(slot_name) if spec is not None else None
        if slot is not None and slot.entity:
            said = next((m.text for m in ctx.interp.mentions if m.type == slot.entity and str(m.value) == str(value)),
                        None)
            if said is not None:
                return said
        text = str(value)
        return text if text and text in ctx.interp.text else None

    # ------------------------------------------------------------------------ summaries, rephrasing

    def summarizer(self, ctx: TurnContext, sensitive: list[str]) -> Callable[[list[str], str], str]:
        """A round summarizer for ``hierarchy.fold_rounds`` within the turn's deadline.

        Raises ``LLMError`` on failure (``fold_rounds`` then falls back to extractive).
        """

        def summarize(texts: list[str], language: str) -> str:
            return _summary_or_raise(self._call(ctx, "summaries", self._summary(texts, language, sensitive)))

        return summarize

    async def asummarize(self, ctx: TurnContext, texts: list[str], language: str, sensitive: list[str]) -> str:
        """One round summary through the async SDK; raises ``LLMError`` on failure, like ``summarizer``'s."""
        return _summary_or_raise(await self._acall(ctx, "summaries", self._summary(texts, language, sensitive)))

    @staticmethod
    def _summary(texts: list[str], language: str, sensitive: list[str]) -> Ask[str]:
        clean = [mask_values(text, sensitive) for text in texts]
        return lambda exchange: llm_calls.summarize_steps(exchange, clean, language)

    def rephrase(self, ctx: TurnContext, text: str) -> str:
        """``text`` rephrased when "rephrase" is in use_for; the template text on any failure."""
        ask = self._rephrasing(ctx, text)
        result = self._call(ctx, "rephrase", ask) if ask is not None else None
        return result or text

    async def arephrase(self, ctx: TurnContext, text: str) -> str:
        """``rephrase`` through the async SDK."""
        ask = self._rephrasing(ctx, text)
        result = await self._acall(ctx, "rephrase", ask) if ask is not None else None
        return result or text

    def _rephrasing(self, ctx: TurnContext, text: str) -> Ask[str] | None:
        """The rephrasing call for ``text``, or None when it is not to be rephrased."""
        if not self.uses("rephrase") or not text.strip():
            return None
        secret = self.view.sensitive_values(ctx.session, extra_tasks=(ctx.ended_task,))
        if any(value and value in text for value in secret):
            return None  # a reply quoting a sensitive value is never sent out to be rephrased
        language = ctx.language
        values = [str(v) for task in (ctx.session.task, ctx.ended_task) if task is not None
                  for v in task.slots.values() if v is not None]
        return lambda exchange: llm_calls.rephrase_steps(exchange, text, language, values)


def _summary_or_raise(result: str | None) -> str:
    if not result:
        raise LLMError("no LLM summary")
    return result
