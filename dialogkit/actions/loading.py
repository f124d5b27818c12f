"""Loading a bot: its file, checked by ``dialogkit.spec``, bound to its code.

The bot file is read and checked on its own first; when a model of it remains, its action
table is built (``bot.actions`` imported, references resolved, ``actions=`` applied) and the
checks that need code run. Every problem of every pass is raised together, in file order, as one
``FlowError``: an author fixes all mistakes in one round (docs/bot-file.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialogkit.actions.binding import ActionOverrides, build_action_table, stand_ins
from dialogkit.actions.checks import check_code
from dialogkit.actions.http_checks import http_problems
from dialogkit.actions.table import ActionTable
from dialogkit.errors import FlowError
from dialogkit.spec.loader import CheckedBotFile, check_bot_file, check_bot_text, in_file_order
from dialogkit.spec.schema import BotFile


@dataclass
class LoadedBot:
    """A bot file that passed every check, with what the runtime needs to run it."""

    spec: BotFile
    path: Path | None
    base_dir: Path
    actions: ActionTable
    memory_actions: dict[str, Callable[..., Any]]
    version: str = ""        # ``spec_version(spec)``: what sessions record to notice a changed bot file


def spec_version(spec: BotFile, digests: Mapping[str, str] | None = None) -> str:
    """The bot file's version: a hash of what it means, not of how it is written.

    Computed from the checked model as canonical JSON (defaults filled in, keys sorted), so a
    comment, a reformatted line or a default written out leaves it unchanged, while any change a
    session could notice (a flow, a slot, a rule, a prompt) gives a new one. ``spec`` is the bot
    file's own model, before its values files are read in; ``digests`` (entity type -> hash of
    its values file's bytes) stand for their content: dumping 50,000 values again to JSON cost
    half a second of every load. Sixteen hex digits (64 bits) tell one bot's releases apart and
    keep the stored session small.
    """
    document = spec.model_dump(mode="json", by_alias=True)
    if digests:
        document["values_files"] = dict(digests)       # no key of a bot file: it cannot collide
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def load_bot_file(path: str | Path, *, actions: ActionOverrides | None = None) -> LoadedBot:
    """Load and check a bot file; raises ``FlowError`` carrying every problem found."""
    file_path = Path(path)
    return _bind(check_bot_file(file_path), file_path, file_path.resolve().parent, actions)


def stand_in_actions(path: str | Path) -> dict[str, dict[str, str]]:
    """``--stub-actions``: stubs for the actions of the bot file at ``path`` that no code provides
    (none when the file itself does not check: loading it reports why)."""
    file_path = Path(path)
    spec = check_bot_file(file_path).spec
    return {} if spec is None else stand_ins(spec, file_path.resolve().parent)


def parse_bot_text(text: str | bytes, *, filename: str = "<string>", base_dir: Path | None = None,
                   actions: ActionOverrides | None = None) -> LoadedBot:
    """Like ``load_bot_file`` for YAML already in memory (tests write bots inline)."""
    return _bind(check_bot_text(text, filename), None, (base_dir or Path.cwd()).resolve(), actions)


def _bind(checked: CheckedBotFile, path: Path | None, base_dir: Path,
          overrides: ActionOverrides | None) -> LoadedBot:
    spec = checked.spec
    if spec is None:
        raise FlowError(in_file_order(checked.problems))
    table = build_action_table(spec, base_dir, overrides)
    code = check_code(spec, checked.document, table, base_dir)
    problems = [*checked.problems, *code.problems, *http_problems(spec, checked.document, table)]
    if problems:
        raise FlowError(in_file_order(problems))
    version = spec_version(checked.declared or spec, checked.digests)
    return LoadedBot(spec, path, base_dir, table, code.memory_actions, version)
