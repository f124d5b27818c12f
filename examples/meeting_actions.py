"""Actions of the shipped meeting bot (`flows/meeting.yaml`): a small in-process calendar."""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

BOOKED: dict[tuple[str, str, str], str] = {}


@action("book_meeting")
def book_meeting(ctx: ActionContext) -> dict[str, str]:
    """Book a room; a room already taken at that date and time is an error the flow reports."""
    slot = (str(ctx.slots["room"]), str(ctx.slots["date"]), str(ctx.slots["time"]))
    meeting_id = "M-" + hashlib.sha1(ctx.idempotency_key.encode()).hexdigest()[:6].upper()
    holder = BOOKED.setdefault(slot, meeting_id)
    if holder != meeting_id:
        raise RuntimeError("该会议室此时段已被预订" if ctx.language == "zh" else "that room is taken at that time")
    return {"meeting_id": meeting_id}


@action("send_question")
def send_question(ctx: ActionContext) -> dict[str, str]:
    """Pretend to message a colleague; returns the message id."""
    return {"message_id": hashlib.sha1(ctx.idempotency_key.encode()).hexdigest()[:8]}
