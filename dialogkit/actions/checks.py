"""The checks of a bot file that need its code: actions and ``module:function`` memory actions.

``dialogkit.spec`` checks the bot file on its own; these checks run once its action table is
built, and their problems join spec's, each at the position of the name it is about
(docs/bot-file.md, "execute" and "memory"). Custom memory actions are resolved along the way;
like task actions, only functions their author registered (``@memory_action``) are taken.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialogkit.actions.binding import action_references, action_uses
from dialogkit.actions.importer import import_reference, search_paths
from dialogkit.actions.registry import is_memory_action
from dialogkit.actions.table import ActionTable
from dialogkit.errors import ActionError, Problem
from dialogkit.spec.schema import BUILTIN_MEMORY_ACTIONS, BotFile
from dialogkit.spec.validation import memory_lists
from dialogkit.spec.yaml_source import YamlDocument, YamlPath
from dialogkit.strings.suggest import did_you_mean


@dataclass
class CodeChecks:
    """What checking a bot file against its code found: problems, and the custom memory actions."""

    problems: list[Problem] = field(default_factory=list)
    memory_actions: dict[str, Callable[..., Any]] = field(default_factory=dict)


def check_code(spec: BotFile, document: YamlDocument, table: ActionTable, base_dir: Path) -> CodeChecks:
    """Every action the file names must be in ``table``; every custom memory action must import
    and be registered with ``@memory_action``."""
    found = CodeChecks()
    for name, path in action_uses(spec):
        problem = _action_use_problem(spec, document, table, name, path)
        if problem is not None:
            found.problems.append(problem)
    found.problems.extend(_module_problems(spec, document, table, base_dir))
    for names, path in memory_lists(spec):
        _resolve_memory_actions(names, path, document, base_dir, found)
    return found


def _action_use_problem(spec: BotFile, document: YamlDocument, table: ActionTable,
                        name: str, path: YamlPath) -> Problem | None:
    if name in table:
        return None
    if ":" in name:
        reason = table.failures.get(name, "it could not be resolved")
        hint = ("decorate the function with @action in the bot's own code, or pass it in actions="
                if "not an @action" in reason else
                "check the module path (imported from the bot file's folder and the working directory)")
        return document.problem(path, f"cannot use action '{name}': {reason}", hint)
    if any(module in table.failures for module in spec.bot.action_modules):
        return None  # reported once, at bot.actions, with the names it should provide
    guess = did_you_mean(name, table.names)
    if guess:
        hint = f"did you mean '{guess}'?"
    elif spec.bot.action_modules:
        hint = f"register it with @action(\"{name}\") in {', '.join(spec.bot.action_modules)}"
    else:
        hint = "name a module of @action functions in bot.actions, or write package.module:function"
    if not guess:
        hint += " (to try the dialogue first: dialogkit chat --stub-actions)"
    return document.problem(path, f"unknown action '{name}'", hint)


def _module_problems(spec: BotFile, document: YamlDocument, table: ActionTable, base_dir: Path) -> list[Problem]:
    """A ``bot.actions`` module that failed to import, when some action name still needs it."""
    needed = [n for n in action_references(spec) if ":" not in n and n not in table]
    if not needed:
        return []  # every name is supplied (by another module or by overrides)
    problems: list[Problem] = []
    single = isinstance(spec.bot.actions, str)
    for index, module in enumerate(spec.bot.action_modules):
        if module in table.failures:
            path: YamlPath = ("bot", "actions") if single else ("bot", "actions", index)
            problems.append(document.problem(
                path, f"cannot import the actions module '{module}': {table.failures[module]}",
                f"it should define @action functions for {', '.join(needed)}; it is looked up in "
                f"{base_dir} and the working directory"))
    return problems


def _resolve_memory_actions(names: list[str], path: YamlPath, document: YamlDocument, base_dir: Path,
                            found: CodeChecks) -> None:
    for index, name in enumerate(names):
        if ":" not in name or name in found.memory_actions:
            continue
        try:
            func = import_reference(name, search_paths(base_dir))
        except ActionError as error:
            found.problems.append(document.problem(
                (*path, index), f"cannot use memory action '{name}': {error}",
                "a custom memory action is written package.module:function"))
            continue
        if is_memory_action(func):
            found.memory_actions[name] = func
            continue
        found.problems.append(document.problem(
            (*path, index), f"cannot use memory action '{name}': it is not registered with @memory_action",
            _unregistered_hint(name)))


def _unregistered_hint(name: str) -> str:
    """A registered memory action of the same module spelt alike, else how to register one."""
    module_name = name.partition(":")[0]
    module = sys.modules.get(module_name)
    registered = [f"{module_name}:{attr}" for attr, value in vars(module).items()
                  if is_memory_action(value)] if module is not None else []
    guess = did_you_mean(name, registered)
    how = ("decorate a function of the bot's own code with @memory_action (from dialogkit import "
           "memory_action) and name it package.module:function; built-in: " + ", ".join(BUILTIN_MEMORY_ACTIONS))
    return f"did you mean '{guess}'? Otherwise {how}" if guess else how
