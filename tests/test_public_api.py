"""The front door: ``dialogkit/__init__.py`` exports exactly the public API."""

from __future__ import annotations

import dialogkit


def test_all_is_exactly_the_public_surface() -> None:
    """Adding or removing a public name is a deliberate act: this list changes with it."""
    assert sorted(dialogkit.__all__) == [
        "ActionContext", "ActionError", "ActionRun", "Bot", "DialogkitError", "FlowError", "LLMError",
        "Problem", "Reply", "SessionOwnerError", "SessionView", "StoreError", "action", "memory_action",
    ]
    for name in dialogkit.__all__:
        assert getattr(dialogkit, name) is not None


def test_every_error_is_a_dialogkit_error() -> None:
    """One base class catches everything dialogkit raises on purpose."""
    for error in (dialogkit.FlowError, dialogkit.StoreError, dialogkit.ActionError, dialogkit.LLMError):
        assert issubclass(error, dialogkit.DialogkitError)
