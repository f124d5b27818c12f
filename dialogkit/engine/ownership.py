"""Whose a session is: the user a turn names, never the session's own id.

A turn without ``user_id`` is anonymous: it reads and writes no user's values, so an anonymous
session whose id happens to be a user's id learns nothing of that user (docs/stores.md, "Whose
values a session sees"). A session bound to a user stays theirs: a turn without that user, or
with another, raises ``SessionOwnerError`` and changes nothing (the API answers 409; ``dialogkit
chat`` starts a fresh session instead). An anonymous session is taken by the first turn that
names a user (a visitor who signs in mid-conversation keeps the conversation).
"""

from __future__ import annotations

from dialogkit.errors import SessionOwnerError
from dialogkit.model.session import SCHEMA_VERSION, Session

__all__ = ["SessionOwnerError", "bind", "is_ambiguous"]


def bind(session: Session, user_id: str | None) -> None:
    """Give the turn's user the session: an anonymous one becomes theirs; one bound to someone
    (else, or to a user while the turn names none) raises ``SessionOwnerError``."""
    if session.user_id is None:
        session.user_id = user_id
    elif session.user_id != user_id:
        raise SessionOwnerError(session.id, anonymous=user_id is None)


def is_ambiguous(session: Session) -> bool:
    """Whether a session stored by a version before 2 may have been anonymous: those took the
    session id as the user when a turn named none, so a stored user equal to the session's own id
    is either an anonymous session or a user who chose their id as the session id.

    Such a session goes on only for a turn naming that user; a turn without a user starts it
    afresh, anonymous (its state and that user's values could be the user's); another user is
    refused, as for any session of someone else.
    """
    return session.version < SCHEMA_VERSION and session.user_id == session.id
