"""``slot_validation``: a value its slot refuses, moved to the slot whose type reads it whole."""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine._parts import ROOT, Parts, build, new_session

PARCEL = ROOT / "tests" / "conversations" / "bots" / "parcel.yaml"
ACTIONS = ("track_parcel", "reschedule_delivery", "redirect_parcel", "file_complaint", "schedule_inspection")
REDIRECT = {"zh": ["我要改收货地址，运单号是SF0000000000", "上海市浦东新区世纪大道100号", "13000000000"],
            "en": ["I need to redirect a parcel, tracking number SF0000000000", "100 Century Avenue, Shanghai",
                   "13000000000"]}
CHANGE = {"zh": "把它改成18000000000", "en": "no, make it 18000000000"}


@pytest.fixture(scope="module")
def parcel() -> Parts:
    return build(PARCEL, actions={name: {} for name in ACTIONS})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_refused_value_is_read_as_another_type_by_the_turns_reading(parcel: Parts, monkeypatch: pytest.MonkeyPatch,
                                                                      lang: str) -> None:
    """At the confirmation, "把它改成18000000000" / "no, make it 18000000000": the eleven digits the
    tracking number's rule refuses are the phone's, read so by the turn's reading (``read_as``), not
    read again."""
    session = new_session(lang)
    for text in REDIRECT[lang]:
        parcel.converse(session, text)
    assert session.task is not None and session.task.state == "CONFIRMATION"
    extract = parcel.understanding.extract

    def not_the_value(text: str, *args: Any, **kwargs: Any) -> Any:
        assert text != "18000000000", "the value's words were read again"
        return extract(text, *args, **kwargs)

    monkeypatch.setattr(parcel.understanding, "extract", not_the_value)
    parcel.converse(session, CHANGE[lang])
    assert {k: session.task.slots[k] for k in ("tracking_no", "contact_phone")} == {
        "tracking_no": "SF0000000000", "contact_phone": "18000000000"}
