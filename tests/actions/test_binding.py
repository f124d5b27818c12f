"""A bot file's action names, where they are written, and the table they bind to."""

from __future__ import annotations

import copy
import textwrap
import uuid
from pathlib import Path
from typing import Any

from dialogkit.actions.binding import action_references, action_uses, build_action_table
from dialogkit.actions.registry import ActionContext
from dialogkit.spec.schema import BotFile

TWO_FLOWS: dict[str, Any] = {
    "flows": {
        "report_issue": {
            "trigger": {"keywords": ["碎了", "broken"]},
            "slots": [{"name": "order_id", "validate": [{"pattern": r"^\d+$"}, {"action": "known_order"}]}],
            "execute": {"action": "create_ticket"},
        },
        "check_status": {
            "trigger": {"keywords": ["状态", "status"]},
            "slots": [{"name": "order_id", "validate": [{"action": "known_order"}]}],
            "execute": {"action": "order_status"},
        },
    },
}


def _module(folder: Path, body: str) -> str:
    name = f"binding_probe_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return name


class TestActionUses:
    def test_every_use_with_its_path_in_file_order(self) -> None:
        spec = BotFile.model_validate(TWO_FLOWS)
        assert list(action_uses(spec)) == [
            ("create_ticket", ("flows", "report_issue", "execute", "action")),
            ("known_order", ("flows", "report_issue", "slots", 0, "validate", 1, "action")),
            ("order_status", ("flows", "check_status", "execute", "action")),
            ("known_order", ("flows", "check_status", "slots", 0, "validate", 0, "action")),
        ]

    def test_references_name_each_action_once(self) -> None:
        spec = BotFile.model_validate(TWO_FLOWS)
        assert action_references(spec) == ["create_ticket", "known_order", "order_status"]


class TestBuildActionTable:
    def test_module_functions_references_and_overrides(self, tmp_path: Path) -> None:
        """@action functions of bot.actions, a module:function, and actions= winning over both."""
        module = _module(tmp_path, """\
            from dialogkit.actions.registry import action

            @action("create_ticket")
            def create(ctx):
                return {"ticket_id": "T-1"}

            @action("order_status")
            def status(ctx):
                return {"status": "real"}

            @action("known")
            def known(value):
                return None
            """)
        data = {**copy.deepcopy(TWO_FLOWS), "bot": {"actions": module}}
        data["flows"]["report_issue"]["slots"][0]["validate"][1]["action"] = f"{module}:known"
        table = build_action_table(BotFile.model_validate(data), tmp_path, {"order_status": {"status": "stub"}})
        assert table.run("create_ticket", ActionContext()) == {"ticket_id": "T-1"}
        assert table.run("order_status", ActionContext()) == {"status": "stub"}
        assert table.validate(f"{module}:known", "12345") is None
        assert table.failures == {}

    def test_import_failures_are_kept_not_raised(self, tmp_path: Path) -> None:
        data = {"bot": {"actions": "no_such_binding_module"},
                "flows": {"f": {"trigger": {"keywords": ["x"]}, "execute": {"action": "no_such_binding_module:make"}}}}
        table = build_action_table(BotFile.model_validate(data), tmp_path)
        assert set(table.failures) == {"no_such_binding_module", "no_such_binding_module:make"}
        assert "ModuleNotFoundError" in table.failures["no_such_binding_module"]

    def test_an_overridden_reference_is_not_imported(self, tmp_path: Path) -> None:
        """A stub for module:function means the module need not exist."""
        data = {"flows": {"f": {"trigger": {"keywords": ["x"]}, "execute": {"action": "nowhere_at_all:make"}}}}
        table = build_action_table(BotFile.model_validate(data), tmp_path, {"nowhere_at_all:make": {"ok": 1}})
        assert table.failures == {}
        assert table.run("nowhere_at_all:make", ActionContext()) == {"ok": 1}
