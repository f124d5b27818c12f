"""What the last turn of each session did, as this process saw it (the session JSON's ``last_turn``).

The trigger, memory actions, latency and explanation of a turn are in its reply, not in the stored session,
so the server keeps the last one per session, for the most recent sessions only: a bounded map
in least-recently-used order. Another worker's turns are not seen; a restart forgets them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from dialogkit.model.reply import Reply

__all__ = ["LastTurns"]


class LastTurns:
    """The last turn of up to ``limit`` sessions."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._turns: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def remember(self, session_id: str, reply: Reply, seconds: float) -> None:
        self._turns.pop(session_id, None)
        self._turns[session_id] = {
            "trigger": reply.trigger, "transitions": list(reply.transitions),
            "memory_actions": list(reply.memory_actions), "actions": [run.name for run in reply.actions],
            "latency_ms": round(seconds * 1000, 2), "state": reply.state, "flow": reply.flow,
            "explain": [record.as_json() for record in reply.explain],
        }
        if len(self._turns) > self.limit:
            self._turns.popitem(last=False)

    def get(self, session_id: str) -> dict[str, Any] | None:
        found = self._turns.get(session_id)
        return dict(found) if found is not None else None

    def flow(self, session_id: str) -> str | None:
        """The flow the session was in after its last turn seen here."""
        found = self._turns.get(session_id)
        return found["flow"] if found is not None else None

    def forget(self, session_id: str) -> None:
        self._turns.pop(session_id, None)
