"""Conversation test files (docs/testing.md): reading, validating, and the case data they hold.

Test files are read from the YAML node tree (``spec.yaml_source.compose_yaml``, the reader bot
files use too) rather than through a constructor, for two reasons: every value keeps the position
it was written at (so each problem is reported as ``file:line:col``, like a bot file), and the
text of ``user:`` is taken exactly as written — with YAML 1.2 rules ``yes``/``no``/``on``/``off``
are strings anyway, and a number such as ``user: 0123`` must reach the bot as "0123", not as the
integer 123.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dialogkit.errors import FlowError, Problem
from dialogkit.spec.schema import STATES, parse_duration
from dialogkit.spec.yaml_source import (
    FileKind,
    compose_yaml,
    is_null,
    node_position,
    node_value,
    read_text_file,
)
from dialogkit.strings.suggest import did_you_mean
from dialogkit.testing.clock import parse_moment
from dialogkit.testing.repeats import Repeat, repeat_problem

FILE_KEYS: tuple[str, ...] = ("bot", "actions", "repeat", "min_pass", "tests")
TEST_KEYS: tuple[str, ...] = ("name", "user_id", "tags", "repeat", "min_pass", "steps")
STEP_KEYS: tuple[str, ...] = ("user", "expect", "session", "restart", "now", "wait")
EXPECT_KEYS: tuple[str, ...] = (
    "flow", "state", "slots", "bot", "options", "action", "clarify", "resolved", "summary", "entities",
    "max_context_tokens",
)
DEFAULT_SESSION = "default"
"""The name of a test's own session; ``session: default`` returns to it after another one."""

TEST_FILE = FileKind("test file", "give it `bot:` and `tests:`", "start with `bot:` and `tests:`",
                     syntax_error="invalid YAML")


@dataclass(frozen=True, slots=True)
class Step:
    """One user turn and what must hold after it."""

    user: str
    expect: dict[str, Any]
    line: int
    session: str | None = None        # None: stay in the session the previous step used
    restart: bool = False
    now: datetime | None = None       # the clock before this turn; naive: the bot's local time
    wait: float | None = None         # seconds the clock moves before this turn


@dataclass(frozen=True, slots=True)
class TestCase:
    """One scripted conversation of a test file."""

    __test__ = False  # not a pytest test class, despite the name

    name: str
    steps: tuple[Step, ...]
    file: Path
    line: int
    user_id: str | None = None
    tags: tuple[str, ...] = ()
    repeat: Repeat | None = None      # None: as its file (or the command line) says


@dataclass(frozen=True, slots=True)
class TestFile:
    """A loaded test file: the bot it drives, the action stubs, and its cases."""

    __test__ = False

    path: Path
    bot: Path
    actions: dict[str, Any] = field(default_factory=dict)
    tests: tuple[TestCase, ...] = ()
    repeat: Repeat | None = None      # None: as the command line says


def load_test_file(path: str | Path) -> TestFile:
    """Read and validate a test file; raise one ``FlowError`` listing every problem found."""
    path = Path(path)
    return parse_test_file(read_text_file(path, TEST_FILE), path)


def parse_test_file(text: str, path: Path) -> TestFile:
    """Validate test-file ``text`` (as if read from ``path``, which anchors the ``bot:`` path)."""
    reader = _Reader(str(path))
    root = compose_yaml(text, str(path), kind=TEST_FILE)
    result = reader.file(root, path)
    if reader.problems:
        raise FlowError(reader.problems)
    assert result is not None
    return result


def is_regex(pattern: str) -> bool:
    """``/.../`` marks a regular expression in ``bot``, ``options``, ``resolved`` and ``summary`` expectations."""
    return len(pattern) >= 2 and pattern.startswith("/") and pattern.endswith("/")


class _Reader:
    """Turns the node tree into cases, collecting problems instead of stopping at the first."""

    def __init__(self, file: str) -> None:
        self.file_name = file
        self.problems: list[Problem] = []

    # -- reporting -------------------------------------------------------------------------

    def problem(self, node: Node, message: str, hint: str = "") -> None:
        line, col = node_position(node)
        self.problems.append(Problem(self.file_name, line, col, message, hint))

    def unknown_key(self, key: ScalarNode, allowed: tuple[str, ...], where: str) -> None:
        close = did_you_mean(str(key.value), allowed)
        hint = f"did you mean `{close}`?" if close else "allowed keys: " + ", ".join(allowed)
        self.problem(key, f"unknown key `{key.value}` in {where}", hint)

    # -- shapes ----------------------------------------------------------------------------

    def mapping(self, node: Node, where: str, allowed: tuple[str, ...] | None) -> dict[str, tuple[Node, Node]]:
        """key -> (key node, value node); unknown and duplicate keys are problems."""
        if not isinstance(node, MappingNode):
            self.problem(node, f"{where} must be a mapping")
            return {}
        out: dict[str, tuple[Node, Node]] = {}
        for key, value in node.value:
            name = str(key.value) if isinstance(key, ScalarNode) else ""
            if allowed is not None and name not in allowed:
                self.unknown_key(key, allowed, where)
            elif name in out:
                self.problem(key, f"duplicate key `{name}` in {where}", "keep only one of them")
            else:
                out[name] = (key, value)
        return out

    def sequence(self, node: Node, where: str) -> list[Node]:
        if not isinstance(node, SequenceNode):
            self.problem(node, f"{where} must be a list")
            return []
        return list(node.value)

    def text(self, node: Node, where: str, key: Node | None = None) -> str | None:
        """A scalar's text as written (numbers included); None (with a problem) otherwise.

        An empty value (``user:`` and nothing after it) is reported at its key: the parser places
        the empty scalar after the line break, which would point the reader at the wrong line.
        """
        if not isinstance(node, ScalarNode) or is_null(node):
            empty = isinstance(node, ScalarNode) and node.value in ("", None)
            self.problem(key if empty and key is not None else node, f"{where} must be text")
            return None
        return str(node.value)

    def field(self, keys: dict[str, tuple[Node, Node]], name: str) -> str | None:
        """The text of key ``name`` when present (a problem if it is not text), else None."""
        if name not in keys:
            return None
        key, value = keys[name]
        return self.text(value, f"`{name}`", key)

    def flag(self, node: Node, where: str) -> bool:
        value = node_value(node)
        if not isinstance(value, bool):
            self.problem(node, f"{where} must be true or false")
            return False
        return value

    # -- the file --------------------------------------------------------------------------

    def file(self, root: Node, path: Path) -> TestFile | None:
        top = self.mapping(root, "the test file", FILE_KEYS)
        if not isinstance(root, MappingNode):
            return None
        bot_path = Path()
        if "bot" not in top:
            self.problem(root, "missing `bot:`", "name the bot file, relative to this test file")
        else:
            bot_text = self.field(top, "bot")
            if bot_text is not None:
                bot_path = (path.parent / bot_text).resolve()
                if not bot_path.is_file():
                    self.problem(top["bot"][1], f"bot file not found: {bot_path}",
                                 "the path is relative to the test file's folder")
        actions = self.actions(top["actions"][1]) if "actions" in top else {}
        tests: list[TestCase] = []
        if "tests" not in top:
            self.problem(root, "missing `tests:`", "add a list of tests, each with `name` and `steps`")
        else:
            seen: dict[str, Node] = {}
            for node in self.sequence(top["tests"][1], "`tests`"):
                case = self.case(node, path)
                if case is None:
                    continue
                if case.name in seen:
                    self.problem(node, f"duplicate test name `{case.name}`", "give each test its own name")
                seen[case.name] = node
                tests.append(case)
        return TestFile(path=path, bot=bot_path, actions=actions, tests=tuple(tests), repeat=self.repeat(top))

    def repeat(self, keys: dict[str, tuple[Node, Node]]) -> Repeat | None:
        """``repeat``/``min_pass`` of a test or a file; None when neither is written, or they are wrong."""
        if "repeat" not in keys and "min_pass" not in keys:
            return None
        runs = node_value(keys["repeat"][1]) if "repeat" in keys else None
        least = node_value(keys["min_pass"][1]) if "min_pass" in keys else None
        wrong = repeat_problem(runs, least)
        if wrong is not None:
            name, message, hint = wrong
            self.problem(keys[name][1], message, hint)
            return None
        return Repeat.of(runs, least) if isinstance(runs, int) else None

    def actions(self, node: Node) -> dict[str, Any]:
        """Action stubs: a mapping of values the action returns, or ``{error: message}``."""
        out: dict[str, Any] = {}
        for name, (_key, value) in self.mapping(node, "`actions`", None).items():
            stub = node_value(value)
            if stub is None:
                stub = {}
            if not isinstance(stub, dict):
                self.problem(value, f"the stub of `{name}` must be a mapping of the values it returns",
                             "e.g. {ticket_id: T-1001}, or {error: message} to take the failure path")
                continue
            if "error" in stub and not isinstance(stub["error"], str):
                self.problem(value, f"the `error` of stub `{name}` must be text")
            out[name] = stub
        return out

    def case(self, node: Node, path: Path) -> TestCase | None:
        keys = self.mapping(node, "a test", TEST_KEYS)
        if not isinstance(node, MappingNode):
            return None
        name = self.field(keys, "name")
        if "name" not in keys:
            self.problem(node, "a test needs a `name`")
        user_id = self.field(keys, "user_id")
        tags: list[str] = []
        if "tags" in keys:
            for tag in self.sequence(keys["tags"][1], "`tags`"):
                value = self.text(tag, "a tag")
                if value is not None and not re.fullmatch(r"[A-Za-z_]\w*", value):
                    self.problem(tag, f"tag `{value}` is not a valid marker name",
                                 "use letters, digits and underscores")
                elif value is not None:
                    tags.append(value)
        steps: list[Step] = []
        if "steps" not in keys:
            self.problem(node, "a test needs `steps`", "each step has `user:` and optionally `expect:`")
        else:
            step_nodes = self.sequence(keys["steps"][1], "`steps`")
            if isinstance(keys["steps"][1], SequenceNode) and not step_nodes:
                self.problem(keys["steps"][1], "a test needs at least one step")
            steps = [s for s in (self.step(n) for n in step_nodes) if s is not None]
        if name is None:
            return None
        line, _ = node_position(node)
        return TestCase(name=name, steps=tuple(steps), file=path, line=line, user_id=user_id, tags=tuple(tags),
                        repeat=self.repeat(keys))

    def step(self, node: Node) -> Step | None:
        keys = self.mapping(node, "a step", STEP_KEYS)
        if not isinstance(node, MappingNode):
            return None
        if "user" not in keys:
            self.problem(node, "a step needs `user:`", "write what the user says in this turn")
            return None
        user = self.field(keys, "user")
        session = self.field(keys, "session")
        restart = self.flag(keys["restart"][1], "`restart`") if "restart" in keys else False
        now = self.moment(keys["now"][1]) if "now" in keys else None
        wait = self.duration(keys["wait"][1]) if "wait" in keys else None
        expect = self.expect(keys["expect"][1]) if "expect" in keys else {}
        if user is None:
            return None
        return Step(user=user, expect=expect, line=node_position(node)[0], session=session, restart=restart,
                    now=now, wait=wait)

    def moment(self, node: Node) -> datetime | None:
        """``now:`` — an ISO date and time; the test clock reads a naive one in the bot's time zone."""
        text = self.text(node, "`now`")
        if text is None:
            return None
        try:
            return parse_moment(text)
        except ValueError:
            self.problem(node, f"`now` is not a date and time: {text!r}",
                         'write it as "2026-12-01T09:00" (the bot\'s time zone) or with an offset, '
                         '"2026-12-01T09:00+08:00"')
            return None

    def duration(self, node: Node) -> float | None:
        """``wait:`` — a duration as ``session_timeout`` takes it: 31m, 2h, 45s, 1d, or seconds."""
        text = self.text(node, "`wait`")
        if text is None:
            return None
        try:
            return parse_duration(text)
        except ValueError:
            self.problem(node, f"`wait` is not a duration: {text!r}", "write e.g. 31m, 2h, 45s or 1d")
            return None

    # -- expectations ----------------------------------------------------------------------

    def expect(self, node: Node) -> dict[str, Any]:
        if is_null(node):
            return {}
        out: dict[str, Any] = {}
        for name, (_key, value) in self.mapping(node, "`expect`", EXPECT_KEYS).items():
            checked = getattr(self, f"expect_{name}")(value)
            if checked is not _INVALID:
                out[name] = checked
        return out

    def expect_flow(self, node: Node) -> Any:
        if is_null(node):
            return None          # `flow: null`: no task is active (IDLE)
        return self.text(node, "`flow`") or _INVALID

    def expect_state(self, node: Node) -> Any:
        value = self.text(node, "`state`")
        if value is None:
            return _INVALID
        if value not in STATES:
            close = did_you_mean(value, STATES)
            hint = f"did you mean `{close}`?" if close else "states: " + ", ".join(STATES)
            self.problem(node, f"unknown state `{value}`", hint)
            return _INVALID
        return value

    def expect_slots(self, node: Node) -> Any:
        values = self._written_values(node, "`slots`")  # reports a node that is not a mapping
        return values if isinstance(node, MappingNode) else _INVALID

    def _written_values(self, node: Node, where: str) -> dict[str, Any]:
        """A mapping's values with numbers as written (the comparison normalises them)."""
        return {k: node_value(v, keep_numbers=True) for k, (_key, v) in self.mapping(node, where, None).items()}

    def _pattern(self, node: Node, where: str) -> Any:
        value = self.text(node, where)
        if value is None:
            return _INVALID
        if is_regex(value):
            try:
                re.compile(value[1:-1])
            except re.error as exc:
                self.problem(node, f"bad regular expression in {where}: {exc}")
                return _INVALID
        return value

    def expect_bot(self, node: Node) -> Any:
        return self._pattern(node, "`bot`")

    def expect_options(self, node: Node) -> Any:
        """The quick replies, in order, each a substring or ``/regex/`` as in ``bot``; [] for none."""
        if not isinstance(node, SequenceNode):
            self.problem(node, "`options` must be a list: the quick replies offered, in order",
                         "write options: [Confirm, Cancel], or options: [] for none")
            return _INVALID
        items = [self._pattern(item, "`options`") for item in node.value]
        return _INVALID if any(item is _INVALID for item in items) else items

    def expect_resolved(self, node: Node) -> Any:
        return self._pattern(node, "`resolved`")

    def expect_summary(self, node: Node) -> Any:
        return self._pattern(node, "`summary`")

    def expect_action(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            if is_null(node):
                return None      # `action: null`: no action ran in this step
            return str(node.value)
        keys = self.mapping(node, "`action`", ("name", "with"))
        if not isinstance(node, MappingNode):
            return _INVALID
        if "name" not in keys:
            self.problem(node, "`action` needs a `name`", "write {name: create_ticket, with: {order_id: '123'}}")
            return _INVALID
        name = self.text(keys["name"][1], "`action.name`")
        with_ = self._written_values(keys["with"][1], "`with`") if "with" in keys else {}
        return _INVALID if name is None else {"name": name, "with": with_}

    def expect_clarify(self, node: Node) -> Any:
        if isinstance(node, SequenceNode):
            return [node_value(item, keep_numbers=True) for item in node.value]
        value = node_value(node)
        if not isinstance(value, bool):
            self.problem(node, "`clarify` must be true, false, or the list of candidates")
            return _INVALID
        return value

    def expect_entities(self, node: Node) -> Any:
        if isinstance(node, ScalarNode) and not is_null(node):
            return [node_value(node, keep_numbers=True)]
        items = self.sequence(node, "`entities`")
        return [node_value(item, keep_numbers=True) for item in items] if isinstance(node, SequenceNode) else _INVALID

    def expect_max_context_tokens(self, node: Node) -> Any:
        value = node_value(node)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(node, "`max_context_tokens` must be a whole number of tokens")
            return _INVALID
        return value


_INVALID = object()


def iter_test_files(paths: list[Path]) -> Iterator[Path]:
    """Files to run: a file as given, a directory searched recursively for ``test_*.yaml``."""
    for path in paths:
        if path.is_dir():
            found = sorted({*path.rglob("test_*.yaml"), *path.rglob("test_*.yml")})
            yield from (p for p in found if not any(part.startswith(".") for part in p.relative_to(path).parts))
        else:
            yield path
