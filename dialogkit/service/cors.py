"""CORS: which other sites' pages may call the HTTP API from a browser (docs/serving.md, "CORS").

A chat widget served from ``https://shop.example`` that posts turns to the bot's server on another
origin needs the server's leave: the browser first asks (a preflight ``OPTIONS``, with no key) and
sends the request only if the answer names its origin. The origins are the ones the widget's
WebSocket accepts (``DIALOGKIT_WIDGET_ORIGINS``, ``--allow-origin``): one list of the sites a
page of which may talk to the bot. None: no other site may (the default).
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

__all__ = ["PREFLIGHT_MAX_AGE_S", "allow_origins"]

PREFLIGHT_MAX_AGE_S = 600
"""How long a browser may reuse a preflight's answer: one preflight per ten minutes, not per turn."""


def allow_origins(app: FastAPI, origins: tuple[str, ...]) -> None:
    """Answer preflights from ``origins`` (``*``: any) and let their pages read the answers; added
    last, so it runs first: a preflight carries no key, and a refusal (401, 429) still reaches the
    page with its code and ``Retry-After``. Keys travel in ``Authorization``, never in cookies, so
    no credentials are allowed."""
    if not origins:
        return
    app.add_middleware(CORSMiddleware, allow_origins=list(origins), allow_methods=["GET", "POST", "DELETE"],
                       allow_headers=["authorization", "content-type"], expose_headers=["retry-after"],
                       max_age=PREFLIGHT_MAX_AGE_S)
