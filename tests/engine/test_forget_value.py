"""'忘记我的订单号' / 'forget my order number' names a persisted slot of any bot, by label or name."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.engine.forget_value import ForgetValue
from dialogkit.spec.loader import check_bot_file
from dialogkit.text.labels import Texts

ROOT = Path(__file__).resolve().parents[2]


def finder(path: str) -> ForgetValue:
    spec = check_bot_file(ROOT / path).spec
    assert spec is not None
    return ForgetValue(spec, Texts(spec))


class TestSupportBot:
    @pytest.mark.parametrize("text", ["忘记我的订单号", "请忘掉我的订单号", "删除我的订单号",
                                      "forget my order number", "please delete my order number", "Forget my Order ID"])
    def test_a_persisted_slot_is_named_by_label_or_name(self, text: str) -> None:
        assert finder("flows/support_ticket.yaml").slots_in(text) == ["order_id"]

    @pytest.mark.parametrize("text", ["忘记刚才说的", "forget what I just said", "我的订单号是12345",
                                      "my order number is 12345", "忘记我的商品", "forget my product"])
    def test_other_utterances_name_no_persisted_slot(self, text: str) -> None:
        """Taking back a turn, stating a value, or naming a slot that does not persist is no such request."""
        assert finder("flows/support_ticket.yaml").slots_in(text) == []


class TestBotsNobodyHereWrote:
    @pytest.mark.parametrize(("path", "text", "slot"), [
        ("examples/insurance/insurance.yaml", "忘记我的保单号", "policy_no"),
        ("examples/insurance/insurance.yaml", "forget my policy number", "policy_no"),
        ("examples/hr_leave/hr_leave.yaml", "删掉我的员工编号", "employee_id"),
        ("examples/hr_leave/hr_leave.yaml", "forget my employee ID", "employee_id"),
    ])
    def test_any_bots_persisted_slot_by_its_own_label(self, path: str, text: str, slot: str) -> None:
        assert finder(path).slots_in(text) == [slot]
