"""The checks of ``http_actions`` that need the environment and the bot's code.

An HTTP action takes its URL (and any secret header) from an environment variable; one unset,
or holding no URL, is a load problem at the key naming it, so ``dialogkit validate`` in a
deployment's environment says which variable is missing. A name both declared here and
registered with ``@action`` in ``bot.actions`` would be ambiguous, so it is a problem too.
"""

from __future__ import annotations

from collections.abc import Iterator

from dialogkit.actions.http import HttpSetupError, is_unbuilt
from dialogkit.actions.registry import registered_actions
from dialogkit.actions.table import ActionTable
from dialogkit.errors import Problem
from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import YamlDocument, YamlPath

__all__ = ["http_problems"]


def http_problems(spec: BotFile, document: YamlDocument, table: ActionTable) -> Iterator[Problem]:
    """Every HTTP action that cannot run (unless ``actions=`` replaced it), and every name clash."""
    for name, declared in spec.http_actions.items():
        error = table.http_failures.get(name)
        if error is not None and name in table and is_unbuilt(table.get(name)):
            yield document.problem(_path_of(name, declared.url_env, declared.headers_env, error),
                                   f"http action '{name}' cannot be used: {error}", _hint(error))
        for module in spec.bot.action_modules:
            if name in registered_actions(module):
                yield document.problem(("http_actions", name), at_key=True, message=
                                       f"action '{name}' is declared in http_actions and registered with "
                                       f"@action in {module}", hint="rename one of them")


def _path_of(name: str, url_env: str, headers_env: dict[str, str], error: Exception) -> YamlPath:
    env = error.env if isinstance(error, HttpSetupError) else None
    if env == url_env:
        return ("http_actions", name, "url_env")
    header = next((h for h, var in headers_env.items() if var == env), None)
    return ("http_actions", name, "headers_env", header) if header else ("http_actions", name)


def _hint(error: Exception) -> str:
    env = error.env if isinstance(error, HttpSetupError) else None
    if env is None:
        return "install the extra: pip install 'dialogkit[http]'"
    return (f"set it where the bot runs (export {env}=...); to try the dialogue without the service: "
            f"dialogkit chat --stub-actions")
