"""Importing a bot's code: ``bot.actions`` modules and ``package.module:function`` references.

A bot's code is imported from the bot file's folder and the working directory, put first on
``sys.path`` only for the import, so loading a bot leaves ``sys.path`` as it found it. YAML never
reaches ``importlib`` through ``transitions``: only callables resolved here are handed on.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from dialogkit.actions.registry import action_options
from dialogkit.errors import ActionError


def search_paths(base_dir: Path) -> list[Path]:
    """Where bot code is imported from: the bot file's folder, then the working directory."""
    return list(dict.fromkeys([base_dir.resolve(), Path.cwd().resolve()]))


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


def import_module(name: str, paths: list[Path]) -> ModuleType:
    """Import ``name`` with ``paths`` first on ``sys.path`` (only for the import).

    A module that exits while imported (``sys.exit()`` at its top level, or any ``BaseException``
    but Ctrl-C) raises ``ImportError``: loading a bot reports it as a problem of the bot file, and
    ``dialogkit validate`` or a server going through its bot files does not stop.
    """
    with _search_path(paths):
        try:
            return importlib.import_module(name)
        except (Exception, KeyboardInterrupt):
            raise
        except BaseException as exc:  # SystemExit, GeneratorExit, an author's own BaseException
            raise ImportError(f"the module raised {type(exc).__name__}({exc}) while imported") from exc


def import_reference(ref: str, paths: list[Path], *, registered: bool = False) -> Callable[..., Any]:
    """Resolve ``"package.module:function"`` to the callable; raises ``ActionError`` saying why not.

    With ``registered``, only a function registered with ``@action`` is taken: a bot file is no
    licence to call any function Python can import (``os:system``).
    """
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ActionError(f"'{ref}' is not a reference; write package.module:function")
    try:
        module = import_module(module_name, paths)
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
    if registered and action_options(target) is None:
        raise ActionError(f"'{ref}' is not an @action function; only functions registered with @action "
                          f"(or given in actions=) may be named by a bot file")
    function: Callable[..., Any] = target
    return function
