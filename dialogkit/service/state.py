"""What one app serves from: the bot, its settings, and what the server counts and remembers.

Routes reach it through ``service_of(request)``; the turn routes run turns through ``Service.turn``,
which is where latency, metrics and the last turn are recorded, once, for the JSON API and the
Rasa channel alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from starlette.requests import Request

from dialogkit.errors import DialogkitError, SessionOwnerError, StoreError
from dialogkit.logging import get_logger
from dialogkit.model.reply import Reply
from dialogkit.service.admission import DEFAULT_MAX_TURNS, QUEUE_BUDGET_S
from dialogkit.service.errors import ApiError
from dialogkit.service.guard import MAX_BODY_BYTES
from dialogkit.service.inspection import sensitive_names
from dialogkit.service.keys import ApiKey
from dialogkit.service.last_turns import LastTurns
from dialogkit.service.metrics import Metrics
from dialogkit.service.rates import NO_LIMITS, Limits

if TYPE_CHECKING:
    from dialogkit.bot import Bot

__all__ = ["Service", "ServiceSettings", "service_of"]

log = get_logger("dialogkit.service")


_OWNER_HINT = ("a session bound to a user takes only turns naming that user (with a key that has the 'users' "
               "scope); start a new session id otherwise")


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """How an app serves its bot; ``dialogkit serve`` fills it from its options."""

    token: str | None = None               # a key with every scope (docs/serving.md, "Keys and scopes")
    keys: tuple[ApiKey, ...] = ()          # none, and no token: an open server, where no turn names a user
    widget_origins: tuple[str, ...] = ()   # other sites whose pages may open /v1/ws and call the API (CORS); "*": any
    max_body: int = MAX_BODY_BYTES
    reload: bool = False                   # watch the bot file and reload it when it changes
    reload_interval_s: float = 1.0
    close_bot: bool = False                # the app owns the bot: close it when the app stops
    freeze_gc: bool = False                # a server process: what is loaded at start is never collected
    max_turns_in_flight: int = DEFAULT_MAX_TURNS   # turns one app runs at once; 0: no limit
    queue_budget_s: float = QUEUE_BUDGET_S  # then a queue that drains in this long at the measured pace; then 503
    admission_clock: Callable[[], float] | None = None   # times that pace (tests)
    limits: Limits = NO_LIMITS            # rate limits per key and per session (docs/serving.md); none here
    limits_clock: Callable[[], float] | None = None   # times the rate limits' buckets (tests)


@dataclass
class Service:
    bot: Bot
    settings: ServiceSettings
    metrics: Metrics = field(default_factory=Metrics)
    last_turns: LastTurns = field(default_factory=LastTurns)
    _version: str | None = None
    _hidden: frozenset[str] = frozenset()
    _action_flows: dict[str, str] = field(default_factory=dict)

    @property
    def hidden(self) -> frozenset[str]:
        """The bot's sensitive slot names (read again after a reload)."""
        self._refresh()
        return self._hidden

    def _refresh(self) -> None:
        version = self.bot.loaded.version
        if version != self._version:
            self._hidden = sensitive_names(self.bot)
            self._action_flows = {flow.execute.action: name for name, flow in self.bot.spec.flows.items()
                                  if flow.execute.action}
            self._version = version

    def flow_label(self, session_id: str, reply: Reply | None) -> str:
        """The flow a turn belongs to: the active one, or the one whose action ran or which ended."""
        self._refresh()
        if reply is not None and reply.flow is not None:
            return reply.flow
        if reply is not None and reply.actions and reply.actions[-1].name in self._action_flows:
            return self._action_flows[reply.actions[-1].name]
        return self.last_turns.flow(session_id) or "none"

    async def turn(self, session_id: str, text: str, user_id: str | None) -> tuple[Reply, float]:
        """Run one turn; its reply and latency. Failures become JSON errors (503, 500)."""
        started = time.perf_counter()
        try:
            reply = await self.bot.ahandle(session_id, text, user_id=user_id)
        except Exception as exc:
            seconds = time.perf_counter() - started
            self.metrics.turn_failed(self.flow_label(session_id, None), seconds)
            if isinstance(exc, StoreError):
                raise
            if isinstance(exc, SessionOwnerError):
                raise ApiError(409, "session_owner", str(exc), hint=_OWNER_HINT) from exc
            log.error("turn_failed", session_id=session_id, exc_info=exc)
            message = str(exc) if isinstance(exc, DialogkitError) else "the turn failed; the error is in the log"
            raise ApiError(500, "internal_error", message) from exc
        seconds = time.perf_counter() - started
        self.metrics.turn(reply, self.flow_label(session_id, reply), seconds)
        self.metrics.llm_usage(self.bot.llm)
        self.last_turns.remember(session_id, reply, seconds)
        return reply, seconds


def service_of(request: Request) -> Service:
    return cast(Service, request.app.state.service)
