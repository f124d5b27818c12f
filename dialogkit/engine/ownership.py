"""A session belongs to the user who started it.

Another ``user_id`` on an existing session never re-owns it: the session's slots and the values
persisted for its user would otherwise become the newcomer's (docs/behaviours.md, sessions). The
API raises ``SessionOwnerError``; ``dialogkit chat`` starts a fresh session instead.
"""

from __future__ import annotations

from dialogkit.errors import SessionOwnerError
from dialogkit.model.session import Session

__all__ = ["SessionOwnerError", "check_owner"]


def check_owner(session: Session, user_id: str | None) -> None:
    """Raise ``SessionOwnerError`` when ``user_id`` is given and is not the session's user."""
    if user_id and session.user_id != user_id:
        raise SessionOwnerError(session.id)
