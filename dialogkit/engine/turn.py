"""The data one turn carries through the pipeline and into the machines' callbacks.

Every field is typed and named: the policy, the memory actions and the LLM layer read and write
the same object, so what one of them leaves for another is visible here, not hidden in a dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dialogkit.errors import DialogkitError
from dialogkit.logging import get_logger
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.model.reply import ActionRun, Explanation
from dialogkit.model.session import PendingClarification, Session, Task

if TYPE_CHECKING:
    from dialogkit.engine.commands import Command
    from dialogkit.memory.references import Resolution
    from dialogkit.spec.compiler import CompiledFlow
    from dialogkit.store.protocol import StoreTxn

log = get_logger("dialogkit.bot")


class ClarificationNeeded(DialogkitError):
    """Raised by ``resolve_references`` to stop a transition: the bot must ask which one was meant."""

    def __init__(self, pending: PendingClarification) -> None:
        super().__init__("clarification needed")
        self.pending = pending


@dataclass(slots=True, init=False)
class TurnContext:
    """One user turn: its input, what the engine decided, and what it will say.

    ``__init__`` is written out: one is made a turn, and the generated one calls a factory for
    each of the fourteen empty lists and dicts below, a visible part of a turn's cost."""

    txn: StoreTxn
    session: Session
    text: str
    interp: Interpretation
    language: str
    turn: int
    now: float                                                      # the bot's clock, read once per turn
    user_key: str = ""                                              # store key of the user's persisted values
    trace: bool = False                                             # log every transition (DEBUG)
    log_turn: bool = False                                          # log the turn event (INFO)
    resolution: Resolution | None = None
    resolved_text: str | None = None
    bound_mentions: list[Mention] = field(default_factory=list)     # referents, as mentions of their type
    task: Task | None = None
    flow: CompiledFlow | None = None
    trigger: str | None = None
    updates: dict[str, Any] = field(default_factory=dict)           # slot values this transition applies
    prefilled: list[str] = field(default_factory=list)
    say: list[str] = field(default_factory=list)
    said: dict[str, str] = field(default_factory=dict)              # a completed task's outcome, per language
    action_runs: list[ActionRun] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    memory_run: list[str] = field(default_factory=list)
    tracked: bool = False
    clarification: PendingClarification | None = None
    ended_task: Task | None = None
    ended_by: str | None = None
    options: list[str] = field(default_factory=list)
    llm_deadline: float | None = None                               # monotonic time the turn's LLM calls end
    proposed: list[Command] = field(default_factory=list)           # the LLM's commands that stand (rules.proposed)
    meant_for_removed_task: bool = False                            # answered a task whose flow a new bot file removed
    explained: list[Explanation] = field(default_factory=list)      # why: each decision, in order (reply.explain)
    value_rules: dict[str, str] = field(default_factory=dict)       # slot -> the step that put its value in the offer

    def __init__(self, *, txn: StoreTxn, session: Session, text: str, interp: Interpretation, language: str,
                 turn: int, now: float, user_key: str = "", trace: bool = False, log_turn: bool = False) -> None:
        self.txn, self.session, self.text, self.interp, self.language = txn, session, text, interp, language
        self.turn, self.now, self.user_key, self.trace, self.log_turn = turn, now, user_key, trace, log_turn
        self.resolution = self.resolved_text = self.task = self.flow = self.trigger = None
        self.clarification = self.ended_task = self.ended_by = self.llm_deadline = None
        self.tracked = self.meant_for_removed_task = False
        self.bound_mentions, self.prefilled, self.say, self.action_runs, self.transitions = [], [], [], [], []
        self.memory_run, self.options, self.proposed, self.explained = [], [], [], []
        self.updates, self.said, self.value_rules = {}, {}, {}

    def explain(self, rule: str, did: str, words: str | None = None) -> None:
        """Record a decision of this turn; ``words`` are the user's, found in the text for their span."""
        self.explained.append(Explanation.read(rule, did, words, self.interp.text))

    def fire(self, trigger: str) -> None:
        """Fire ``trigger`` on the active flow's shared machine for this turn's task."""
        task, flow = self.task, self.flow
        assert task is not None and flow is not None
        self.trigger = trigger
        before = task.state
        task.state = flow.fire(trigger, before, self)
        self.transitions.append(trigger)
        if self.trace:
            log.debug("transition", session_id=self.session.id, flow=flow.name, trigger=trigger,
                      source=before, dest=task.state, memory_actions=flow.memory.get(trigger, []))
