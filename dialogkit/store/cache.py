"""The sessions this process committed last, so the next turn of one can skip decoding it.

Decoding the session is the largest part of a turn's store cost; a store that can read back a
cheap revision token of a session (the SQLite store: a random ``rev`` per commit) reuses the
object it committed when the token still matches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from dialogkit.model.session import Session

__all__ = ["SessionCache"]


class SessionCache:
    """Committed sessions keyed by id, with the revision they were saved as; least recent dropped first.

    A turn takes its session out (so a turn that fails leaves nothing stale behind) and, if the
    stored revision is still the one it committed, reuses the object instead of decoding it again.
    The object handed to ``save`` is taken over by the store; the runtime never touches it after
    the turn.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[str, tuple[int, Session]] = OrderedDict()
        self._guard = threading.Lock()

    def take(self, session_id: str) -> tuple[int, Session] | None:
        with self._guard:
            return self._items.pop(session_id, None)

    def keep(self, session_id: str, rev: int, session: Session, history_tail: int | None) -> None:
        """Remember ``session`` as committed with ``rev``, its history cut to what a load would return."""
        if history_tail is not None and len(session.history) > history_tail:
            drop = len(session.history) - history_tail
            del session.history[:drop]
            session.history_offset += drop
        with self._guard:
            self._items[session_id] = (rev, session)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
