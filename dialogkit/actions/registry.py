"""The author's side of actions: ``@action("create_ticket")`` and what an action is given.

An author writes ``@action("create_ticket")`` in the module named by ``bot.actions``; the bot file
says ``execute: {action: create_ticket}`` (docs/bot-file.md, "execute"). Registering only records
the function under its module, so two bots defining ``create_ticket`` do not clash; loading a bot
(``dialogkit.actions.loading``) picks the functions of the modules that bot names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

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


@dataclass(frozen=True)
class ActionOptions:
    """What the runtime may do after a crash left an action's outcome unknown (docs/bot-file.md,
    "Actions run at most once"): run it again with the same ``idempotency_key`` when the
    receiving system deduplicates (``idempotent``), or ask ``reconcile(ctx)``, which returns the
    action's result when it did run and None when it did not."""

    idempotent: bool = False
    reconcile: Callable[[ActionContext], Any] | None = None


def action_options(func: object) -> ActionOptions | None:
    """The options ``@action`` gave ``func``, or None for a function it did not register."""
    options = getattr(func, "__dialogkit_options__", None)
    return options if isinstance(options, ActionOptions) else None


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def action(name: str, *, idempotent: bool = False,
           reconcile: Callable[[ActionContext], Any] | None = None) -> Decorator:
    """Register the decorated function as the action ``name`` of its module; returns it unchanged."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("@action needs a non-empty name, e.g. @action(\"create_ticket\")")
    if reconcile is not None and not callable(reconcile):
        raise ValueError(f"@action({name!r}, reconcile=...) needs a function of the action's context")
    options = ActionOptions(bool(idempotent), reconcile)

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        module = getattr(func, "__module__", None) or "__main__"
        _REGISTRY.setdefault(module, {})[name] = func
        # Whoever holds the function can ask which name it was registered under, and its options.
        func.__dialogkit_action__ = name  # type: ignore[attr-defined]  # functions take attributes
        func.__dialogkit_options__ = options  # type: ignore[attr-defined]
        return func

    return register


def registered_actions(module: str) -> dict[str, Callable[..., Any]]:
    """The actions ``module`` registered with ``@action`` (empty when it registered none)."""
    return dict(_REGISTRY.get(module, {}))


F = TypeVar("F", bound=Callable[..., Any])


def memory_action(func: F) -> F:
    """Register ``func`` as a memory action a bot file may name as ``package.module:function``.

    A bot file is no licence to run whatever Python can import (``os:system``): like a task
    action, a custom memory action must be marked for the purpose by the code's author. It is
    called with the turn's context after the state change; returned unchanged.
    """
    if not callable(func) or isinstance(func, str):
        raise ValueError("@memory_action is written bare above the function (@memory_action, then "
                         "def note_topic(ctx): ...); the bot file names it package.module:note_topic")
    func.__dialogkit_memory_action__ = True  # type: ignore[attr-defined]  # functions take attributes
    return func


def is_memory_action(func: object) -> bool:
    """Whether ``@memory_action`` registered ``func``."""
    return getattr(func, "__dialogkit_memory_action__", False) is True


def find_registered(name: str) -> Callable[..., Any] | None:
    """A function registered under ``name`` in any imported module (the most recent one wins)."""
    for module in reversed(list(_REGISTRY)):
        if name in _REGISTRY[module]:
            return _REGISTRY[module][name]
    return None
