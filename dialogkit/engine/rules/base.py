"""What a rule reads, and what a rule is.

A rule is a plain function of ``Seen`` (the turn's reading, the session it arrives in, and the
commands earlier rules emitted) that returns the commands it makes, or none. It decides; it
never says anything, fires a trigger or writes the session: that is the processor's part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dialogkit.engine.commands import Command
from dialogkit.engine.value_flows import REQUEST
from dialogkit.understanding.intents import INTENT_THRESHOLD

if TYPE_CHECKING:
    from dialogkit.actions.table import ActionTable
    from dialogkit.engine.faq import FaqIndex
    from dialogkit.engine.forget_value import ForgetValue
    from dialogkit.engine.named_any import NamedAny
    from dialogkit.engine.slot_layout import SlotLayout
    from dialogkit.engine.slots import SlotOffer
    from dialogkit.engine.turn import TurnContext
    from dialogkit.model.interpretation import Interpretation
    from dialogkit.model.session import Task
    from dialogkit.spec.compiler import CompiledFlow
    from dialogkit.text.labels import Texts
    from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["ANY", "COLLECTING", "CONFIRMING", "IDLE", "TASK", "Bot", "Rule", "Seen"]

IDLE = frozenset({"IDLE"})
COLLECTING = frozenset({"TASK_INIT", "PARAM_COLLECT"})
CONFIRMING = frozenset({"CONFIRMATION"})
TASK = COLLECTING | CONFIRMING
ANY = IDLE | TASK | frozenset({"EXECUTION"})


@dataclass(frozen=True, slots=True)
class Bot:
    """The parts of the bot rules consult: its flows, texts, FAQ, understanding and the actions
    that list a slot's options (never a session)."""

    flows: Mapping[str, CompiledFlow]
    texts: Texts
    understanding: RuleUnderstanding
    faq: FaqIndex
    forget_value: ForgetValue
    named_any: NamedAny
    actions: ActionTable
    layouts: Mapping[str, SlotLayout]

    def slot_label_spans(self, interp: Interpretation) -> list[tuple[int, int]]:
        """Where the turn names a slot of any flow ("order number", "预订号"): a request word
        inside those words asks for nothing (``value_flows.said_as_wish``). Looked for only when
        a request word is there to be told apart from them."""
        if not interp.matches(REQUEST):
            return []
        return [m.span() for layout in self.layouts.values() if interp.matches(layout.any_label)
                for _, pattern in layout.labels for m in interp.matches(pattern) if m.group().strip()]

    def persists(self, name: str) -> bool:
        """True when some flow keeps slot ``name`` beyond its task (``persist``)."""
        return any((s := f.spec.slot(name)) is not None and s.persist != "none" for f in self.flows.values())


@dataclass(slots=True, init=False)
class Seen:
    """One rule's view of the turn: read it, never write it."""

    ctx: TurnContext
    bot: Bot
    emitted: list[Command]
    offers: dict[str, SlotOffer]                 # the turn's slot offer, read once, by phase
    refusal: str | None                          # a value outside the choices listed
    task: Task | None                            # the active task, as the turn found it
    flow: CompiledFlow | None
    cues: set[str]
    confirming: bool                             # the task asks for a confirmation
    _faq_hit: tuple[str, float] | None
    _faq_read: bool

    def __init__(self, ctx: TurnContext, bot: Bot, emitted: list[Command] | None = None) -> None:
        # Written out: one a turn, and the generated one with defaults and a __post_init__ cost twice.
        self.ctx, self.bot = ctx, bot
        self.emitted = emitted if emitted is not None else []
        self.offers, self.refusal = {}, None
        self.task = task = ctx.session.task
        self.flow = bot.flows.get(task.flow) if task is not None else None
        self.confirming = task is not None and task.state == "CONFIRMATION"
        self.cues = ctx.interp.cues
        self._faq_hit, self._faq_read = None, False

    def intent(self) -> str | None:
        """The flow the words request, when sure enough and one of this bot's."""
        top = self.ctx.interp.top_intent
        if top is None or top.score < INTENT_THRESHOLD or top.flow not in self.bot.flows:
            return None
        return top.flow

    def faq_hit(self) -> tuple[str, float] | None:
        """The FAQ entry nearest the words and its score (None below the threshold, or no FAQ):
        several rules ask, the index is searched once a turn."""
        if not self._faq_read:
            self._faq_hit = self.bot.faq.match(self.ctx.interp.text) if self.bot.faq else None
            self._faq_read = True
        return self._faq_hit

    def faq_entry(self) -> str | None:
        """The FAQ entry the words ask, unless a flow's trigger scores at least as high."""
        hit = self.faq_hit()
        top = self.ctx.interp.top_intent
        if hit is None or (top is not None and top.flow in self.bot.flows and top.score >= hit[1]):
            return None
        return hit[0]


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule, the states it reads a turn in, and why it stands where it does in the order.

    ``cues``: the rule decides nothing unless the turn holds one of these cues ("cancel" for the
    cancel rules); ``llm``: nothing unless the LLM proposed commands; ``asking``: nothing unless
    the bot's own question (which one did you mean?) waits for its answer; ``blank``: nothing but
    a turn with no words. The generator does not ask it then: most rules of a state cannot decide
    most turns, and each look costs a call."""

    name: str
    run: Callable[[Seen], Sequence[Command]]
    states: frozenset[str]
    why: str
    cues: frozenset[str] | None = None
    llm: bool = False
    asking: bool = False
    blank: bool = False

    def silent(self, cues: frozenset[str], heard: bool, asking: bool = False, blank: bool = False) -> bool:
        """True when the rule cannot decide a turn with ``cues`` (those of ``cues`` it may read),
        ``heard`` (whether the LLM proposed anything), ``asking`` (whether the bot's question is
        pending) and ``blank`` (whether the turn has no words)."""
        return ((self.cues is not None and self.cues.isdisjoint(cues)) or (self.llm and not heard)
                or (self.asking and not asking) or (self.blank and not blank))
