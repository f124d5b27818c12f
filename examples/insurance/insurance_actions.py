"""Actions of the example insurance bot (`examples/insurance/insurance.yaml`).

Deterministic and offline: claim numbers derive from the idempotency key, claim statuses come
from a small local table, and contact updates are kept in a dict in this process.
"""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

CLAIMS: dict[str, dict[str, str]] = {
    "CL100234": {"zh": "审核中", "en": "under review"},
    "CL200468": {"zh": "已赔付", "en": "paid"},
    "CL300579": {"zh": "待补充材料", "en": "waiting for documents"},
}

CONTACTS: dict[str, dict[str, str]] = {}


def _digest(key: str) -> int:
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:8], 16)


@action("file_claim")
def file_claim(ctx: ActionContext) -> dict[str, str]:
    """File a claim; the claim number is stable for one confirmed task (idempotency key)."""
    return {"claim_id": f"CL{_digest(ctx.idempotency_key) % 900000 + 100000}"}


@action("claim_status")
def claim_status(ctx: ActionContext) -> dict[str, str]:
    """Look the claim up in the local table; an unknown claim is an error the flow reports."""
    claim = CLAIMS.get(str(ctx.slots.get("claim_id", "")))
    if claim is None:
        raise LookupError("查无此理赔" if ctx.language == "zh" else "no such claim")
    return {"status": claim.get(ctx.language, claim["en"])}


@action("update_contact")
def update_contact(ctx: ActionContext) -> dict[str, str]:
    """Record the policy's new phone number and preferred contact method."""
    policy = str(ctx.slots.get("policy_no", ""))
    CONTACTS[policy] = {
        "phone": str(ctx.slots.get("phone", "")),
        "contact_method": str(ctx.slots.get("contact_method", "")),
        "email": str(ctx.slots.get("email") or ""),
    }
    return {"ref": f"U-{_digest(ctx.idempotency_key) % 900000 + 100000}"}
