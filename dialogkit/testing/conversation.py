"""A conversation driver for Python tests: ``Conversation(bot).say("...").expect(state=...)``.

The YAML runner is built on it, so a Python test and a YAML test check a turn the same way and
fail with the same text: the expectation that broke and the transcript so far. A conversation
opened from a file runs on a ``TestClock`` (``testing.clock``), so its dates never depend on the
day it runs.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from dialogkit.testing.cases import DEFAULT_SESSION
from dialogkit.testing.clock import TestClock, zone_of
from dialogkit.testing.expectations import Mismatch, Observation, check
from dialogkit.testing.factory import open_bot
from dialogkit.testing.logs import capture_turn_logs
from dialogkit.testing.protocols import BotFactory, BotLike, TurnObserver
from dialogkit.testing.report import format_mismatches, format_transcript
from dialogkit.testing.results import Turn

TEST_USER = "test-user"
"""The user a conversation names when its test gives none."""


class ConversationFailure(AssertionError):
    """An expectation did not hold; ``str()`` is the full report with the transcript."""

    def __init__(self, mismatches: list[Mismatch], transcript: list[Turn], step: int | None = None) -> None:
        self.mismatches = mismatches
        self.transcript = transcript
        where = f"step {step}" if step is not None else f"turn {len(transcript)}"
        super().__init__(
            f"{where}: expectations failed\n" + format_mismatches(mismatches)
            + "\ntranscript:\n" + format_transcript(transcript)
        )


class Conversation:
    """Drives one bot through a conversation as one user, across sessions and restarts.

    ``session`` names are the test's own: ``default`` is the conversation's own session and
    any other name is another session of the same user. A ``restart()`` closes the bot and
    builds a new one through ``reopen`` (the same file and store), so persisted state must
    really survive it. ``clock``: the ``TestClock`` the bot was built with; each ``say`` moves it.
    """

    def __init__(
        self,
        bot: BotLike,
        *,
        user_id: str | None = None,
        session_id: str = "test-session",
        reopen: Callable[[], BotLike] | None = None,
        capture_logs: bool = False,
        clock: TestClock | None = None,
    ) -> None:
        self.bot = bot
        self.clock = clock
        self.user_id = user_id
        self.base_session_id = session_id
        self.reopen = reopen
        self.capture_logs = capture_logs
        self.transcript: list[Turn] = []
        self.observers: list[TurnObserver] = []
        self.current_session = DEFAULT_SESSION
        self._last: dict[str, tuple[str | None, str | None]] = {}    # session -> (flow, state)
        self._restart_pending = False
        self._cleanup: Callable[[], None] | None = None

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        *,
        actions: Mapping[str, Any] | None = None,
        user_id: str | None = None,
        factory: BotFactory | None = None,
        capture_logs: bool = False,
    ) -> Conversation:
        """A conversation on a bot file with a fresh SQLite store in a temporary folder.

        The bot runs on a ``TestClock`` started at ``testing.clock.START`` in its time zone;
        ``restart()`` reloads the bot from that store (on the same clock); ``close()`` removes the folder.
        """
        folder = Path(tempfile.mkdtemp(prefix="dialogkit-test-"))
        store = f"sqlite:///{folder / 'sessions.db'}"
        build = factory or open_bot
        stubs = dict(actions or {})
        clock = TestClock()
        try:
            bot = build(Path(path), store, stubs, clock)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        clock.start(zone_of(bot))
        convo = cls(bot, user_id=user_id, reopen=lambda: build(Path(path), store, stubs, clock),
                    capture_logs=capture_logs, clock=clock)
        convo._cleanup = lambda: shutil.rmtree(folder, ignore_errors=True)
        return convo

    # -- driving -----------------------------------------------------------------------------

    def session_id(self, name: str | None = None) -> str:
        """The bot-side session id of a test-side session name."""
        name = name or self.current_session
        return self.base_session_id if name == DEFAULT_SESSION else f"{self.base_session_id}:{name}"

    def say(self, text: str, *, session: str | None = None, now: str | datetime | None = None,
            wait: float | None = None) -> Conversation:
        """Send one user turn; ``session`` switches to another session of the same user (and stays).

        ``now`` (a time, naive ones in the bot's zone) and ``wait`` (seconds) move the test clock
        before the turn, as a YAML step's ``now:`` and ``wait:`` do; without them the turn is a
        second after the last one.
        """
        if self.clock is not None:
            self.clock.before_step(now, wait)
        elif now is not None or wait is not None:
            raise RuntimeError("this conversation has no test clock: build it with clock= or Conversation.from_file")
        if session is not None:
            self.current_session = session
        sid = self.session_id()
        # A conversation is one user's: every session of it names that user, so their persisted
        # values follow them (a turn naming no user would be anonymous, and get none).
        user = self.user_id or TEST_USER
        before = self._last.get(sid, (None, "IDLE"))
        events: list[dict[str, Any]] = []
        if self.capture_logs:
            with capture_turn_logs() as events:
                reply = self.bot.handle(sid, text, user_id=user)
        else:
            reply = self.bot.handle(sid, text, user_id=user)
        turn = Turn(
            index=len(self.transcript) + 1,
            session=self.current_session,
            user=text,
            bot=str(getattr(reply, "text", reply)),
            state=getattr(reply, "state", None),
            flow=getattr(reply, "flow", None),
            slots=dict(getattr(reply, "slots", None) or {}),
            restarted=self._restart_pending,
            reply=reply,
            events=list(events),
        )
        self._restart_pending = False
        self.transcript.append(turn)
        self._last[sid] = (turn.flow, turn.state)
        for observer in self.observers:
            observer(before[0], before[1], reply, self.bot)
        return self

    def restart(self) -> Conversation:
        """Drop the bot object and load it again from the same store, as after a process restart."""
        if self.reopen is None:
            raise RuntimeError("this conversation cannot restart: build it with reopen= or Conversation.from_file")
        self.bot.close()
        self.bot = self.reopen()
        self._restart_pending = True
        return self

    # -- checking ----------------------------------------------------------------------------

    @property
    def reply(self) -> Any:
        """The reply to the last turn."""
        if not self.transcript:
            raise RuntimeError("nothing was said yet: call say() first")
        return self.transcript[-1].reply

    @property
    def events(self) -> list[dict[str, Any]]:
        """The structlog events of the last turn (needs ``capture_logs=True``)."""
        return self.transcript[-1].events if self.transcript else []

    def check(self, expect: Mapping[str, Any]) -> list[Mismatch]:
        """The mismatches of the last turn against ``expect`` (the keys of a YAML ``expect:``)."""
        return check(expect, Observation(self.reply, self.bot, self.session_id()))

    def expect(self, **expect: Any) -> Conversation:
        """Assert on the last turn; raises ``ConversationFailure`` with the transcript so far."""
        mismatches = self.check(expect)
        if mismatches:
            raise ConversationFailure(mismatches, list(self.transcript))
        return self

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        self.bot.close()
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None

    def __enter__(self) -> Conversation:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


@contextmanager
def conversation(path: str | Path, **kwargs: Any) -> Iterator[Conversation]:
    """``with conversation("bot.yaml", actions={...}) as convo:`` — closes and cleans up after."""
    convo = Conversation.from_file(path, **kwargs)
    try:
        yield convo
    finally:
        convo.close()
