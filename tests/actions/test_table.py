"""The action table: each function called as declared; every failure an ``ActionError``."""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.table import ActionTable, adapt
from dialogkit.errors import ActionError


class TestAdapt:
    def test_a_context_parameter_gets_the_context(self) -> None:
        def status(ctx: ActionContext) -> str:
            return ctx.language

        assert adapt(status)(ActionContext(language="zh")) == "zh"

    def test_slots_gets_a_copy_of_the_slots(self) -> None:
        def touch(slots: dict[str, Any]) -> None:
            slots["touched"] = True

        ctx = ActionContext(slots={"order_id": "12345"})
        adapt(touch)(ctx)
        assert ctx.slots == {"order_id": "12345"}

    def test_value_gets_the_candidate_value(self) -> None:
        def no_weekends(value: str) -> str | None:
            return "周末不营业 / closed at weekends" if value in ("周六", "Saturday") else None

        assert adapt(no_weekends)(ActionContext(value="周六")) == "周末不营业 / closed at weekends"

    def test_no_parameter_and_optional_parameters(self) -> None:
        """Only required positional parameters count: f(), f(x=1) and f(*args) get nothing."""
        assert adapt(lambda: 1)(ActionContext()) == 1
        assert adapt(lambda x=2: x)(ActionContext()) == 2

    def test_a_callable_without_a_readable_signature_gets_the_context(self) -> None:
        def opaque(*args: Any) -> tuple[Any, ...]:
            return args

        opaque.__signature__ = "unreadable"  # type: ignore[attr-defined]  # makes inspect.signature fail
        ctx = ActionContext()
        assert adapt(opaque)(ctx) == (ctx,)


class TestRun:
    @pytest.mark.parametrize(("result", "values"), [(None, {}), ({"ticket_id": "T-1"}, {"ticket_id": "T-1"}),
                                                    ("已发货", {"result": "已发货"}), (3, {"result": 3})])
    def test_results_become_a_dict(self, result: Any, values: dict[str, Any]) -> None:
        table = ActionTable()
        table.add("act", lambda ctx: result)
        assert table.run("act", ActionContext()) == values

    def test_any_exception_becomes_an_action_error_with_the_original(self) -> None:
        def broken(ctx: ActionContext) -> None:
            raise KeyError("order_id")

        table = ActionTable()
        table.add("broken", broken)
        with pytest.raises(ActionError, match="order_id") as caught:
            table.run("broken", ActionContext())
        assert isinstance(caught.value.original, KeyError)

    def test_an_exception_without_a_message_is_named_by_its_type(self) -> None:
        def broken(ctx: ActionContext) -> None:
            raise TimeoutError

        table = ActionTable()
        table.add("broken", broken)
        with pytest.raises(ActionError, match="TimeoutError"):
            table.run("broken", ActionContext())

    def test_an_action_that_exits_fails_like_any_other_and_the_process_goes_on(self) -> None:
        """sys.exit() in an author's action would end a server serving every other session."""
        def exits(ctx: ActionContext) -> None:
            raise SystemExit(3)

        table = ActionTable()
        table.add("exits", exits)
        with pytest.raises(ActionError, match="SystemExit") as caught:
            table.run("exits", ActionContext())
        assert isinstance(caught.value.original, SystemExit)

    def test_an_unknown_name(self) -> None:
        with pytest.raises(ActionError, match="unknown action 'nope'"):
            ActionTable().run("nope", ActionContext())

    def test_a_dict_becomes_a_stub_and_a_later_add_replaces(self) -> None:
        """How actions= overrides a bot's own action: the same name, added last."""
        table = ActionTable()
        table.add("order_status", lambda ctx: {"status": "real"})
        table.add("order_status", {"status": "stubbed"})
        assert table.run("order_status", ActionContext()) == {"status": "stubbed"}
        assert "order_status" in table and table.names == ["order_status"]


class TestValidate:
    @pytest.mark.parametrize("verdict", [None, True, "", {"ok": 1}, {"error": None}])
    def test_valid_verdicts(self, verdict: Any) -> None:
        table = ActionTable()
        table.add("check", lambda value: verdict)
        assert table.validate("check", "12345") is None

    @pytest.mark.parametrize(("verdict", "message"), [
        ("订单号不存在", "订单号不存在"), ({"error": "no such order"}, "no such order"), (False, "invalid value"),
    ])
    def test_invalid_verdicts(self, verdict: Any, message: str) -> None:
        table = ActionTable()
        table.add("check", lambda value: verdict)
        assert table.validate("check", "12345") == message

    def test_the_value_reaches_the_validator_beside_the_turn(self) -> None:
        seen: list[Any] = []
        table = ActionTable()
        table.add("check", lambda ctx: seen.append((ctx.value, ctx.language)))
        table.validate("check", "周六", ActionContext(language="zh"))
        assert seen == [("周六", "zh")]

    def test_an_error_stub_rejects_with_its_message(self) -> None:
        table = ActionTable()
        table.add("check", {"error": "always wrong"})
        assert table.validate("check", "anything") == "always wrong"

    def test_a_validator_that_raises_is_a_failure_not_a_verdict(self) -> None:
        def broken(value: Any) -> None:
            raise ValueError("database down")

        table = ActionTable()
        table.add("check", broken)
        with pytest.raises(ActionError, match="database down"):
            table.validate("check", "12345")
