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

    Bounded by bytes as well as entries: a count alone lets a few long sessions (entity memory,
    summary, a long history tail) hold tens of megabytes. A session weighs what its committed row
    weighs (the encoded bytes the commit wrote anyway, so no extra work per turn); the live object
    is about seven times that. The default keeps about 200 sessions of a short task (2.5 KB rows,
    3-4 MB live), more than the sessions a busy process has turns in flight for; an older one is
    decoded again on its next turn.
    """

    def __init__(self, size: int = 512, max_bytes: int = 512 << 10) -> None:
        self._size = size
        self._max_bytes = max_bytes
        self._bytes = 0
        self._items: OrderedDict[str, tuple[int, Session, int]] = OrderedDict()
        self._guard = threading.Lock()

    def take(self, session_id: str) -> tuple[int, Session] | None:
        with self._guard:
            item = self._items.pop(session_id, None)
            if item is None:
                return None
            self._bytes -= item[2]
        return item[0], item[1]

    def keep(self, session_id: str, rev: int, session: Session, history_tail: int | None, weight: int = 0) -> None:
        """Remember ``session`` as committed with ``rev``, its history cut to what a load would return;
        ``weight`` is its encoded size in bytes (one bigger than the whole budget is not kept)."""
        if weight > self._max_bytes:
            return
        if history_tail is not None and len(session.history) > history_tail:
            drop = len(session.history) - history_tail
            del session.history[:drop]
            session.history_offset += drop
        with self._guard:
            old = self._items.pop(session_id, None)
            self._bytes += weight - (old[2] if old is not None else 0)
            self._items[session_id] = (rev, session, weight)
            while len(self._items) > self._size or self._bytes > self._max_bytes:
                self._bytes -= self._items.popitem(last=False)[1][2]

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        """The summed weight of the sessions held (for tests and figures)."""
        return self._bytes
