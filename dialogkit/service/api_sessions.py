"""``/v1/sessions/...``: run a turn, look at a session, its context window and stats, delete it.

Only the turn is ``async`` (it awaits ``bot.ahandle``); the others read the store and are plain
functions, which FastAPI runs in its thread pool, so none of them blocks the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from starlette.responses import Response

from dialogkit.errors import DialogkitError, StoreError
from dialogkit.service.errors import ApiError
from dialogkit.service.ids import check_id
from dialogkit.service.inspection import context_json, masked_document, session_json
from dialogkit.service.payloads import TurnReply, TurnRequest
from dialogkit.service.responses import Json
from dialogkit.service.state import service_of
from dialogkit.service.turn_route import run_turn

__all__ = ["router"]

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

T = TypeVar("T")

_UNKNOWN: dict[int | str, dict[str, Any]] = {404: {"description": "No such session (`unknown_session`)."}}


@router.post("/{session_id}/turns", response_model=TurnReply, responses={
    403: {"description": "`user_id` given with a key that may not name users (`user_id_not_allowed`)."},
    409: {"description": "The session is another user's, or a user's and no `user_id` was given (`session_owner`)."},
    422: {"description": "Invalid id or body."}})
async def post_turn(session_id: str, body: TurnRequest, request: Request) -> Response:
    """Run one user turn; the bot's reply (a new session starts on its first turn). ``user_id`` is
    honoured only with a key that has the ``users`` scope (403 otherwise). A plain JSON body is
    answered before it gets here, by the same ``run_turn`` (``turn_route``)."""
    return await run_turn(service_of(request), request.scope, session_id, body.text, body.user_id)


@router.get("/{session_id}", responses=_UNKNOWN)
def get_session(session_id: str, request: Request) -> Response:
    """State, flow, task stack, slots, summary, entities, state machine, context window, last turn."""
    service = service_of(request)
    bot = service.bot
    view = _known(session_id, bot.session)
    built = _known(session_id, bot.build_context)
    return Json(session_json(bot, view, built, service.last_turns.get(session_id)))


@router.get("/{session_id}/context", responses=_UNKNOWN)
def get_context(session_id: str, request: Request) -> Response:
    """The messages an LLM would receive now, with priorities and token counts."""
    bot = service_of(request).bot
    built = _known(session_id, bot.build_context)
    return Json(masked_document(context_json(built), bot.output_redactor(session_id)))


@router.get("/{session_id}/stats", responses=_UNKNOWN)
def get_stats(session_id: str, request: Request) -> Response:
    """Tokens of the full history against what is sent, and the session's counts."""
    bot = service_of(request).bot
    stats = _known(session_id, bot.stats)
    return Json(masked_document(stats, bot.output_redactor(session_id)))


@router.delete("/{session_id}", responses=_UNKNOWN)
def delete_session(session_id: str, request: Request) -> Response:
    """Delete the session and its history (once no turn of it runs)."""
    check_id(session_id)
    service = service_of(request)
    store = service.bot.store
    if store.load(session_id, history_tail=0) is None:
        raise ApiError(404, "unknown_session", f"no session {session_id!r}")
    messages = store.delete_session(session_id)
    service.last_turns.forget(session_id)
    return Json({"deleted": True, "messages": messages})


def _known(session_id: str, read: Callable[[str], T]) -> T:
    """``read(session_id)``, or 404 ``unknown_session`` when the store has no such session."""
    check_id(session_id)
    try:
        return read(session_id)
    except StoreError:
        raise
    except DialogkitError as exc:
        raise ApiError(404, "unknown_session", f"no session {session_id!r}") from exc

