"""'忘记我的订单号' / 'forget my order number' / '时间先不定' names a slot of any bot, by label or name.

Which of the slots named is dropped (a persisted value, the active task's value) the policy decides:
tests/conversations/test_cafe.yaml."""

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

    @pytest.mark.parametrize("text", ["忘记我的商品", "forget my product", "商品先不定", "leave the product open"])
    def test_a_task_slot_is_named_too(self, text: str) -> None:
        assert finder("flows/support_ticket.yaml").slots_in(text) == ["product"]

    @pytest.mark.parametrize("text", ["忘记刚才说的", "forget what I just said", "我的订单号是12345",
                                      "my order number is 12345", "商品不定期上新", "the product is open"])
    def test_other_utterances_name_no_slot(self, text: str) -> None:
        """Taking back a turn or stating a value is no such request."""
        assert finder("flows/support_ticket.yaml").slots_in(text) == []


class TestCafeBot:
    @pytest.mark.parametrize("text", ["忘记时间", "时间先不定", "时间还没定", "取餐时间待定", "forget the time",
                                      "clear the time", "leave the time open"])
    def test_the_time_left_open(self, text: str) -> None:
        assert finder("tests/conversations/bots/cafe.yaml").slots_in(text) == ["time"]


class TestBotsNobodyHereWrote:
    @pytest.mark.parametrize(("path", "text", "slot"), [
        ("examples/insurance/insurance.yaml", "忘记我的保单号", "policy_no"),
        ("examples/insurance/insurance.yaml", "forget my policy number", "policy_no"),
        ("examples/hr_leave/hr_leave.yaml", "删掉我的员工编号", "employee_id"),
        ("examples/hr_leave/hr_leave.yaml", "forget my employee ID", "employee_id"),
    ])
    def test_any_bots_persisted_slot_by_its_own_label(self, path: str, text: str, slot: str) -> None:
        assert finder(path).slots_in(text) == [slot]
