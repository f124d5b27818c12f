"""Dict stubs: a copy of their values on every call, or a failure with their message."""

from __future__ import annotations

import pytest

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.stubs import is_failing_stub, stub
from dialogkit.errors import ActionError


class TestStub:
    @pytest.mark.parametrize("values", [{"status": "已发货"}, {"status": "shipped"}], ids=["zh", "en"])
    def test_returns_its_values(self, values: dict[str, str]) -> None:
        assert stub("order_status", values)(ActionContext()) == values

    def test_each_call_gets_a_fresh_copy(self) -> None:
        """A caller changing one result cannot change the next, nor the dict it was made from."""
        values = {"items": ["phone"]}
        action = stub("list_items", values)
        action(ActionContext())["items"].append("laptop")
        values["items"].append("tablet")
        assert action(ActionContext()) == {"items": ["phone"]}

    @pytest.mark.parametrize("message", ["后端不可用", "backend down"], ids=["zh", "en"])
    def test_error_alone_fails_with_its_message(self, message: str) -> None:
        action = stub("create_ticket", {"error": message})
        with pytest.raises(ActionError, match=message):
            action(ActionContext())
        assert is_failing_stub(action)

    def test_error_beside_other_values_is_just_a_value(self) -> None:
        action = stub("create_ticket", {"error": "none", "ticket_id": "T-1"})
        assert action(ActionContext()) == {"error": "none", "ticket_id": "T-1"}
        assert not is_failing_stub(action)

    def test_named_after_the_action(self) -> None:
        """Tracebacks and logs show which stub ran."""
        assert stub("create_ticket", {}).__name__ == "stub_create_ticket"

    def test_a_plain_function_is_not_a_failing_stub(self) -> None:
        assert not is_failing_stub(lambda ctx: None)
