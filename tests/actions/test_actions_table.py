"""The @action registry and the per-bot action table (SPEC section 2 "Actions", section 7)."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from dialogkit.actions.binding import build_action_table
from dialogkit.actions.importer import import_reference
from dialogkit.actions.registry import ActionContext, action, find_registered, registered_actions
from dialogkit.actions.table import ActionTable
from dialogkit.errors import ActionError
from dialogkit.spec.schema import BotFile


def _module(tmp_path: Path, body: str) -> str:
    """Write a uniquely named module into tmp_path and return its name."""
    name = f"acts_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return name


def _spec(actions: str | None, execute: str | None = None, validator: str | None = None) -> BotFile:
    slot: dict = {"name": "order_id"}
    if validator:
        slot["validate"] = [{"action": validator}]
    flow = {"trigger": {"keywords": ["订单", "order"]}, "slots": [slot],
            "execute": {"action": execute} if execute else {}}
    return BotFile.model_validate({"bot": {"actions": actions}, "flows": {"f": flow}})


class TestRegistry:
    def test_decorator_registers_under_the_module(self) -> None:
        """@action keeps the function unchanged and files it under its module."""
        @action("registry_probe")
        def probe(ctx: ActionContext) -> dict:
            return {}

        assert registered_actions(__name__)["registry_probe"] is probe
        assert find_registered("registry_probe") is probe

    def test_two_modules_with_one_name_do_not_clash(self, tmp_path: Path) -> None:
        """Two bots may both define create_ticket."""
        body = """\
            from dialogkit.actions.registry import action
            @action("create_ticket")
            def make(ctx):
                return {"ticket_id": "%s"}
            """
        first = _module(tmp_path, body % "A-1")
        second = _module(tmp_path, body % "B-1")
        one = build_action_table(_spec(first, "create_ticket"), tmp_path, None)
        two = build_action_table(_spec(second, "create_ticket"), tmp_path, None)
        assert one.run("create_ticket", ActionContext()) == {"ticket_id": "A-1"}
        assert two.run("create_ticket", ActionContext()) == {"ticket_id": "B-1"}

    def test_empty_name_is_refused(self) -> None:
        with pytest.raises(ValueError):
            action("  ")


class TestSignatures:
    @pytest.mark.parametrize(("language", "expected"), [("zh", "已发货"), ("en", "shipped")])
    def test_context_parameter(self, language: str, expected: str) -> None:
        """def f(ctx): gets the whole context (slots, language, ids)."""
        def status(ctx: ActionContext) -> dict:
            return {"status": {"zh": "已发货", "en": "shipped"}[ctx.language], "key": ctx.idempotency_key}

        table = ActionTable()
        table.add("order_status", status)
        ctx = ActionContext(slots={"order_id": "12345"}, session_id="s", language=language, idempotency_key="s:t1")
        assert table.run("order_status", ctx) == {"status": expected, "key": "s:t1"}

    def test_slots_parameter(self) -> None:
        """def f(slots): gets a copy of the slot dict."""
        def echo(slots: dict) -> dict:
            slots["touched"] = True
            return {"order": slots["order_id"]}

        table = ActionTable()
        table.add("echo", echo)
        ctx = ActionContext(slots={"order_id": "12345"})
        assert table.run("echo", ctx) == {"order": "12345"}
        assert ctx.slots == {"order_id": "12345"}

    def test_no_parameter(self) -> None:
        table = ActionTable()
        table.add("ping", lambda: {"pong": 1})
        assert table.run("ping", ActionContext()) == {"pong": 1}


class TestRun:
    def test_non_dict_result_is_wrapped(self) -> None:
        """A plain value becomes {'result': value}; None becomes {}."""
        table = ActionTable()
        table.add("count", lambda ctx: 3)
        table.add("nothing", lambda ctx: None)
        assert table.run("count", ActionContext()) == {"result": 3}
        assert table.run("nothing", ActionContext()) == {}

    @pytest.mark.parametrize("message", ["后端不可用", "backend down"], ids=["zh", "en"])
    def test_exception_becomes_action_error_with_the_original(self, message: str) -> None:
        """Whatever the action raises takes the on_error path as ActionError."""
        def broken(ctx: ActionContext) -> dict:
            raise ConnectionError(message)

        table = ActionTable()
        table.add("create_ticket", broken)
        with pytest.raises(ActionError, match=message) as caught:
            table.run("create_ticket", ActionContext())
        assert isinstance(caught.value.original, ConnectionError)

    def test_unknown_name(self) -> None:
        with pytest.raises(ActionError, match="unknown action 'nope'"):
            ActionTable().run("nope", ActionContext())


class TestStubs:
    @pytest.mark.parametrize("values", [{"ticket_id": "T-1001"}, {"status": "已发货"}], ids=["en", "zh"])
    def test_dict_stub_returns_a_copy(self, values: dict) -> None:
        """A dict stub returns its values; changing the result does not change the stub."""
        table = ActionTable()
        table.add("stub", values)
        first = table.run("stub", ActionContext())
        first["extra"] = 1
        assert table.run("stub", ActionContext()) == values

    @pytest.mark.parametrize("message", ["后端不可用", "backend down"], ids=["zh", "en"])
    def test_error_stub_raises_action_error(self, message: str) -> None:
        """{error: message} raises ActionError(message): the harness's way to test on_error."""
        table = ActionTable()
        table.add("create_ticket", {"error": message})
        with pytest.raises(ActionError) as caught:
            table.run("create_ticket", ActionContext())
        assert str(caught.value) == message

    def test_error_next_to_other_values_is_just_a_value(self) -> None:
        """Only a stub of the single key 'error' fails."""
        table = ActionTable()
        table.add("a", {"error": None, "status": "ok"})
        assert table.run("a", ActionContext()) == {"error": None, "status": "ok"}


class TestValidators:
    @pytest.mark.parametrize(("value", "expected"), [("周六", "周末不营业"), ("周一", None)], ids=["zh-bad", "zh-ok"])
    def test_value_parameter_gets_the_candidate(self, value: str, expected: str | None) -> None:
        """def f(value): returns an error message or None."""
        def weekday(value: str) -> str | None:
            return "周末不营业" if value in ("周六", "周日") else None

        table = ActionTable()
        table.add("weekday", weekday)
        assert table.validate("weekday", value) == expected

    def test_context_validator_sees_the_value_and_slots(self) -> None:
        def check(ctx: ActionContext) -> str | None:
            return None if ctx.value != ctx.slots["old"] else "same as before"

        table = ActionTable()
        table.add("check", check)
        assert table.validate("check", "a", ActionContext(slots={"old": "a"})) == "same as before"
        assert table.validate("check", "b", ActionContext(slots={"old": "a"})) is None

    def test_error_stub_rejects_with_its_message(self) -> None:
        table = ActionTable()
        table.add("check", {"error": "not allowed"})
        assert table.validate("check", "x") == "not allowed"

    def test_broken_validator_is_an_action_error(self) -> None:
        table = ActionTable()
        table.add("check", lambda value: 1 / 0)
        with pytest.raises(ActionError):
            table.validate("check", "x")


class TestBuildTable:
    def test_imports_the_bot_actions_module_from_the_bot_folder(self, tmp_path: Path) -> None:
        module = _module(tmp_path, """\
            from dialogkit.actions.registry import action
            @action("order_status")
            def status(slots):
                return {"status": "shipped:" + slots["order_id"]}
            """)
        table = build_action_table(_spec(module, "order_status"), tmp_path, None)
        assert table.run("order_status", ActionContext(slots={"order_id": "12345"})) == {"status": "shipped:12345"}
        assert not table.failures

    def test_overrides_win(self, tmp_path: Path) -> None:
        """actions= replaces a registered action of the same name."""
        module = _module(tmp_path, """\
            from dialogkit.actions.registry import action
            @action("order_status")
            def status(ctx):
                raise RuntimeError("real backend called")
            """)
        table = build_action_table(_spec(module, "order_status"), tmp_path, {"order_status": {"status": "stub"}})
        assert table.run("order_status", ActionContext()) == {"status": "stub"}

    def test_module_function_reference(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "from dialogkit import action\n\n@action('make')\n"
                                   "def make(ctx):\n    return {'ticket_id': 'T-9'}\n")
        table = build_action_table(_spec(None, f"{module}:make"), tmp_path, None)
        assert table.run(f"{module}:make", ActionContext()) == {"ticket_id": "T-9"}

    def test_import_failures_are_recorded_not_raised(self, tmp_path: Path) -> None:
        """A missing module and a broken reference land in failures for the loader to position."""
        broken = _module(tmp_path, "raise ImportError('needs a library that is not installed')\n")
        table = build_action_table(_spec("no_such_actions_mod", f"{broken}:make"), tmp_path, None)
        assert "ModuleNotFoundError" in table.failures["no_such_actions_mod"]
        assert "needs a library" in table.failures[f"{broken}:make"]

    def test_validator_reference_is_resolved(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "from dialogkit import action\n\n@action('check')\n"
                                   "def check(value):\n    return None if value.isdigit() else '只能是数字'\n")
        table = build_action_table(_spec(None, validator=f"{module}:check"), tmp_path, None)
        assert table.validate(f"{module}:check", "12a") == "只能是数字"


class TestImportReference:
    def test_resolves_a_function(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "def hook(ctx):\n    return 'ok'\n")
        assert import_reference(f"{module}:hook", [tmp_path])(None) == "ok"

    @pytest.mark.parametrize(("ref", "message"), [
        ("no_colon_here", "not a reference"),
        ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ])
    def test_bad_references(self, ref: str, message: str) -> None:
        with pytest.raises(ActionError, match=message):
            import_reference(ref, [])

    def test_missing_attribute_and_not_callable(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "VALUE = 3\n")
        with pytest.raises(ActionError, match="has no 'hook'"):
            import_reference(f"{module}:hook", [tmp_path])
        with pytest.raises(ActionError, match="is not callable"):
            import_reference(f"{module}:VALUE", [tmp_path])

    def test_search_path_is_restored(self, tmp_path: Path) -> None:
        """The bot folder is on sys.path only while importing."""
        import sys

        module = _module(tmp_path, "def hook(ctx):\n    return None\n")
        import_reference(f"{module}:hook", [tmp_path])
        assert str(tmp_path) not in sys.path
