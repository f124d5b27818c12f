"""The actions one bot can run, by the names its file uses, and how each is called.

Authors write the shortest function that reads well (``def order_status(slots)``,
``def no_weekends(value)``); the table adapts each to one calling convention and turns whatever
the author's code raises into an ``ActionError``, which a flow's ``on_error`` handles.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from inspect import Parameter, signature
from typing import Any, cast

from dialogkit import tracing
from dialogkit.actions.registry import ActionContext, ActionFunc
from dialogkit.actions.stubs import is_failing_stub, stub
from dialogkit.errors import ActionError

_POSITIONAL = (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)


def adapt(func: Callable[..., Any]) -> ActionFunc:
    """Call ``func`` the way it was declared: ``f()``, ``f(slots)``, ``f(value)`` or ``f(ctx)``.

    One required parameter receives the context, except one named ``slots`` (a copy of the slot
    dict) or ``value`` (the candidate value of a validator).
    """
    try:
        params = [p for p in signature(func).parameters.values()
                  if p.kind in _POSITIONAL and p.default is p.empty]
    except (TypeError, ValueError):  # builtins without a signature: give them the context
        return func
    if not params:
        return _keeping_options(lambda ctx: func(), func)
    if params[0].name == "slots":
        return _keeping_options(lambda ctx: func(dict(ctx.slots)), func)
    if params[0].name == "value":
        return _keeping_options(lambda ctx: func(ctx.value), func)
    return func


def _keeping_options(wrapper: ActionFunc, func: Callable[..., Any]) -> ActionFunc:
    """The wrapper with ``func``'s name and attributes (``idempotent=``, ``reconcile=`` among them)."""
    return cast(ActionFunc, functools.update_wrapper(wrapper, func))


def _call(func: ActionFunc, ctx: ActionContext) -> Any:
    """Run ``func``; anything but an ``ActionError`` it raises becomes one, with the original."""
    try:
        return func(ctx)
    except ActionError:
        raise
    except (Exception, SystemExit) as exc:  # the author's code may raise anything, exit included: on_error
        raise ActionError(_described(exc), original=exc) from exc        # handles it, the process goes on


def _described(exc: BaseException) -> str:
    """The exception's message, or its type's name where it has none (or only an exit code)."""
    return type(exc).__name__ if isinstance(exc, SystemExit) or not str(exc) else str(exc)


class ActionTable:
    """The actions one bot can run, by the names its file uses.

    ``failures`` records references or ``bot.actions`` modules that could not be imported, with
    the reason, so the load can report them at their position in the file instead of raising;
    ``http_failures`` does the same for ``http_actions`` (an unset variable, httpx missing).
    """

    def __init__(self, actions: Mapping[str, ActionFunc] | None = None,
                 failures: Mapping[str, str] | None = None) -> None:
        self._actions: dict[str, ActionFunc] = dict(actions or {})
        self.failures: dict[str, str] = dict(failures or {})
        self.http_failures: dict[str, ActionError] = {}   # http actions that could not be built, with why

    @property
    def names(self) -> list[str]:
        return sorted(self._actions)

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def add(self, name: str, target: Callable[..., Any] | Mapping[str, Any]) -> None:
        """Add or replace ``name``: a callable (adapted to its signature) or a dict stub."""
        self._actions[name] = stub(name, target) if isinstance(target, Mapping) else adapt(target)

    def get(self, name: str) -> ActionFunc:
        """The callable for ``name``; its raw return value is the caller's to interpret."""
        try:
            return self._actions[name]
        except KeyError:
            raise ActionError(f"unknown action '{name}'") from None

    def run(self, name: str, ctx: ActionContext) -> dict[str, Any]:
        """Run ``name`` and return its values as a dict; every failure becomes an ``ActionError``."""
        with tracing.action(name, ctx.flow):
            result = _call(self.get(name), ctx)
        if result is None:
            return {}
        if isinstance(result, Mapping):
            return dict(result)
        return {"result": result}

    def validate(self, name: str, value: Any, ctx: ActionContext | None = None) -> str | None:
        """Run the validator action ``name`` on ``value``: its error message, or None when valid.

        A validator returns an error message (or a dict with ``error``) for a bad value, and
        None/True/empty for a good one. A ``{error: message}`` stub rejects every value with its
        message; any other exception is the validator itself failing, an ``ActionError``.
        """
        func = self.get(name)
        call_ctx = replace(ctx, value=value) if ctx is not None else ActionContext(value=value)
        try:
            with tracing.action(name, call_ctx.flow):
                result = _call(func, call_ctx)
        except ActionError as exc:
            if is_failing_stub(func):
                return str(exc)
            raise
        if isinstance(result, Mapping):
            result = result.get("error")
        if result is None or result is True or result == "":
            return None
        return "invalid value" if result is False else str(result)
