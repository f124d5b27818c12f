"""``/v1/users/...`` and ``/v1/bot``: a user's data (export, forget) and what the bot is.

Exporting or forgetting a user of whom nothing is stored answers 404 ``unknown_user``, so a
typing mistake in an id is not mistaken for "done, nothing to delete".
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from dialogkit.service.errors import ApiError
from dialogkit.service.ids import check_id
from dialogkit.service.responses import Json
from dialogkit.service.state import service_of

__all__ = ["router"]

router = APIRouter(prefix="/v1")

_UNKNOWN: dict[int | str, dict[str, Any]] = {
    404: {"description": "Nothing is stored about this user (`unknown_user`)."}}


@router.get("/users/{user_id}/export", tags=["users"], responses=_UNKNOWN)
def export_user(user_id: str, request: Request) -> Response:
    """Everything stored about the user for this bot, as one JSON document (docs/stores.md)."""
    check_id(user_id, "user id")
    document = service_of(request).bot.export_user(user_id)
    if not (document.get("sessions") or document.get("values") or document.get("legacy_values")):
        raise ApiError(404, "unknown_user", f"nothing is stored about user {user_id!r}")
    return Json(document)


@router.delete("/users/{user_id}", tags=["users"], responses=_UNKNOWN)
def forget_user(user_id: str, request: Request) -> Response:
    """Delete every session, message and value stored about the user; the counts deleted."""
    check_id(user_id, "user id")
    service = service_of(request)
    sessions = service.bot.store.sessions_of(user_id)
    counts = service.bot.forget_user(user_id)
    if not any(counts.values()):
        raise ApiError(404, "unknown_user", f"nothing is stored about user {user_id!r}")
    for session_id in sessions:
        service.last_turns.forget(session_id)
    return Json(counts)


@router.get("/bot", tags=["bot"])
def describe_bot(request: Request) -> Response:
    """The bot's name, description, version of its file, language and flows."""
    bot = service_of(request).bot
    settings = bot.spec.bot
    flows = [{"name": name, "description": flow.description or None} for name, flow in bot.spec.flows.items()]
    return Json({"name": settings.name, "description": settings.description or None, "version": bot.loaded.version,
                 "language": settings.language, "flows": flows})
