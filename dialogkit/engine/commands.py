"""Commands: what understanding asks of the dialogue, and the one contract between the two.

The rule command generator (``engine.rules``) reads a turn and emits these; the processor
(``engine.policy``) applies them to the task stack and never reads the user's text. Each command
names the rule that made it (``rule``, or ``llm``) and the user's words it came from (``words``),
which is what ``reply.explain`` shows: "why did the bot do that?" has an answer per command.

They are plain dataclasses rather than pydantic models: a turn makes a handful, and
nothing outside the process parses them (the LLM's own commands, which are parsed, live in
``llm.commands``). Nothing changes one once made, but they are not ``frozen``: a frozen
dataclass sets each field through ``object.__setattr__``, which made building them a visible
part of a turn; ``unsafe_hash`` keeps the hash and equality frozen ones had.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dialogkit.engine.slot_layout import SlotOffer
    from dialogkit.memory.references import Ambiguity
    from dialogkit.model.interpretation import Mention
    from dialogkit.model.session import Candidate, PendingClarification

__all__ = [
    "AnswerFaq", "Cancel", "Choose", "Clarify", "Command", "Confirm", "Deny", "Farewell", "Forget", "Greet", "Help",
    "KeepQuestion", "NotUnderstood", "Note", "SetSlots", "StartFlow",
]


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Command:
    """One step the dialogue is asked to take; ``rule`` made it from ``words``."""

    rule: str
    words: str | None = None


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class StartFlow(Command):
    """Start (or digress into) ``flow``."""

    flow: str


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class SetSlots(Command):
    """Write the values the turn offers the active task (``SetSlot`` and ``CorrectSlot`` for each
    slot in it, kept together: the processor validates them as one answer). An empty offer is an
    answer that gave nothing; ``message`` is then the slot's rule it breaks, if any.

    The LLM's values come as these too, one per value it proposed (rule ``llm``): ``flow`` is the
    flow it meant them for, and ``correction`` says it called the value a correction, which alone
    lets it change a value the task holds."""

    offer: SlotOffer
    message: str | None = None
    task: str | None = None         # the id of a waiting task the values are kept for (None: the active one)
    flow: str | None = None         # the flow the values are for (None: the active task's)
    correction: bool = False


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Cancel(Command):
    """Give up the active task; with none, there is nothing to cancel."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Confirm(Command):
    """Yes to the confirmation: run the task's action."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Deny(Command):
    """No to the confirmation: ask what to change."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Forget(Command):
    """Forget the last turn (``slots`` empty) or the values of the slots named."""

    slots: tuple[str, ...] = ()


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class AnswerFaq(Command):
    """Answer the FAQ entry ``entry``; a task in progress asks its question again."""

    entry: str


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Clarify(Command):
    """Ask which referent is meant: a reference that points at more than one thing."""

    ambiguity: Ambiguity


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Choose(Command):
    """An answer to the pending clarification: ``choice`` among its candidates."""

    pending: PendingClarification
    choice: Candidate


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class KeepQuestion(Command):
    """A turn that does not answer the pending clarification and asks nothing new: reply to it
    (``reply``: help, greeting, an FAQ or not understood) and ask the question again."""

    pending: PendingClarification
    reply: str                      # help | greeting | faq | not_understood
    entry: str | None = None        # the FAQ entry answered (``reply`` faq)


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Greet(Command):
    """Greet back and say what the bot can do."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Farewell(Command):
    """Say goodbye. A task under way stays as it is, its question pending: the user may come back."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Help(Command):
    """Say what the bot can do (inside a task: and ask its question again)."""


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Note(Command):
    """Facts offered with no request: acknowledge the things named. ``asked``: the turn asks about
    them ("is there a two-bedroom?"), so they are no values to keep for the next turn's flow."""

    mentions: tuple[Mention, ...]
    asked: bool = False


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class NotUnderstood(Command):
    """Nothing the bot can act on (``empty``: no text at all); ``message`` says why, when a rule
    refused what was said."""

    empty: bool = False
    message: str | None = None
