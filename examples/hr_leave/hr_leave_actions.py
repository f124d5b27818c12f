"""Actions of the HR leave example bot (`examples/hr_leave/hr_leave.yaml`): a small in-process
leave ledger. Deterministic, no network."""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

# Remaining days per leave type, the same for every employee in this example.
BALANCES: dict[str, float] = {"annual": 12, "sick": 5, "parental": 98, "personal": 3}

# Requests that have already been approved and can no longer be withdrawn.
APPROVED: set[str] = {"LV99999"}


@action("submit_leave")
def submit_leave(ctx: ActionContext) -> dict[str, str]:
    """File a leave request; its number is derived from the idempotency key."""
    digest = hashlib.sha1(ctx.idempotency_key.encode()).hexdigest()
    return {"request_id": "LV" + str(int(digest[:8], 16) % 90000 + 10000)}


@action("leave_balance")
def leave_balance(ctx: ActionContext) -> dict[str, float]:
    """The remaining days of one leave type."""
    leave_type = str(ctx.slots["leave_type"])
    if leave_type not in BALANCES:
        raise KeyError("未知的假期类型" if ctx.language == "zh" else "unknown leave type")
    return {"remaining": BALANCES[leave_type]}


@action("withdraw_leave")
def withdraw_leave(ctx: ActionContext) -> dict[str, str]:
    """Withdraw a pending request; an approved one cannot be withdrawn."""
    request_id = str(ctx.slots["request_id"])
    if request_id in APPROVED:
        raise RuntimeError("该申请已审批通过，无法撤销" if ctx.language == "zh" else "that request is already approved")
    return {"status": "withdrawn"}
