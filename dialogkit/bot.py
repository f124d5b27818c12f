"""``Bot``: the front door. It wires a loaded bot file to its parts and answers the public API.

Nothing inside dialogkit imports this module: every part receives what it uses when the bot is
built here, so each can be read and tested on its own (see the architecture section of README.md).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dialogkit.actions.loading import LoadedBot, load_bot_file
from dialogkit.context.parts import BuiltContext, ContextMessage
from dialogkit.engine.context_view import ContextView
from dialogkit.engine.lookahead import LookAhead
from dialogkit.engine.memory_actions import MemoryActions
from dialogkit.engine.migration import migrate_session
from dialogkit.engine.pipeline import Clock, Turns
from dialogkit.engine.policy import Policy
from dialogkit.engine.slot_writes import apply_updates
from dialogkit.errors import DialogkitError
from dialogkit.logging import configure_unless_configured, get_logger
from dialogkit.memory.summary import render_summary
from dialogkit.model.reply import Reply
from dialogkit.model.session import Entity, Message, Session, user_scope
from dialogkit.spec import build_cache
from dialogkit.spec.compiler import Callback, compile_bot
from dialogkit.store import SessionStore, open_store
from dialogkit.strings.redaction import Redactor, mask_pii
from dialogkit.text.labels import Texts
from dialogkit.understanding.intents import example_reader
from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["Bot", "SessionView"]

log = get_logger("dialogkit.bot")


@dataclass(slots=True)
class SessionView:
    """A read-only look at one session (``bot.session(id)``)."""

    id: str
    user_id: str | None              # None: an anonymous session
    state: str
    flow: str | None
    slots: dict[str, Any]
    summary: str
    entities: list[Entity]
    stack: list[str]
    language: str
    pending: list[Any] | None
    history: list[Message] = field(default_factory=list)
    data: Session | None = None


@contextmanager
def collection_paused() -> Iterator[None]:
    """No garbage collection while a bot loads: a catalogue's values make hundreds of thousands of
    objects, none in a cycle, and each full collection walked them all again (a third of the time
    of loading 50,000 values). The collector runs as before once the bot is built."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Bot:
    """A loaded bot: compiled flows, understanding, store, actions; ``handle`` runs one turn."""

    def __init__(self, loaded: LoadedBot, store: SessionStore, *, llm: Any = None, clock: Clock = time.time,
                 understanding: RuleUnderstanding | None = None) -> None:
        configure_unless_configured()
        self.store = store
        self.clock = clock
        self._llm_given = llm
        self._actions_given: Mapping[str, Any] | None = None     # ``from_file(actions=)``, applied again by reload
        self._wire(loaded, understanding)

    def _wire(self, loaded: LoadedBot, understanding: RuleUnderstanding | None = None) -> None:
        """Build every part from one loaded bot file, the pipeline last (the understanding may
        come built, from the cache, for ``loaded.spec`` and this bot's clock).

        ``__init__`` and ``reload`` share it, so a reloaded bot is wired exactly as a new one; a
        turn already running keeps the parts it started with.
        """
        self.loaded = loaded
        self.spec = spec = loaded.spec
        self.path = loaded.path
        self.actions = loaded.actions
        self.texts = Texts(spec)
        self.understanding = understanding or RuleUnderstanding(spec, clock=self.clock)
        self.memory = MemoryActions(self.texts, loaded.memory_actions)
        hooks: dict[str, list[Callback]] = {"start_task": [apply_updates], "provide_param": [apply_updates]}
        self.flows = compile_bot(spec, self.memory.callback, before_hooks=hooks)
        self.view = ContextView(spec, self.texts, self.understanding)
        self.llm_layer = self._llm_layer(self._llm_given)
        self.llm = self.llm_layer.client if self.llm_layer is not None else None
        lookahead = LookAhead(self.understanding, self.flows, self.texts)
        self.policy = Policy(self.flows, self.texts, self.understanding, self.actions, lookahead, spec.bot)
        self.turns = Turns(spec, self.store, self.understanding, self.flows, self.policy, lookahead, self.memory,
                           self.view, self.llm_layer, self.clock, version=loaded.version, texts=self.texts,
                           validator=self.actions.validate)

    def _llm_layer(self, llm: Any) -> Any:
        """The LLM layer, or None for a rule-based bot; its client stack loads only when one is set."""
        if llm is None and self.spec.llm is None:
            return None
        from dialogkit.engine.llm_layer import LLMLayer

        return LLMLayer.create(self.spec, self.understanding, self.view, self.actions.validate, llm)

    @classmethod
    def from_file(cls, path: str | Path, *, store: str | SessionStore | None = None, llm: Any = None,
                  actions: Mapping[str, Any] | None = None, clock: Clock = time.time, cache: bool = True) -> Bot:
        """Load the bot file at ``path``. Its checked values and built understanding are kept in
        ``.dialogkit/cache/`` beside it and read back while the files stay the same, unless
        ``cache`` is False or ``DIALOGKIT_CACHE=0`` (docs/bot-file.md)."""
        live = build_cache.Live({"clock": clock}, {"example_reader.<locals>.read": example_reader})
        with collection_paused(), build_cache.caching(path, live, requested=cache) as build:
            loaded = load_bot_file(path, actions=actions)
            opened = store if store is not None and not isinstance(store, str) else open_store(store)
            cached = build.found.get("understanding") if build is not None else None
            fits = isinstance(cached, RuleUnderstanding) and cached.spec is loaded.spec
            bot = cls(loaded, opened, llm=llm, clock=clock, understanding=cached if fits else None)
            if build is not None and "checked" in build.built:
                build.built["understanding"] = bot.understanding
                build.save()
        bot._actions_given = actions
        return bot

    def reload(self) -> bool:
        """Read the bot file again and run it from the next turn on; sessions stay in the store.

        A file that no longer loads raises its ``FlowError`` (every problem, as ``from_file`` does)
        and the bot keeps running the file it had. True when the file's version changed; a file
        that means the same as before (a comment, formatting) changes nothing. Stored sessions are
        brought up to date on their next turn (docs/lifecycle.md); the actions module is not
        imported again.
        """
        if self.path is None:
            raise DialogkitError("this bot was not loaded from a file: there is nothing to reload")
        with collection_paused():
            loaded = load_bot_file(self.path, actions=self._actions_given)
        before, old_layer = self.loaded.version, self.llm_layer
        if loaded.version == before:
            return False
        wired = dict(vars(self))
        try:
            with collection_paused():
                self._wire(loaded)
        except BaseException:
            vars(self).update(wired)          # a part that failed to build leaves the old bot whole
            raise
        if old_layer is not None and (self.llm_layer is None or self.llm_layer.client is not old_layer.client):
            old_layer.close()
        log.info("bot_reloaded", path=str(self.path), from_version=before, to_version=loaded.version)
        return True

    def close(self) -> None:
        try:
            self.store.close()
        finally:
            if self.llm_layer is not None:
                self.llm_layer.close()

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the turn -----------------------------------------------------------------------------
    def handle(self, session_id: str, text: Any, *, user_id: str | None = None) -> Reply:
        """Run one user turn and return the bot's reply."""
        return self.turns.handle(str(session_id), text, user_id=user_id)

    # ---- inspection -------------------------------------------------------------------------
    def session(self, session_id: str) -> SessionView:
        data = self.store.load(str(session_id), history_tail=None)
        if data is None:
            raise DialogkitError(f"no session {session_id!r} in {self.store.url}")
        data = self._current(data)
        stored = {} if data.user_id is None else (                # anonymous: no user's values
            self.store.user_slots(user_scope(self.spec.bot.name, data.user_id)) or self.store.user_slots(data.user_id))
        slots: dict[str, Any] = {name: p.value for name, p in stored.items()}
        slots.update({name: p.value for name, p in data.session_slots.items()})
        if data.task is not None:
            slots.update(data.task.slots)
        pending = [c.value for c in data.pending.candidates] if data.pending else None
        return SessionView(
            id=data.id, user_id=data.user_id, state=data.state, flow=data.flow, slots=slots,
            summary=render_summary(data.summary, data.language), entities=list(data.entities),
            stack=[t.flow for t in data.stack], language=data.language, pending=pending,
            history=list(data.history), data=data,
        )

    def _load(self, session_id: str) -> Session:
        data = self.store.load(str(session_id), history_tail=self.view.history_tail)
        if data is None:
            raise DialogkitError(f"no session {session_id!r} in {self.store.url}")
        return self._current(data)

    def _current(self, data: Session) -> Session:
        """A stored session as this version of the bot file sees it: brought up to date in memory
        only (the store keeps it as saved until its next turn migrates it for good)."""
        if data.bot_version != self.loaded.version:
            migrate_session(data, self.spec, self.texts, self.actions.validate)
        return data

    def build_context(self, session_id: str) -> BuiltContext:
        """The ``BuiltContext`` an LLM would receive now (messages plus the accounting)."""
        return self.view.build(self._load(session_id))

    def context(self, session_id: str, *, raw: bool = False) -> list[ContextMessage]:
        """The messages an LLM would receive now: role, content, priority, tokens. Phone numbers
        and e-mail addresses are masked the way logs mask them, unless ``raw``."""
        messages = self.build_context(session_id).messages
        return list(messages) if raw else [replace(m, content=mask_pii(m.content)) for m in messages]

    def output_redactor(self, session_id: str) -> Redactor:
        """Masks the session's sensitive values (``redactor(text)``; ``mask_deep(document, redactor)``
        for a whole document) in whatever is shown of it outside the turn (docs/serving.md,
        "Sensitive values")."""
        return self.view.output_redactor(self._load(session_id))

    def stats(self, session_id: str) -> dict[str, Any]:
        """full_tokens, sent_tokens, saved_tokens, saved_pct, messages, summary_chars, and more;
        ``stats["llm"]["mode"]`` is the structured-output mode negotiated with the LLM server."""
        stats = self.view.stats(self._load(session_id))
        stats["llm"]["mode"] = self.llm.mode if self.llm is not None else None
        return stats

    def export_context(self, session_id: str, *, raw: bool = False) -> str:
        """What ``/export FILE`` writes: each message, then ``Token saved: N (P%)``; phone numbers
        and e-mail addresses masked unless ``raw``."""
        text = self.view.export(self._load(session_id))
        return text if raw else mask_pii(text)

    # ---- users' data and retention (docs/stores.md) ---------------------------------------------
    def export_user(self, user_id: str, *, reveal_sensitive: bool = False) -> dict[str, Any]:
        """Everything stored about a user for this bot, as one JSON-serialisable document. Values of
        ``sensitive: true`` slots are masked unless ``reveal_sensitive``: the copy an application
        hands to the user it has identified (docs/stores.md, "Users' data and retention")."""
        from dialogkit.engine import users

        return users.export_user(self.store, self.spec.bot.name, self.texts, str(user_id), self.clock(),
                                 view=None if reveal_sensitive else self.view)

    def forget_user(self, user_id: str) -> dict[str, int]:
        """Delete everything stored about a user; counts of the sessions, messages and values deleted."""
        from dialogkit.engine import users

        return users.forget_user(self.store, self.spec.bot.name, str(user_id))

    def purge(self) -> dict[str, int]:
        """Delete what ``bot.retention`` and ``session_timeout`` say is over, by the bot's clock."""
        from dialogkit.engine import users

        settings = self.spec.bot
        return users.purge(self.store, settings.name, retention_s=settings.retention_seconds,
                           timeout_s=settings.timeout_seconds, now=self.clock())

    # ---- the turn, on an event loop (docs/serving.md) -----------------------------------------
    async def ahandle(self, session_id: str, text: Any, *, user_id: str | None = None) -> Reply:
        """The async twin of ``handle``, with the same reply. Over Redis the turn awaits the store and
        the LLM (summaries too) on the loop, and only its rules' step (actions, memory actions) goes
        to the turn pool; over other stores the whole turn runs in the pool. Either way the loop is
        never blocked, and two calls for one session never interleave."""
        from dialogkit.engine.async_turns import runner_of

        return await runner_of(self).handle(str(session_id), text, user_id=user_id)
