"""``@action``: registration by module, returned unchanged, found by name."""

from __future__ import annotations

import pytest

from dialogkit.actions.registry import ActionContext, action, find_registered, registered_actions


class TestAction:
    def test_the_function_comes_back_unchanged_and_is_filed_under_its_module(self) -> None:
        @action("registry_unit_probe")
        def probe(ctx: ActionContext) -> dict[str, str]:
            return {}

        assert registered_actions(__name__)["registry_unit_probe"] is probe
        assert find_registered("registry_unit_probe") is probe

    @pytest.mark.parametrize("name", ["", "   "])
    def test_a_blank_name_is_refused(self, name: str) -> None:
        with pytest.raises(ValueError, match="non-empty name"):
            action(name)

    def test_a_module_that_registered_nothing(self) -> None:
        assert registered_actions("no_such_module_registered_anything") == {}
        assert find_registered("never_registered_anywhere") is None


class TestActionContext:
    def test_defaults_describe_an_empty_turn(self) -> None:
        """A validator may be called with only a value; everything else has a neutral default."""
        ctx = ActionContext(value="12345")
        assert (ctx.slots, ctx.language, ctx.idempotency_key, ctx.value) == ({}, "en", "", "12345")
