"""The data one turn carries through the pipeline and into the machines' callbacks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dialogkit.errors import DialogkitError
from dialogkit.model.reply import ActionRun
from dialogkit.model.session import PendingClarification, Session, Task
from dialogkit.model.interpretation import Interpretation, Mention

if TYPE_CHECKING:
    from dialogkit.spec.compiler import CompiledFlow
    from dialogkit.memory.references import Resolution
    from dialogkit.bot import Bot
    from dialogkit.store.base import StoreTxn


class ClarificationNeeded(DialogkitError):
    """Raised by ``resolve_references`` to stop a transition: the bot must ask which one was meant."""

    def __init__(self, pending: PendingClarification) -> None:
        super().__init__("clarification needed")
        self.pending = pending


@dataclass(slots=True)
class TurnContext:
    bot: Bot
    txn: StoreTxn
    session: Session
    text: str
    interp: Interpretation
    language: str
    turn: int
    resolution: Resolution | None = None
    resolved_text: str | None = None
    bound_mentions: list[Mention] = field(default_factory=list)   # referents, as mentions of their type
    forced: dict[str, Any] = field(default_factory=dict)        # a clarification's answer: expression -> entity id
    task: Task | None = None
    flow: CompiledFlow | None = None
    trigger: str | None = None
    updates: dict[str, Any] = field(default_factory=dict)          # slot values this transition applies
    prefilled: list[str] = field(default_factory=list)
    say: list[str] = field(default_factory=list)
    action_runs: list[ActionRun] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    memory_run: list[str] = field(default_factory=list)
    tracked: bool = False
    clarification: PendingClarification | None = None
    ended_task: Task | None = None
    ended_by: str | None = None
    options: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
