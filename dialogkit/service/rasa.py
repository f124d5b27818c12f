"""Rasa's REST input channel (docs/serving.md, "The Rasa REST channel").

A chat widget written for Rasa posts ``{sender, message}`` to ``/webhooks/rest/webhook`` and
draws the list of messages it gets back; this route answers in that format, so such a widget
works unchanged. The sender is the session id, never a user: a widget chooses it freely, so its
turns are anonymous (a session bound to a user refuses them with 409).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from dialogkit.service.ids import check_id
from dialogkit.service.limits import take_session
from dialogkit.service.payloads import RasaMessage, RasaReply, rasa_messages
from dialogkit.service.responses import Json
from dialogkit.service.state import service_of

__all__ = ["router"]

router = APIRouter(prefix="/webhooks/rest", tags=["rasa"])


@router.post("/webhook", response_model=list[RasaReply], response_model_exclude_none=True)
async def rasa_webhook(body: RasaMessage, request: Request) -> Response:
    """One user message in, the bot's messages out; quick replies become ``buttons``."""
    sender = check_id(body.sender, "sender")
    await take_session(request, sender)
    service = service_of(request)
    reply, _ = await service.turn(sender, body.message, None)
    return Json(rasa_messages(reply, sender, service.hidden))


@router.get("/")
def rasa_channel_status() -> Response:
    """What Rasa's channel answers on its root: the channel is there."""
    return Json({"status": "ok"})
