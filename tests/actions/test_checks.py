"""Checks that need the bot's code: each problem at the name it is about, with a hint."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from dialogkit.actions.binding import ActionOverrides, build_action_table
from dialogkit.actions.checks import CodeChecks, check_code
from dialogkit.spec.loader import check_bot_text


def _check(text: str, base_dir: Path, overrides: ActionOverrides | None = None) -> CodeChecks:
    checked = check_bot_text(textwrap.dedent(text), "bot.yaml")
    assert checked.spec is not None and checked.problems == []
    table = build_action_table(checked.spec, base_dir, overrides)
    return check_code(checked.spec, checked.document, table, base_dir)


class TestActions:
    def test_an_unknown_action_at_its_name_with_a_suggestion(self, tmp_path: Path) -> None:
        found = _check("""\
            flows:
              pay:
                trigger: {keywords: [付款, pay]}
                execute: {action: take_paymnt}
            """, tmp_path, {"take_payment": {"receipt": "R-1"}})
        (problem,) = found.problems
        assert (problem.line, problem.col, problem.message) == (4, 23, "unknown action 'take_paymnt'")
        assert problem.hint == "did you mean 'take_payment'?"

    def test_a_validator_action_is_checked_too(self, tmp_path: Path) -> None:
        found = _check("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                slots:
                  - name: amount
                    validate: [{action: sane_amount}]
            """, tmp_path)
        (problem,) = found.problems
        assert (problem.line, problem.message) == (6, "unknown action 'sane_amount'")
        assert "bot.actions" in problem.hint

    def test_a_failed_module_is_reported_once_at_bot_actions(self, tmp_path: Path) -> None:
        """Not once per action it should have provided: the names go in the hint."""
        found = _check("""\
            bot: {actions: [no_such_checks_module]}
            flows:
              pay:
                trigger: {keywords: [pay]}
                execute: {action: take_payment}
              refund:
                trigger: {keywords: [退款, refund]}
                execute: {action: give_refund}
            """, tmp_path)
        (problem,) = found.problems
        assert (problem.line, problem.col) == (1, 17)
        assert problem.message.startswith("cannot import the actions module 'no_such_checks_module'")
        assert "take_payment, give_refund" in problem.hint

    def test_a_reference_that_does_not_import(self, tmp_path: Path) -> None:
        found = _check("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                execute: {action: "no_such_checks_module:pay"}
            """, tmp_path)
        (problem,) = found.problems
        assert problem.message.startswith("cannot use action 'no_such_checks_module:pay': cannot import module")


class TestMemoryActions:
    def test_a_custom_memory_action_is_resolved_once(self, tmp_path: Path) -> None:
        (tmp_path / "checks_memory_hooks.py").write_text(
            "from dialogkit import memory_action\n\n@memory_action\ndef note(ctx):\n    return None\n",
            encoding="utf-8")
        found = _check("""\
            bot:
              memory: {every_turn: [track_entities, "checks_memory_hooks:note"]}
            flows:
              pay:
                trigger: {keywords: [pay]}
                memory: {complete: [persist_slots, "checks_memory_hooks:note"]}
            """, tmp_path)
        assert found.problems == []
        assert list(found.memory_actions) == ["checks_memory_hooks:note"]

    def test_one_that_does_not_import_is_reported_where_written(self, tmp_path: Path) -> None:
        found = _check("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                memory:
                  complete: [persist_slots, "no_such_checks_module:note"]
            """, tmp_path)
        (problem,) = found.problems
        assert (problem.line, problem.col) == (5, 33)
        assert problem.message.startswith("cannot use memory action 'no_such_checks_module:note'")
        assert found.memory_actions == {}


class TestOnlyRegisteredMemoryActions:
    """A bot file names only memory actions registered for the purpose (``@memory_action``): it is
    no licence to call any function Python can import. Refused at load, never at the first turn."""

    @pytest.mark.parametrize("name", ["sys:exit", "os:system", "builtins:print"])
    def test_a_function_not_registered_is_refused_where_written(self, tmp_path: Path, name: str) -> None:
        found = _check(f"""\
            bot:
              memory: {{every_turn: [track_entities, '{name}']}}
            flows:
              pay:
                trigger: {{keywords: [pay]}}
            """, tmp_path)
        (problem,) = found.problems
        assert (problem.line, problem.col) == (2, 41)
        assert problem.message == f"cannot use memory action '{name}': it is not registered with @memory_action"
        assert "@memory_action" in problem.hint and "track_entities" in problem.hint
        assert found.memory_actions == {}

    def test_a_task_action_is_no_memory_action(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "from dialogkit import action\n\n"
                                   "@action('note')\ndef note(ctx):\n    return None\n")
        found = _check(f"""\
            flows:
              pay:
                trigger: {{keywords: [pay]}}
                memory: {{complete: [persist_slots, '{module}:note']}}
            """, tmp_path)
        (problem,) = found.problems
        assert "not registered with @memory_action" in problem.message

    def test_the_hint_offers_a_registered_one_of_that_module(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "from dialogkit import memory_action\n\n"
                                   "@memory_action\ndef note_topic(ctx):\n    return None\n\n"
                                   "def note_topc(ctx):\n    return None\n")
        found = _check(f"""\
            flows:
              pay:
                trigger: {{keywords: [pay]}}
                memory: {{complete: [persist_slots, '{module}:note_topc']}}
            """, tmp_path)
        (problem,) = found.problems
        assert problem.hint.startswith(f"did you mean '{module}:note_topic'?")

    def test_a_registered_one_is_resolved(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "from dialogkit import memory_action\n\n"
                                   "@memory_action\ndef note(ctx):\n    return None\n")
        found = _check(f"""\
            bot:
              memory: {{every_turn: [track_entities, '{module}:note']}}
            flows:
              pay:
                trigger: {{keywords: [pay]}}
            """, tmp_path)
        assert found.problems == []
        assert list(found.memory_actions) == [f"{module}:note"]

    def test_a_module_that_exits_while_imported_is_a_problem_not_an_exit(self, tmp_path: Path) -> None:
        module = _module(tmp_path, "raise SystemExit(3)\n")
        found = _check(f"""\
            bot:
              memory: {{every_turn: [track_entities, '{module}:note']}}
            flows:
              pay:
                trigger: {{keywords: [pay]}}
            """, tmp_path)
        (problem,) = found.problems
        assert problem.message.startswith(f"cannot use memory action '{module}:note': cannot import module")
        assert "SystemExit" in problem.message


def _module(folder: Path, body: str) -> str:
    name = f"checks_probe_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(body, encoding="utf-8")
    return name
