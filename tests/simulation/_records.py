"""Hand-made turns for the invariant tests: a reply, the snapshots around it, what was said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialogkit.model.reply import ActionRun, Reply
from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.invariants import Judge, bot_facts
from dialogkit.simulation.observation import Snapshot, TurnRecord
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.utterances import Utterance
from dialogkit.simulation.values import Said
from dialogkit.spec.loader import check_bot_file
from dialogkit.spec.schema import BotFile

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
MEETING = ROOT / "flows" / "meeting.yaml"
TRANSFER = ROOT / "tests" / "conversations" / "bots" / "transfer.yaml"
RESTAURANT = ROOT / "tests" / "conversations" / "bots" / "restaurant.yaml"
BANK_CARD = ROOT / "tests" / "conversations" / "bots" / "bank_card.yaml"
CAR_RENTAL = ROOT / "tests" / "conversations" / "bots" / "car_rental.yaml"   # "SUV" is its zh label too
"""A bot written from the README by a new user: a card pattern read only in context ("尾号1234", or a
number said alone), and flow descriptions that hold value words ("Report a lost or stolen card")."""


def spec(path: Path) -> BotFile:
    checked = check_bot_file(path)
    assert checked.spec is not None, checked.problems
    return checked.spec


def catalog(path: Path = SUPPORT) -> Catalog:
    return Catalog(spec(path))


def reply(text: str, *, state: str = "IDLE", flow: str | None = None, slots: dict[str, Any] | None = None,
          language: str = "zh", clarification: list[Any] | None = None, actions: list[ActionRun] | None = None,
          summary: str = "") -> Reply:
    return Reply(text=text, state=state, flow=flow, slots=dict(slots or {}), session_id="s", language=language,
                 clarification=clarification, actions=list(actions or []), summary=summary)


def said(text: str, canonical: Any = None, entity: str | None = None, *, valid: bool = True,
         form: str = "alias") -> Said:
    return Said(text, text if canonical is None else canonical, entity, valid, form)  # type: ignore[arg-type]


def utterance(text: str, move: str, language: str = "zh", **fields: Any) -> Utterance:
    return Utterance(text, move, language, **fields)  # type: ignore[arg-type]


def record(said_: Utterance, answer: Reply | None, *, before: Snapshot | None = None, index: int = 0,
           language: str | None = None, stack: tuple[str, ...] | None = None, pending: tuple[Any, ...] = (),
           asked: str | None = None, error: str | None = None) -> TurnRecord:
    """One turn; the snapshot after it is read off the reply."""
    before = before or Snapshot()
    if answer is None:
        after = before
    else:
        flows = stack if stack is not None else ((answer.flow,) if answer.flow else ())
        after = Snapshot(answer.state, answer.flow, dict(answer.slots), flows, pending, asked)
    return TurnRecord(index, said_, language or said_.language, before, after, answer, error)


def judge(path: Path = SUPPORT, memory: UserMemory | None = None) -> Judge:
    return Judge(bot_facts(catalog(path)), memory or UserMemory("zh"))


def remember(memory: UserMemory, *turns: TurnRecord) -> UserMemory:
    """Feed turns to the memory as a simulation does (take back, then settle)."""
    for turn in turns:
        memory.take_back(turn)
        memory.settle(turn)
    return memory
