"""Custom actions: the ``@action`` registry and the per-bot table the runtime calls.

An author writes ``@action("create_ticket")`` in the module named by ``bot.actions``; the bot file
says ``execute: {action: create_ticket}``. Loading a bot imports that module (with the bot file's
folder and the working directory on ``sys.path``), collects what it registered, resolves any
``package.module:function`` references, and lets ``actions=`` overrides (the test harness's stubs)
win. The registry is keyed by module so two bots defining ``create_ticket`` do not clash.

YAML never reaches ``importlib`` directly through ``transitions``: only names resolved here, to
callables, are handed to the runtime.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dialogkit.errors import ActionError
from dialogkit.spec.schema import BotFile

ActionFunc = Callable[["ActionContext"], Any]

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


def action(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the action ``name`` of its module; returns it unchanged."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("@action needs a non-empty name, e.g. @action(\"create_ticket\")")

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        module = getattr(func, "__module__", None) or "__main__"
        _REGISTRY.setdefault(module, {})[name] = func
        func.__dialogkit_action__ = name  # type: ignore[attr-defined]
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


@contextmanager
def _search_path(paths: list[Path]) -> Iterator[None]:
    added = [str(p) for p in paths if str(p) not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for entry in added:
            if entry in sys.path:
                sys.path.remove(entry)


def import_module(name: str, search_paths: list[Path]) -> Any:
    """Import ``name`` with ``search_paths`` first on ``sys.path`` (only for the import)."""
    with _search_path(search_paths):
        return importlib.import_module(name)


def import_reference(ref: str, search_paths: list[Path]) -> Callable[..., Any]:
    """Resolve ``"package.module:function"`` to the callable; raises ``ActionError`` saying why not."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ActionError(f"'{ref}' is not a reference; write package.module:function")
    try:
        module = import_module(module_name, search_paths)
    except Exception as exc:  # an author's module may raise anything while importing
        raise ActionError(f"cannot import module '{module_name}': {exc}", original=exc) from exc
    target: Any = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as exc:
            raise ActionError(f"module '{module_name}' has no '{attr}'", original=exc) from exc
    if not callable(target):
        raise ActionError(f"'{ref}' is not callable")
    return target


def _adapt(func: Callable[..., Any]) -> ActionFunc:
    """Call ``func`` the way it was declared: ``f()``, ``f(slots)`` or ``f(ctx)``.

    One parameter receives the context, except one named ``slots`` (the slot dict) or ``value``
    (the candidate value of a validator), so short functions read naturally:
    ``def order_status(slots): ...``, ``def no_weekends(value): ...``.
    """
    try:
        params = [
            p for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):  # builtins without a signature: give them the context
        return func
    if not params:
        return lambda ctx: func()
    if params[0].name == "slots":
        return lambda ctx: func(dict(ctx.slots))
    if params[0].name == "value":
        return lambda ctx: func(ctx.value)
    return func


def _stub(name: str, values: Mapping[str, Any]) -> ActionFunc:
    """A dict stub: returns a copy of its values, or raises when it is just ``{error: message}``."""
    frozen = copy.deepcopy(dict(values))
    if set(frozen) == {"error"}:
        message = str(frozen["error"])

        def failing(ctx: ActionContext) -> Any:
            raise ActionError(message)

        failing.__name__ = f"stub_{name}"
        failing.__dialogkit_stub__ = True  # type: ignore[attr-defined]
        return failing

    def succeeding(ctx: ActionContext) -> Any:
        return copy.deepcopy(frozen)

    succeeding.__name__ = f"stub_{name}"
    return succeeding


class ActionTable:
    """The actions one bot can run, by the names its file uses.

    ``failures`` records references or ``bot.actions`` modules that could not be imported, with the
    reason, so the loader can report them at their position in the file instead of raising here.
    """

    def __init__(self, actions: Mapping[str, ActionFunc] | None = None,
                 failures: Mapping[str, str] | None = None) -> None:
        self._actions: dict[str, ActionFunc] = dict(actions or {})
        self.failures: dict[str, str] = dict(failures or {})

    @property
    def names(self) -> list[str]:
        return sorted(self._actions)

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def add(self, name: str, target: Callable[..., Any] | Mapping[str, Any]) -> None:
        """Add or replace ``name``: a callable (adapted to its signature) or a dict stub."""
        self._actions[name] = _stub(name, target) if isinstance(target, Mapping) else _adapt(target)

    def get(self, name: str) -> ActionFunc:
        """The callable for ``name``; its raw return value is the caller's to interpret."""
        try:
            return self._actions[name]
        except KeyError:
            raise ActionError(f"unknown action '{name}'") from None

    def run(self, name: str, ctx: ActionContext) -> dict[str, Any]:
        """Run ``name`` and return its values as a dict; every failure becomes an ``ActionError``."""
        func = self.get(name)
        try:
            result = func(ctx)
        except ActionError:
            raise
        except Exception as exc:  # the author's code may raise anything; on_error handles it
            raise ActionError(str(exc) or type(exc).__name__, original=exc) from exc
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
            result = func(call_ctx)
        except ActionError as exc:
            if getattr(func, "__dialogkit_stub__", False):
                return str(exc)
            raise
        except Exception as exc:  # the author's validator may raise anything
            raise ActionError(str(exc) or type(exc).__name__, original=exc) from exc
        if isinstance(result, Mapping):
            result = result.get("error")
        if result is None or result is True or result == "":
            return None
        return "invalid value" if result is False else str(result)


def action_references(spec: BotFile) -> list[str]:
    """Every action name the bot file uses: ``execute.action`` and slot ``validate: - action:``."""
    names: list[str] = []
    for flow in spec.flows.values():
        if flow.execute.action:
            names.append(flow.execute.action)
        for slot in flow.slots:
            names.extend(rule.action for rule in slot.validate_ if rule.action)
    return list(dict.fromkeys(names))


def search_paths(base_dir: Path) -> list[Path]:
    """Where bot code is imported from: the bot file's folder, then the working directory."""
    return list(dict.fromkeys([base_dir.resolve(), Path.cwd().resolve()]))


def build_action_table(spec: BotFile, base_dir: Path,
                       overrides: Mapping[str, Callable[..., Any] | Mapping[str, Any]] | None = None
                       ) -> ActionTable:
    """Import ``bot.actions``, resolve ``module:function`` names, then apply ``overrides``.

    Import failures do not raise: they land in ``table.failures`` (keyed by the module or the
    reference) for the loader to turn into positioned problems.
    """
    table = ActionTable()
    paths = search_paths(base_dir)
    overrides = dict(overrides or {})
    for module_name in spec.bot.action_modules:
        try:
            import_module(module_name, paths)
        except Exception as exc:  # a missing module, or one that raises while importing
            table.failures[module_name] = f"{type(exc).__name__}: {exc}"
            continue
        for name, func in registered_actions(module_name).items():
            table.add(name, func)
    for ref in action_references(spec):
        if ":" in ref and ref not in overrides:
            try:
                table.add(ref, import_reference(ref, paths))
            except ActionError as exc:
                table.failures[ref] = str(exc)
    for name, target in overrides.items():
        table.add(name, target)
    return table
