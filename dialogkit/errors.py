"""Every error dialogkit raises on purpose.

    DialogkitError
     ├── FlowError        a bot file (or test file) is invalid: carries every Problem at once
     ├── StoreError       a session store failed (connection, corrupt row)
     ├── ActionError      an action is unknown or raised while running
     └── LLMError         the LLM endpoint failed or answered garbage; ``original`` keeps the cause

A user's mistake never surfaces as a bare traceback: the CLI renders these as text.
"""

from __future__ import annotations

from dataclasses import dataclass


class DialogkitError(Exception):
    """Base class: catch this to catch anything dialogkit raises deliberately."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a file, positioned so an editor can jump to it."""

    file: str
    line: int
    col: int
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.message}"
        return f"{text}\n    hint: {self.hint}" if self.hint else text


class FlowError(DialogkitError):
    """A bot or test file failed to load; ``problems`` lists all of them, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} found"
        super().__init__(head + ":\n" + "\n".join(str(p) for p in self.problems))


class StoreError(DialogkitError):
    """The session store could not load or save; the turn is not applied."""


class ActionError(DialogkitError):
    """An action is unknown, or raised while running (``original`` keeps the exception)."""

    def __init__(self, message: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.original = original


class LLMError(DialogkitError):
    """The LLM call failed: timeout, HTTP error, or output that did not parse.

    The bot catches it and falls back to the rule path for the turn; ``original`` is the SDK's
    exception (or None for garbage output) so callers can still inspect it.
    """

    def __init__(self, message: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.original = original


class SessionOwnerError(DialogkitError):
    """A turn named a user other than the one the session belongs to, or none for a session
    bound to a user; nothing was changed. ``anonymous``: the turn named no user."""

    def __init__(self, session_id: str, *, anonymous: bool = False) -> None:
        who = "a user: the turn must name that user" if anonymous else "another user"
        super().__init__(f"session {session_id!r} belongs to {who}; otherwise start a new session "
                         "(a session id is never shared between users)")
        self.session_id = session_id
        self.anonymous = anonymous
