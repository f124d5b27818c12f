"""The engine's parts built the way ``Bot`` wires them, but without a ``Bot``.

A unit test takes the one part it is about (the policy, the look-ahead, the memory actions...)
from ``Parts``, puts the session in the state it needs, and runs one turn's context through it
inside a real ``MemoryStore`` transaction, so it can assert on exactly what that part did.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialogkit.actions.loading import LoadedBot, load_bot_file, parse_bot_text
from dialogkit.actions.registry import ActionContext
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.memory_actions import MemoryActions
from dialogkit.engine.policy import Policy
from dialogkit.engine.slot_writes import apply_updates
from dialogkit.engine.turn import TurnContext
from dialogkit.memory import tracker
from dialogkit.model.session import Message, Session, Task, user_scope
from dialogkit.spec.compiler import Callback, CompiledFlow, compile_bot
from dialogkit.spec.schema import BotFile
from dialogkit.store import MemoryStore
from dialogkit.text.labels import Texts
from dialogkit.understanding.rules import RuleUnderstanding

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
MEETING = ROOT / "flows" / "meeting.yaml"
STUBS: dict[str, Any] = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
T0 = 1_000_000.0
"""The clock of a test turn: turn n happens at T0 + n."""


@dataclass
class Parts:
    """One bot's parts, wired as ``Bot`` wires them, over an in-memory store."""

    loaded: LoadedBot
    texts: Texts
    understanding: RuleUnderstanding
    memory: MemoryActions
    flows: dict[str, CompiledFlow]
    lookahead: LookAhead
    policy: Policy
    store: MemoryStore = field(default_factory=MemoryStore)

    @property
    def spec(self) -> BotFile:
        return self.loaded.spec

    @contextmanager
    def turn(self, session: Session, text: str, *, now: float | None = None) -> Iterator[TurnContext]:
        """The context of the session's next user turn, as ``Turns`` hands it to the policy.

        The text is understood and the user message recorded; the store transaction commits
        when the block ends, so what the turn staged (user-scoped slots) can be read back.
        """
        session.turn += 1
        interp = self.understanding.interpret(text, session.language)
        session.language = interp.language
        session.history.append(Message(role="user", content=text, turn=session.turn, language=interp.language))
        with self.store.transaction(session.id) as txn:
            yield TurnContext(txn=txn, session=session, text=text, interp=interp, language=interp.language,
                              turn=session.turn, now=T0 + session.turn if now is None else now,
                              user_key=user_scope(self.spec.bot.name, session.user_id))

    def respond(self, session: Session, text: str) -> TurnContext:
        """One turn through the policy alone: what it decided is left on the returned context."""
        with self.turn(session, text) as ctx:
            self.policy.respond(ctx)
        return ctx

    def converse(self, session: Session, text: str) -> TurnContext:
        """One turn as ``Turns`` decides it: look-ahead, policy, every-turn memory (no LLM, no save)."""
        with self.turn(session, text) as ctx:
            self.lookahead.run(ctx)
            self.policy.respond(ctx)
            for name in self.spec.bot.memory.every_turn:
                self.memory.run(name, ctx)
        return ctx

    def mentioned(self, session: Session, text: str) -> None:
        """An earlier user turn that only named things: entity memory tracks them (as track_entities does)."""
        session.turn += 1
        tracker.track_mentions(session, self.understanding.interpret(text, session.language).mentions,
                               turn=session.turn)

    def task(self, session: Session, flow: str, state: str, slots: Mapping[str, Any] | None = None,
             *, pending_slot: str | None = None) -> Task:
        """Put a task of ``flow`` in ``state`` on top of the session's stack, its slots filled."""
        task = Task(flow=flow, state=state, slots=dict(slots or {}), pending_slot=pending_slot,
                    slot_turns={name: session.turn for name in slots or {}}, started_turn=session.turn)
        session.stack.append(task)
        return task


class Recorder:
    """An action that records each call, so a test can count runs; it returns ``result`` or raises ``error``."""

    def __init__(self, result: Mapping[str, Any] | None = None, error: Exception | None = None) -> None:
        self.calls: list[ActionContext] = []
        self.result = dict(result if result is not None else {"ticket_id": "T-1001"})
        self.error = error

    def __call__(self, ctx: ActionContext) -> dict[str, Any]:
        self.calls.append(ctx)
        if self.error is not None:
            raise self.error
        return dict(self.result)


def build(source: str | Path = SUPPORT, *, actions: Mapping[str, Any] | None = None,
          base_dir: Path = ROOT) -> Parts:
    """The parts of a bot file (a path) or of inline YAML (a string, its code found under ``base_dir``)."""
    overrides = dict(STUBS if actions is None else actions)
    if isinstance(source, Path):
        loaded = load_bot_file(source, actions=overrides)
    else:
        loaded = parse_bot_text(source, base_dir=base_dir, actions=overrides)
    texts = Texts(loaded.spec)
    understanding = RuleUnderstanding(loaded.spec)
    memory = MemoryActions(texts, loaded.memory_actions)
    hooks: dict[str, list[Callback]] = {"start_task": [apply_updates], "provide_param": [apply_updates]}
    flows = compile_bot(loaded.spec, memory.callback, before_hooks=hooks)
    lookahead = LookAhead(understanding, flows, texts)
    policy = Policy(flows, texts, understanding, loaded.actions, lookahead, loaded.spec.bot)
    return Parts(loaded, texts, understanding, memory, flows, lookahead, policy)


def new_session(language: str = "en", *, session_id: str = "s", user_id: str = "u") -> Session:
    """A fresh session: IDLE, nothing remembered."""
    return Session(id=session_id, user_id=user_id, language=language, created_at=T0, updated_at=T0)
