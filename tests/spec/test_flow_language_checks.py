"""Static checks of the flow language's second part: each broken file gives its position and message."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rich.console import Console

from dialogkit.cli.validate import validate_command
from dialogkit.engine.shadowed_flows import shadowed_flows
from dialogkit.spec.checks_warnings import bot_warnings
from dialogkit.spec.loader import check_bot_text
from tests.spec.helpers import load, only, problems

FLOW = """\
    entities:
      issue_type: {values: {damaged: [坏了, damaged], missing: [没收到, missing]}}
    flows:
      report:
        trigger: {keywords: [报告, report]}
        slots:
          - {name: issue_type, entity: issue_type}
          - name: photo
            ask_if: %s
        execute:
          action: create_ticket
          say: {zh: "已创建 {ticket_id}。", en: "Created {ticket_id}."}
    """


def _warnings(text: str) -> list[str]:
    checked = check_bot_text(textwrap.dedent(text), "bot.yaml")
    assert checked.spec is not None
    return [f"{p.line}:{p.col}: {p.message}" for p in bot_warnings(checked.spec, checked.document)]


class TestConditions:
    def test_an_unknown_slot_is_a_load_error_at_the_condition(self) -> None:
        problem = only(problems(FLOW % '"isue_type == \'damaged\'"', actions={"create_ticket": {}}))
        assert (problem.line, problem.col) == (9, 17)
        assert problem.message == "condition names unknown slot 'isue_type'"
        assert problem.hint == "did you mean 'issue_type'?"

    def test_a_syntax_error_is_a_load_error_at_the_condition(self) -> None:
        problem = only(problems(FLOW % '"issue_type =="', actions={"create_ticket": {}}))
        assert (problem.line, problem.col) == (9, 17)
        assert problem.message.startswith("condition is not an expression")

    def test_a_function_call_is_refused(self) -> None:
        problem = only(problems(FLOW % '"len(issue_type) > 3"', actions={"create_ticket": {}}))
        assert "calls no functions" in problem.message

    def test_a_good_condition_loads(self) -> None:
        bot = load(FLOW % '"issue_type == \'damaged\'"', actions={"create_ticket": {}})
        assert bot.spec.flows["report"].slot("photo").ask_if == "issue_type == 'damaged'"  # type: ignore[union-attr]


class TestReturnsAndThen:
    def test_a_placeholder_that_is_no_slot_and_not_returned_is_an_error(self) -> None:
        problem = only(problems("""\
            flows:
              make_return:
                trigger: {keywords: [退货, return]}
                execute:
                  action: create_return
                  returns: [rma_id]
                  say: {zh: "已创建 {rma_id}。", en: "Return {rma_number} has been created."}
            """, actions={"create_return": {}}))
        assert (problem.line, problem.col) == (7, 38)
        assert problem.message == "say placeholder {rma_number} is no slot and no key the action returns"
        assert problem.hint == "add it to execute.returns, or use one of: rma_id"

    def test_then_naming_no_flow_is_an_error(self) -> None:
        problem = only(problems("""\
            flows:
              report:
                trigger: {keywords: [report]}
                execute: {then: notfy}
              notify:
                trigger: {keywords: [notify]}
            """))
        assert (problem.line, problem.col) == (4, 21)
        assert problem.message == "then names no flow: 'notfy'"
        assert problem.hint == "did you mean 'notify'?"

    def test_when_without_then_is_an_error(self) -> None:
        problem = only(problems("""\
            flows:
              report:
                trigger: {keywords: [report]}
                slots: [{name: note}]
                execute: {when: "note == 'x'"}
            """))
        assert problem.message == "execute.when without execute.then decides nothing"


class TestOneOf:
    def test_words_on_an_integer_slot_can_never_be_produced(self) -> None:
        found = problems("""\
            flows:
              order:
                trigger: {keywords: [order]}
                slots:
                  - name: count
                    entity: integer
                    validate:
                      - one_of: [one, 2]
            """)
        problem = only(found)
        assert (problem.line, problem.col) == (8, 22)
        assert problem.message == "one_of lists 'one', which entity type 'integer' can never produce"

    def test_values_outside_a_pattern_can_never_be_produced(self) -> None:
        problem = only(problems("""\
            entities:
              order_id: {pattern: '\\d{5}'}
            flows:
              order:
                trigger: {keywords: [order]}
                slots:
                  - name: order_id
                    entity: order_id
                    validate:
                      - one_of: ["12345", ABC]
            """))
        assert (problem.line, problem.col) == (10, 31)
        assert "'ABC'" in problem.message


class TestWarnings:
    def test_a_prompt_lacking_a_language_warns_in_a_bilingual_bot(self) -> None:
        found = _warnings("""\
            flows:
              order:
                trigger: {keywords: [order]}
                slots:
                  - name: note
                    ask: {en: "Any note?"}
            """)
        assert found == ["6:14: warning: this prompt has no zh text, but the bot replies in both languages"]

    def test_a_word_edge_next_to_chinese_warns(self) -> None:
        found = _warnings("""\
            entities:
              serial: {pattern: '\\bSN[A-Z0-9]{10}'}
            flows:
              order:
                trigger: {keywords: [order]}
            """)
        assert len(found) == 1 and found[0].startswith("2:21: warning: \\b in a pattern never matches next to Chinese")

    def test_an_unpromised_placeholder_warns(self) -> None:
        found = _warnings("""\
            flows:
              order:
                trigger: {keywords: [order]}
                execute: {action: make, say: "Return {rma_number} has been created."}
            """)
        assert found == ["4:34: warning: say placeholder {rma_number} is no slot; nothing says the action returns it"]

    def test_a_shadowed_flow_warns(self) -> None:
        checked = check_bot_text(textwrap.dedent("""\
            flows:
              report_issue:
                trigger:
                  examples: [我的手机屏幕碎了, my phone arrived broken]
                  keywords: [碎了, broken]
              copy_of_report:
                trigger:
                  examples: [我的手机屏幕碎了, my phone arrived broken]
            """), "bot.yaml")
        assert checked.spec is not None
        found = list(shadowed_flows(checked.spec))
        assert len(found) == 1
        path, message, _hint = found[0]
        assert path == ("flows", "copy_of_report", "trigger", "examples")
        assert message.startswith("flow 'copy_of_report' is shadowed")

    def test_warnings_fail_validate_only_when_strict(self, tmp_path: Path) -> None:
        bot = tmp_path / "bot.yaml"
        bot.write_text("flows:\n  order:\n    trigger: {keywords: [order]}\n    slots:\n"
                       "      - {name: note, ask: {en: Any note?}}\n", encoding="utf-8")
        console = Console(record=True, width=200)
        assert validate_command([bot], console) == 0
        assert validate_command([bot], console, strict=True) == 1
        assert "bot.yaml:5:27: warning: this prompt has no zh text" in console.export_text()
