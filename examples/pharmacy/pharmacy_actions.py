"""Actions of the pharmacy example bot (`examples/pharmacy/pharmacy.yaml`): a small local ledger.

Everything is deterministic: refill order numbers come from the idempotency key, so a repeated
confirmation names the same order, and the prescriptions the tests talk about are in a table.
"""

from __future__ import annotations

import datetime
import hashlib

from dialogkit import ActionContext, action

# prescription number -> refill status per language.
STATUS: dict[str, dict[str, str]] = {
    "RX204518": {"zh": "已配好，可以取药", "en": "ready for pick-up"},
    "RX209931": {"zh": "药师审核中", "en": "being checked by the pharmacist"},
}

# refill orders that exist (cancelling one leaves it here, so the tests never depend on their order).
REFILLS: set[str] = {"F20001", "F20002"}


def _lang(ctx: ActionContext) -> str:
    return "zh" if ctx.language == "zh" else "en"


@action("not_on_sunday")
def not_on_sunday(value: str) -> str | None:
    """The stores are closed on Sundays, so a pick-up day must be another one."""
    try:
        day = datetime.date.fromisoformat(str(value))
    except ValueError:
        return None
    if day.weekday() == 6:
        return "周日不营业，请另选一天。/ We are closed on Sundays; please pick another day."
    return None


@action("refill_prescription")
def refill_prescription(ctx: ActionContext) -> dict[str, str]:
    """Order the refill; the order number is derived from the idempotency key."""
    digest = hashlib.sha1(ctx.idempotency_key.encode("utf-8")).hexdigest()
    number = f"F{int(digest[:8], 16) % 90000 + 10000}"
    REFILLS.add(number)
    return {"refill_id": number}


@action("refill_status")
def refill_status(ctx: ActionContext) -> dict[str, str]:
    """The refill's status; an unknown prescription is an error the flow reports."""
    status = STATUS.get(str(ctx.slots.get("rx_number", "")))
    if status is None:
        raise LookupError("查无此处方" if _lang(ctx) == "zh" else "no such prescription")
    return {"status": status[_lang(ctx)]}


@action("cancel_refill")
def cancel_refill(ctx: ActionContext) -> dict[str, str]:
    """Cancel a known refill order; an unknown number is an error the flow reports."""
    number = str(ctx.slots.get("refill_id", ""))
    if number not in REFILLS:
        raise LookupError("查无此续药单" if _lang(ctx) == "zh" else "no such refill order")
    return {"refill_id": number}
