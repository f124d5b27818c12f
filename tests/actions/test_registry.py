"""``@action``: registration by module, returned unchanged, found by name."""

from __future__ import annotations

import pytest

from dialogkit.actions.registry import (
    ActionContext,
    action,
    find_registered,
    is_memory_action,
    memory_action,
    registered_actions,
)


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


class TestMemoryAction:
    def test_the_function_comes_back_unchanged_and_marked(self) -> None:
        def note(ctx: object) -> None:
            return None

        assert memory_action(note) is note and is_memory_action(note)

    def test_a_task_action_or_a_plain_function_is_none(self) -> None:
        @action("registry_memory_probe")
        def probe(ctx: ActionContext) -> None:
            return None

        assert not is_memory_action(probe) and not is_memory_action(print)

    def test_a_name_in_brackets_is_refused_with_how_to_write_it(self) -> None:
        with pytest.raises(ValueError, match="written bare"):
            memory_action("note_topic")  # type: ignore[type-var]  # the slip this test is about


class TestActionContext:
    def test_defaults_describe_an_empty_turn(self) -> None:
        """A validator may be called with only a value; everything else has a neutral default."""
        ctx = ActionContext(value="12345")
        assert (ctx.slots, ctx.language, ctx.idempotency_key, ctx.value) == ({}, "en", "", "12345")
