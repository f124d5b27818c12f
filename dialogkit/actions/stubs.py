"""Actions made of data: ``{ticket_id: T-1001}`` returns those values, ``{error: message}`` fails.

Test files and ``Bot.from_file(actions=...)`` stand in for real actions this way
(docs/testing.md, "stubs"). A stub returns a fresh copy on every call, so a caller that changes
the result cannot change what the next call returns.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext, ActionFunc
from dialogkit.errors import ActionError

_FAILING = "__dialogkit_stub__"


def stub(name: str, values: Mapping[str, Any]) -> ActionFunc:
    """The action ``name`` as a stub of ``values``: a copy of them, or an ``ActionError``."""
    frozen = copy.deepcopy(dict(values))
    if set(frozen) == {"error"}:
        return _failing(name, str(frozen["error"]))

    def succeeding(ctx: ActionContext) -> Any:
        return copy.deepcopy(frozen)

    succeeding.__name__ = f"stub_{name}"
    return succeeding


def _failing(name: str, message: str) -> ActionFunc:
    def failing(ctx: ActionContext) -> Any:
        raise ActionError(message)

    failing.__name__ = f"stub_{name}"
    setattr(failing, _FAILING, True)
    return failing


def is_failing_stub(func: Callable[..., Any]) -> bool:
    """True for an ``{error: message}`` stub: as a validator, its message is the verdict."""
    return bool(getattr(func, _FAILING, False))
