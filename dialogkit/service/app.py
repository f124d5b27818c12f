"""``create_app(bot)``: the ASGI app that serves one bot (docs/serving.md).

Built around a ready ``Bot`` so tests and embedding applications pass theirs (any store, stub
actions, a fake clock); ``dialogkit serve`` builds the bot from the command line's options in
each worker (``dialogkit.service.server``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from dialogkit.engine.async_turns import runner_of
from dialogkit.service import api_sessions, api_users, operations, rasa, widget
from dialogkit.service.admission import Admission
from dialogkit.service.cors import allow_origins
from dialogkit.service.errors import install_error_handlers
from dialogkit.service.guard import Guard
from dialogkit.service.keys import with_token
from dialogkit.service.limits import RateLimit, limiter_for
from dialogkit.service.operations import STATIC_DIR
from dialogkit.service.responses import Json
from dialogkit.service.state import Service, ServiceSettings
from dialogkit.service.turn_route import TurnRoute
from dialogkit.service.watch import watch_bot_file

if TYPE_CHECKING:
    from dialogkit.bot import Bot

__all__ = ["create_app"]

DRAIN_S = 30.0             # how long a stopping app waits for turns still running before closing the bot
DESCRIPTION = ("Run turns of a dialogkit bot, look at what its sessions remember, export or forget a user's "
               "data. Rasa's REST channel at `/webhooks/rest/webhook`, Prometheus at `/metrics`, "
               "the inspector page at `/`.")


def create_app(bot: Bot, settings: ServiceSettings | None = None) -> FastAPI:
    """The app serving ``bot``: the JSON API, the Rasa channel, metrics and the inspector page."""
    settings = settings or ServiceSettings()
    service = Service(bot, settings)
    app = FastAPI(title=f"dialogkit: {bot.spec.bot.name}", description=DESCRIPTION, version=bot.loaded.version,
                  default_response_class=Json, lifespan=_lifespan(service))
    app.state.service = service
    install_error_handlers(app, service.metrics.error)
    app.state.limiter = limiter_for(bot.store, settings.limits, settings.keys, settings.limits_clock)
    app.add_middleware(TurnRoute, service=service)      # innermost: behind the guard and the rate limits
    app.add_middleware(RateLimit, limiter=app.state.limiter, count=service.metrics.error)   # behind the guard
    app.state.admission = _admission(settings)
    app.add_middleware(Guard, keys=with_token(settings.keys, settings.token), max_body=settings.max_body,
                       count=service.metrics.error, admission=app.state.admission)
    allow_origins(app, settings.widget_origins)
    for module in (api_sessions, api_users, rasa, widget, operations):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    return app


def _admission(settings: ServiceSettings) -> Admission:
    """The app's limit of turns in flight (docs/serving.md, "Load shedding")."""
    clock = {"clock": settings.admission_clock} if settings.admission_clock is not None else {}
    return Admission(settings.max_turns_in_flight, budget_s=settings.queue_budget_s, **clock)


GC_YOUNG_THRESHOLD = 20_000
"""Allocations between collections of the youngest generation (Python's default: 700). A turn
allocates thousands of short-lived objects; collecting after every 700 cost a server measurable CPU."""


def _settle_gc() -> None:
    """A server process, loaded: what it holds now (the bot, its compiled flows, the token
    encoding's large tables) lives as long as the process, so the collector should stop
    walking it. Frozen, it is never scanned again; with the youngest generation collected
    less often, bench/serve.py measured ~15% less worker CPU a turn and a lower p99."""
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, oldest)


def _lifespan(service: Service) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """Before the first request, load the token encoding (about 0.15 s, else paid by the first
    turn), settle the collector in a server process, and start the bot file's watch
    (``--reload``); at the end stop it and, when the app owns
    the bot, close it (its store and LLM client) once every turn has finished."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(service.bot.view.counter.count_message, "user", "warm up / 预热")
        if service.settings.freeze_gc:
            _settle_gc()
        watcher: asyncio.Task[Any] | None = None
        if service.settings.reload:
            watcher = asyncio.create_task(watch_bot_file(service.bot, service.settings.reload_interval_s))
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            if service.settings.close_bot:
                await runner_of(service.bot).wait_idle(DRAIN_S)   # turns whose caller left finish first
                aclose = getattr(service.bot.store, "aclose", None)   # the store's asyncio client (Redis)
                if aclose is not None:
                    await aclose()
                await asyncio.to_thread(service.bot.close)

    return lifespan
