"""Actions of the clinic example bot (`examples/clinic/clinic.yaml`): a small in-process schedule.

Everything is deterministic and local: appointment numbers come from the idempotency key, so a
repeated confirmation names the same appointment; opening hours and test results come from
small tables.
"""

from __future__ import annotations

import hashlib

from dialogkit import ActionContext, action

# appointment number -> (date, time); the two numbers the conversation tests talk about exist.
APPOINTMENTS: dict[str, tuple[str, str]] = {
    "A10023": ("2026-12-20", "09:00"),
    "A10045": ("2026-12-21", "14:30"),
}

# (doctor, date, time) -> appointment number: a doctor sees one patient per slot.
BOOKED: dict[tuple[str, str, str], str] = {}

HOURS: dict[str, dict[str, str]] = {
    "cardiology": {"zh": "周一至周五 8:00–17:00", "en": "Monday to Friday, 8:00–17:00"},
    "dermatology": {"zh": "周一至周六 8:00–12:00", "en": "Monday to Saturday, 8:00–12:00"},
    "pediatrics": {"zh": "每天 8:00–17:00", "en": "every day, 8:00–17:00"},
    "ophthalmology": {"zh": "周二、周四 13:00–17:00", "en": "Tuesday and Thursday, 13:00–17:00"},
    "general": {"zh": "每天 8:00–17:00", "en": "every day, 8:00–17:00"},
}

RESULTS: dict[tuple[str, str], dict[str, str]] = {
    ("20240001", "blood"): {"zh": "各项指标正常", "en": "all values within the normal range"},
    ("20240001", "urine"): {"zh": "尚未出结果", "en": "not ready yet"},
    ("20240002", "xray"): {"zh": "未见异常", "en": "no abnormality found"},
}


def _lang(ctx: ActionContext) -> str:
    return "zh" if ctx.language == "zh" else "en"


def _appointment_number(key: str) -> str:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()
    return f"A{int(digest[:8], 16) % 90000 + 10000}"


@action("book_appointment")
def book_appointment(ctx: ActionContext) -> dict[str, str]:
    """Book the slot; a doctor already booked at that date and time is an error the flow reports."""
    number = _appointment_number(ctx.idempotency_key)
    doctor = str(ctx.slots.get("doctor", ""))
    slot = (doctor, str(ctx.slots.get("date", "")), str(ctx.slots.get("time", "")))
    if doctor != "any_doctor":
        holder = BOOKED.setdefault(slot, number)
        if holder != number:
            busy = "该医生此时段已约满" if _lang(ctx) == "zh" else "that doctor is fully booked at that time"
            raise RuntimeError(busy)
    APPOINTMENTS[number] = (slot[1], slot[2])
    return {"appointment_id": number}


@action("reschedule_appointment")
def reschedule_appointment(ctx: ActionContext) -> dict[str, str]:
    """Move a known appointment; an unknown number is an error the flow reports."""
    number = str(ctx.slots.get("appointment_id", ""))
    if number not in APPOINTMENTS:
        raise LookupError("查无此预约" if _lang(ctx) == "zh" else "no such appointment")
    APPOINTMENTS[number] = (str(ctx.slots.get("date", "")), str(ctx.slots.get("time", "")))
    return {"appointment_id": number}


@action("cancel_appointment")
def cancel_appointment(ctx: ActionContext) -> dict[str, str]:
    """Cancel a known appointment; an unknown number is an error the flow reports."""
    number = str(ctx.slots.get("appointment_id", ""))
    if APPOINTMENTS.pop(number, None) is None:
        raise LookupError("查无此预约" if _lang(ctx) == "zh" else "no such appointment")
    return {"appointment_id": number}


@action("opening_hours")
def opening_hours(ctx: ActionContext) -> dict[str, str]:
    """The department's opening hours in the turn's language."""
    hours = HOURS.get(str(ctx.slots.get("department", "")), HOURS["general"])
    return {"hours": hours[_lang(ctx)]}


@action("get_result")
def get_result(ctx: ActionContext) -> dict[str, str]:
    """Look the result up; a result that does not exist is an error the flow reports."""
    key = (str(ctx.slots.get("patient_id", "")), str(ctx.slots.get("test_type", "")))
    result = RESULTS.get(key)
    if result is None:
        raise LookupError("没有这项检查的记录" if _lang(ctx) == "zh" else "there is no record of that test")
    return {"result": result[_lang(ctx)]}
