"""Actions of the shipped support-ticket bot (`flows/support_ticket.yaml`).

Ticket and return ids are derived from the idempotency key, so a retried or repeated confirmation
names the same ticket instead of opening a second one; order status and a user's recent orders
come from a small local table.
"""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

ORDERS: dict[str, dict[str, str]] = {
    "12345": {"zh": "已发货", "en": "shipped"},
    "67890": {"zh": "运输中", "en": "in transit"},
    "123456": {"zh": "已签收", "en": "delivered"},
    "24680": {"zh": "待发货", "en": "awaiting shipment"},
}


@action("create_ticket")
def create_ticket(ctx: ActionContext) -> dict[str, str]:
    """Open a ticket; the id is stable for one confirmed task (idempotency key)."""
    digest = hashlib.sha1(ctx.idempotency_key.encode("utf-8")).hexdigest()
    return {"ticket_id": f"T-{int(digest[:8], 16) % 900000 + 100000}"}


@action("order_status")
def order_status(ctx: ActionContext) -> dict[str, str]:
    """Look the order up in the local table; an unknown order is an error the flow reports."""
    order = ORDERS.get(str(ctx.slots.get("order_id", "")))
    if order is None:
        message = "查无此订单" if ctx.language == "zh" else "no such order"
        raise LookupError(message)
    return {"status": order[ctx.language] if ctx.language in order else order["en"]}


@action("recent_orders")
def recent_orders(ctx: ActionContext) -> list[dict[str, object]]:
    """The user's recent orders as choices: the return flow lists them and accepts "第二个"."""
    return [
        {"value": number, "label": {"zh": f"{number}（{status['zh']}）", "en": f"{number} ({status['en']})"}}
        for number, status in list(ORDERS.items())[:3]
    ]


@action("create_return")
def create_return(ctx: ActionContext) -> dict[str, str]:
    """Open a return (an RMA); the number is stable for one confirmed task (idempotency key)."""
    digest = hashlib.sha1(ctx.idempotency_key.encode("utf-8")).hexdigest()
    return {"rma_number": f"R-{int(digest[:8], 16) % 900000 + 100000}"}
