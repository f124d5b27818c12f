"""What operators and browsers call: health, readiness, metrics, the inspector page.

``/healthz`` says the process answers; ``/readyz`` that the store answers too (a load balancer
sends turns only to a ready worker). The inspector page and its assets ship inside the package
(``static/``), so it works with no network.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from starlette.responses import FileResponse, Response

from dialogkit.logging import get_logger
from dialogkit.service.errors import ApiError
from dialogkit.service.metrics import CONTENT_TYPE
from dialogkit.service.responses import Json
from dialogkit.service.state import service_of

__all__ = ["STATIC_DIR", "router"]

STATIC_DIR = Path(__file__).with_name("static")
READY_PROBE = "dialogkit-readyz-probe"          # a session id no one uses: loading it reads the store

log = get_logger("dialogkit.service")

router = APIRouter()


@router.get("/healthz", tags=["operations"])
async def healthz() -> Response:
    """The process is up (no token needed)."""
    return Json({"status": "ok"})


@router.get("/readyz", tags=["operations"], responses={503: {"description": "The store does not answer."}})
def readyz(request: Request) -> Response:
    """The store answers, so turns can run (no token needed)."""
    try:
        service_of(request).bot.store.load(READY_PROBE, history_tail=0)
    except Exception as exc:
        log.warning("not_ready", error=f"{type(exc).__name__}: {exc}")
        raise ApiError(503, "store_unavailable", "the session store does not answer") from exc
    return Json({"status": "ready"})


@router.get("/metrics", tags=["operations"], response_class=Response)
def metrics(request: Request) -> Response:
    """Prometheus text format: turns, latency, LLM calls and fallbacks, clarifications, errors."""
    return Response(service_of(request).metrics.render(), media_type=CONTENT_TYPE)


@router.get("/", include_in_schema=False)
def inspector() -> Response:
    """The inspector page: a chat box and what the bot remembers (docs/serving.md)."""
    page = STATIC_DIR / "index.html"
    if not page.is_file():
        raise ApiError(404, "not_found", "the inspector page is not installed")
    return FileResponse(page, media_type="text/html; charset=utf-8")
