"""The author's side of actions: ``@action("create_ticket")`` and what an action is given.

An author writes ``@action("create_ticket")`` in the module named by ``bot.actions``; the bot file
says ``execute: {action: create_ticket}`` (docs/bot-file.md, "execute"). Registering only records
the function under its module, so two bots defining ``create_ticket`` do not clash; loading a bot
(``dialogkit.actions.loading``) picks the functions of the modules that bot names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# module name -> registered name -> the function as written
_REGISTRY: dict[str, dict[str, Callable[..., Any]]] = {}


@dataclass
class ActionContext:
    """What an action sees of the turn; ``session`` is the live Session, read-only by convention.

    ``idempotency_key`` is stable for one confirmed task (session id + task id) so an action that
    calls an outside system can pass it on and survive a retried "yes". ``value`` carries the
    candidate value when the action is a slot validator.
    """

    slots: dict[str, Any] = field(default_factory=dict)
    session_id: str = ""
    user_id: str = ""
    flow: str = ""
    language: str = "en"
    idempotency_key: str = ""
    session: Any = None
    value: Any = None


ActionFunc = Callable[[ActionContext], Any]
"""An action as the runtime calls it: one context in, the action's raw result out."""


def action(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the action ``name`` of its module; returns it unchanged."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("@action needs a non-empty name, e.g. @action(\"create_ticket\")")

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        module = getattr(func, "__module__", None) or "__main__"
        _REGISTRY.setdefault(module, {})[name] = func
        # Whoever holds the function can ask which name it was registered under.
        func.__dialogkit_action__ = name  # type: ignore[attr-defined]  # functions take attributes
        return func

    return register


def registered_actions(module: str) -> dict[str, Callable[..., Any]]:
    """The actions ``module`` registered with ``@action`` (empty when it registered none)."""
    return dict(_REGISTRY.get(module, {}))


def find_registered(name: str) -> Callable[..., Any] | None:
    """A function registered under ``name`` in any imported module (the most recent one wins)."""
    for module in reversed(list(_REGISTRY)):
        if name in _REGISTRY[module]:
            return _REGISTRY[module][name]
    return None
