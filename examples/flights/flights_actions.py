"""Actions of the flights example bot (`examples/flights/flights.yaml`): deterministic, no network.

Reference numbers derive from the idempotency key, so a repeated confirmation names the same
change instead of making a second one; flight statuses come from a small local table.
"""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

BAG_FEE_CNY = 200

SEATS: dict[str, str] = {"window": "12A", "middle": "12B", "aisle": "12C", "any_seat": "14D"}

FLIGHTS: dict[str, dict[str, str]] = {
    "CA981": {"zh": "准点", "en": "on time"},
    "MU5101": {"zh": "延误约40分钟", "en": "delayed by about 40 minutes"},
    "CZ3101": {"zh": "已起飞", "en": "in the air"},
}


def _reference(prefix: str, key: str) -> str:
    return prefix + hashlib.sha1(key.encode("utf-8")).hexdigest()[:6].upper()


@action("change_booking")
def change_booking(ctx: ActionContext) -> dict[str, str]:
    """Move a booking to a new date and cabin; returns the change number."""
    return {"change_id": _reference("CHG-", ctx.idempotency_key)}


@action("add_bags")
def add_bags(ctx: ActionContext) -> dict[str, object]:
    """Add checked bags for one passenger; the fee is per bag."""
    bags = int(ctx.slots["bags"])
    return {"fee": bags * BAG_FEE_CNY, "receipt": _reference("BAG-", ctx.idempotency_key)}


@action("assign_seat")
def assign_seat(ctx: ActionContext) -> dict[str, str]:
    """Reserve a seat of the preferred kind."""
    return {"seat_no": SEATS.get(str(ctx.slots.get("seat", "")), "14D")}


@action("flight_status")
def flight_status(ctx: ActionContext) -> dict[str, str]:
    """Look a flight up in the local table; an unknown flight is an error the flow reports."""
    flight = FLIGHTS.get(str(ctx.slots.get("flight_no", "")))
    if flight is None:
        raise LookupError("没有该航班的信息" if ctx.language == "zh" else "no such flight")
    return {"status": flight.get(ctx.language, flight["en"])}
