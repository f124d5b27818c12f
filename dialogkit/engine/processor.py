"""What the command processor's parts share: the bot's parts and the three steps that call back up.

The processor (``engine.policy``) is split by concept: starting and ending tasks
(``task_lifecycle``), asking (``asking``), taking an answer (``answers``), forgetting
(``forgetting``). Asking a question can end a task (a confirmation-less flow runs its action
once its last slot is filled; the last failed answer gives up), and ending one can start
another, so those parts call each other in a circle. They meet here instead: each takes the
processor as a ``Processor`` and calls the steps that would close the circle through it, so
the imports point one way (``policy`` imports the parts; the parts import only this).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from dialogkit.actions.table import ActionTable
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.rules import Bot
from dialogkit.engine.turn import TurnContext
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import BotSettings
from dialogkit.text.labels import Texts

__all__ = ["Processor", "bind"]


class Processor(Protocol):
    """The processor as its parts see it."""

    flows: Mapping[str, CompiledFlow]
    texts: Texts
    actions: ActionTable
    lookahead: LookAhead
    settings: BotSettings
    bot: Bot

    def respond(self, ctx: TurnContext) -> None:
        """Decide and apply a turn (again, for a request replayed with the choice that answers it)."""

    def execute(self, ctx: TurnContext) -> None:
        """Run the active task's action and end the task."""

    def give_up(self, ctx: TurnContext, error: str | None) -> None:
        """End the active task after too many failed answers."""


def bind(flows: Mapping[str, CompiledFlow], ctx: TurnContext) -> None:
    """Point the turn at the session's active task and its flow (after the stack changed)."""
    ctx.task = ctx.session.task
    ctx.flow = flows[ctx.task.flow] if ctx.task else None
