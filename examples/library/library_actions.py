"""Actions of the library example bot (`examples/library/library.yaml`): a small local catalogue.

Everything is deterministic: reservation and receipt numbers come from the idempotency key, so a
repeated confirmation names the same one, and the loans the tests talk about are in a table.
"""

from __future__ import annotations

import datetime
import hashlib

from dialogkit import ActionContext, action

# (library card, book) -> the day the loan is due now.
LOANS: dict[tuple[str, str], str] = {
    ("20481234", "the_hobbit"): "2026-12-05",
    ("20481234", "three_body"): "2026-12-08",
    ("20481234", "dune"): "2026-12-10",
    ("20485678", "to_live"): "2026-12-03",
}


def _lang(ctx: ActionContext) -> str:
    return "zh" if ctx.language == "zh" else "en"


def _number(prefix: str, key: str) -> str:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()
    return f"{prefix}{int(digest[:8], 16) % 90000 + 10000}"


@action("renew_loan")
def renew_loan(ctx: ActionContext) -> dict[str, str]:
    """Move the due day on by the weeks asked (two by default); a book not on loan is an error."""
    key = (str(ctx.slots.get("card_no", "")), str(ctx.slots.get("book", "")))
    due = LOANS.get(key)
    if due is None:
        raise LookupError("这张借书证没有借这本书" if _lang(ctx) == "zh" else "that book is not on loan to this card")
    weeks = int(ctx.slots.get("weeks") or 2)
    new_due = datetime.date.fromisoformat(due) + datetime.timedelta(weeks=weeks)
    return {"due_date": new_due.isoformat()}


@action("reserve_book")
def reserve_book(ctx: ActionContext) -> dict[str, str]:
    """Place the hold; its number is derived from the idempotency key."""
    return {"hold_id": _number("H", ctx.idempotency_key)}


@action("pay_fine")
def pay_fine(ctx: ActionContext) -> dict[str, str]:
    """Take the payment; its receipt number is derived from the idempotency key."""
    return {"receipt_id": _number("R", ctx.idempotency_key)}
