"""dialogkit: declarative YAML flows compiled into state machines, with working memory.

The public API lives here; everything else is an implementation detail that may move.

Only the errors are imported with the package; every other public name is imported the first
time it is used (PEP 562 ``__getattr__``). ``dialogkit validate`` and an actions module's
``from dialogkit import action`` therefore do not load the whole turn runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dialogkit.errors import ActionError, DialogkitError, FlowError, LLMError, Problem, SessionOwnerError, StoreError

if TYPE_CHECKING:
    from dialogkit.actions.registry import ActionContext, action, memory_action
    from dialogkit.bot import Bot, SessionView
    from dialogkit.model.reply import ActionRun, Reply

__version__ = "0.1.0"

__all__ = [
    "ActionContext",
    "ActionError",
    "ActionRun",
    "Bot",
    "DialogkitError",
    "FlowError",
    "LLMError",
    "Problem",
    "Reply",
    "SessionOwnerError",
    "SessionView",
    "StoreError",
    "action",
    "memory_action",
]

_LAZY = {
    "ActionContext": "dialogkit.actions.registry",
    "action": "dialogkit.actions.registry",
    "memory_action": "dialogkit.actions.registry",
    "Bot": "dialogkit.bot",
    "SessionView": "dialogkit.bot",
    "ActionRun": "dialogkit.model.reply",
    "Reply": "dialogkit.model.reply",
}


def __getattr__(name: str) -> Any:
    """A public name imported on first use, then kept in the module like an eager import."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dialogkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
