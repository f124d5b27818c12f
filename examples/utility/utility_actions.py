"""Actions of the utility example bot (`examples/utility/utility.yaml`): a small local ledger.

Everything is deterministic: ticket and plan numbers come from the idempotency key, so a repeated
confirmation names the same one, and the bills the tests talk about are in a table.
"""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

# (account number, month) -> amount in yuan.
BILLS: dict[tuple[str, str], int] = {
    ("1234567890", "2026-10"): 186,
    ("1234567890", "2026-11"): 243,
    ("2234567890", "2026-11"): 98,
    ("2234567890", "2026-12"): 120,
}

# The repair time expected per kind of outage, per language.
ETA: dict[str, dict[str, str]] = {
    "electricity": {"zh": "4小时内", "en": "within 4 hours"},
    "water": {"zh": "6小时内", "en": "within 6 hours"},
    "gas": {"zh": "2小时内", "en": "within 2 hours"},
}


def _lang(ctx: ActionContext) -> str:
    return "zh" if ctx.language == "zh" else "en"


def _number(prefix: str, key: str) -> str:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()
    return f"{prefix}{int(digest[:8], 16) % 90000 + 10000}"


@action("report_outage")
def report_outage(ctx: ActionContext) -> dict[str, str]:
    """Log the outage; someone at risk is dispatched first, so the time is shorter."""
    eta = ETA.get(str(ctx.slots.get("utility", "")), ETA["electricity"])[_lang(ctx)]
    if ctx.slots.get("at_risk") is True:
        eta = "1小时内" if _lang(ctx) == "zh" else "within 1 hour"
    return {"ticket_id": _number("OUT", ctx.idempotency_key), "eta": eta}


@action("check_bill")
def check_bill(ctx: ActionContext) -> dict[str, str]:
    """The bill of that month; a month without one is an error the flow reports."""
    key = (str(ctx.slots.get("account_no", "")), str(ctx.slots.get("bill_month", "")))
    amount = BILLS.get(key)
    if amount is None:
        raise LookupError("该月没有账单" if _lang(ctx) == "zh" else "there is no bill for that month")
    return {"amount": str(amount), "due": key[1] + "-25"}


@action("create_plan")
def create_plan(ctx: ActionContext) -> dict[str, str]:
    """Split the account's latest bill into equal monthly parts."""
    account = str(ctx.slots.get("account_no", ""))
    owed = max((amount for (acc, _), amount in BILLS.items() if acc == account), default=0)
    parts = int(ctx.slots.get("installments") or 1)
    return {"plan_id": _number("PP", ctx.idempotency_key), "monthly": f"{owed / parts:.2f}"}
