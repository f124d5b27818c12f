"""Binding a bot file's action names to code: the bot's ``ActionTable``.

The names come from ``execute.action`` and slot ``validate: - action:`` (docs/bot-file.md). They
resolve to the ``@action`` functions of the ``bot.actions`` modules, or to a
``package.module:function`` reference; ``overrides`` (a test file's stubs, ``actions=``) win.
Import failures do not raise here: they are kept in ``table.failures`` so that the load can
report each at its position in the file, together with every other problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from dialogkit.actions.http import http_actions, unbuilt
from dialogkit.actions.importer import import_module, import_reference, search_paths
from dialogkit.actions.registry import registered_actions
from dialogkit.actions.table import ActionTable
from dialogkit.errors import ActionError
from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import YamlPath

ActionOverrides = Mapping[str, Callable[..., Any] | Mapping[str, Any]]
"""Actions given in code, by name: a callable, or a dict stub of the values it returns."""


def action_uses(spec: BotFile) -> Iterator[tuple[str, YamlPath]]:
    """Every place the bot file names an action, with the path of that name, in file order."""
    for flow_name, flow in spec.flows.items():
        base: YamlPath = ("flows", flow_name)
        if flow.execute.action:
            yield flow.execute.action, (*base, "execute", "action")
        for slot_index, slot in enumerate(flow.slots):
            if slot.choices is not None:
                yield slot.choices.action, (*base, "slots", slot_index, "choices", "action")
            for rule_index, rule in enumerate(slot.validate_):
                if rule.action:
                    yield rule.action, (*base, "slots", slot_index, "validate", rule_index, "action")
    handoff = spec.bot.handoff_action
    if handoff is not None:
        yield handoff.action, ("bot", "handoff", "action")


def action_references(spec: BotFile) -> list[str]:
    """Every action name the bot file uses, once each, in the order first used."""
    return list(dict.fromkeys(name for name, _ in action_uses(spec)))


def stand_ins(spec: BotFile, base_dir: Path) -> dict[str, dict[str, str]]:
    """Stubs for the actions the bot file names that no code provides yet, so the dialogue can be
    tried before they are written (``--stub-actions``), or before an HTTP action's variables are
    set: a task's action returns ``<key>`` for each key it ``returns``, a validator accepts every
    value. A ``choices`` action has no stand-in: its options are the bot's to give."""
    known = build_action_table(spec, base_dir)
    returns = {flow.execute.action: flow.execute.returns for flow in spec.flows.values() if flow.execute.action}
    choosers = {slot.choices.action for flow in spec.flows.values() for slot in flow.slots if slot.choices}
    missing = [name for name in action_references(spec) if name not in known or name in known.http_failures]
    return {name: {key: f"<{key}>" for key in returns.get(name, ())} for name in missing if name not in choosers}


def build_action_table(spec: BotFile, base_dir: Path, overrides: ActionOverrides | None = None) -> ActionTable:
    """Import ``bot.actions``, build ``http_actions``, resolve ``module:function`` names, then apply
    ``overrides``."""
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
    built, failed = http_actions(spec)
    for name, http in built.items():
        table.add(name, http)
    table.http_failures.update(failed)
    for name, error in failed.items():
        table.add(name, unbuilt(error))     # known, so no "unknown action"; the load reports why
    for ref in action_references(spec):
        if ":" in ref and ref not in overrides:
            try:
                table.add(ref, import_reference(ref, paths, registered=True))
            except ActionError as exc:
                table.failures[ref] = str(exc)
    for name, target in overrides.items():
        table.add(name, target)
    return table
