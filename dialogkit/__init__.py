"""dialogkit: declarative YAML flows compiled into state machines, with working memory.

The public API lives here; everything else is an implementation detail that may move.
"""

from dialogkit.actions.registry import ActionContext, action
from dialogkit.bot import Bot, SessionView
from dialogkit.errors import ActionError, DialogkitError, FlowError, LLMError, Problem, StoreError
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
    "SessionView",
    "StoreError",
    "action",
]
