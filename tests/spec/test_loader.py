"""Loading a bot file: the shipped bot loads; every mistake comes back positioned, all at once."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from dialogkit.actions.loading import load_bot_file, parse_bot_text
from dialogkit.errors import FlowError, Problem
from dialogkit.spec.loader import check_bot_text, in_file_order
from tests.spec.helpers import load, only, problems

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
FIXTURES = Path(__file__).parent / "fixtures"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "已发货"}}

MINIMAL = """\
flows:
  greet:
    trigger: {examples: [你好, hello there]}
    execute: {say: {zh: "你好！", en: "Hello!"}}
"""


class TestShippedBot:
    def test_support_bot_loads_with_stubbed_actions(self) -> None:
        """flows/support_ticket.yaml loads; stubs count as known actions."""
        bot = load_bot_file(SUPPORT, actions=STUBS)
        assert set(bot.spec.flows) == {"report_issue", "check_status", "return_order"}
        assert {"create_ticket", "order_status"} <= set(bot.actions.names)
        assert bot.path == SUPPORT
        assert bot.base_dir == SUPPORT.parent

    @pytest.mark.skipif(importlib.util.find_spec("examples.support_actions") is None,
                        reason="examples/support_actions.py not written yet")
    def test_support_bot_loads_its_own_actions_module(self) -> None:
        """bot.actions names examples.support_actions; its @action functions are found."""
        bot = load_bot_file(SUPPORT)
        assert {"create_ticket", "order_status"} <= set(bot.actions.names)

    def test_support_bot_prompts_in_both_languages(self) -> None:
        """The ask of order_id has a zh and an en text."""
        bot = load_bot_file(SUPPORT, actions=STUBS)
        ask = bot.spec.flows["report_issue"].slot("order_id").ask
        assert "订单号" in ask.zh and "order number" in ask.en


class TestThreeProblems:
    def test_all_three_are_reported_together_with_positions(self) -> None:
        """A misspelt key, a bad regex and an unknown entity type: one FlowError, three problems."""
        with pytest.raises(FlowError) as caught:
            load_bot_file(FIXTURES / "three_problems.yaml")
        found = caught.value.problems
        assert [(p.line, p.col) for p in found] == [(8, 14), (19, 9), (21, 17)]
        regex, key, entity = found
        assert "not a valid regular expression" in regex.message and "unterminated" in regex.message
        assert "unknown key 'promt'" in key.message and key.hint == "did you mean 'ask'?"
        assert "unknown entity type 'dat'" in entity.message and entity.hint == "did you mean 'date'?"
        assert all(p.file.endswith("three_problems.yaml") for p in found)
        assert str(caught.value).startswith("3 problems found")


class TestUnknownKeys:
    @pytest.mark.parametrize("prompt", ['{zh: "请输入金额"}', '{en: "How much?"}'], ids=["zh", "en"])
    def test_misspelt_prompt_suggests_ask(self, prompt: str) -> None:
        """'promt:' is not a key; the hint suggests 'ask' with its line and column."""
        problem = only(problems(f"""\
            flows:
              pay:
                trigger: {{keywords: [付款, pay]}}
                slots:
                  - name: amount
                    entity: number
                    promt: {prompt}
            """))
        assert (problem.file, problem.line, problem.col) == ("bot.yaml", 7, 9)
        assert problem.message == "unknown key 'promt' in flows.pay.slots[0]"
        assert problem.hint == "did you mean 'ask'?"

    @pytest.mark.parametrize("examples", ["[我要付款]", "[I want to pay]"], ids=["zh", "en"])
    def test_misspelt_examples(self, examples: str) -> None:
        """'exampels' -> did you mean 'examples'? (at the key, not the value)."""
        problem = only(problems(f"""\
            flows:
              pay:
                trigger:
                  exampels: {examples}
                  keywords: [pay]
            """))
        assert (problem.line, problem.col) == (4, 7)
        assert problem.hint == "did you mean 'examples'?"

    def test_validate_alias_is_the_allowed_name(self) -> None:
        """SlotSpec's field is validate_ in Python but 'validate' in YAML: the hint says 'validate'."""
        problem = only(problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                slots:
                  - name: amount
                    validation: [{min: 1}]
            """))
        assert problem.hint == "did you mean 'validate'?"

    def test_unrelated_key_lists_the_allowed_keys(self) -> None:
        """No close match: the hint lists what is allowed there."""
        problem = only(problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                confirm: {ask: x, zzzz: 1}
            """))
        assert problem.hint == "allowed keys here: ask"

    def test_memory_trigger_name_typo(self) -> None:
        """memory: keys are trigger names; 'start_tsk' suggests 'start_task'."""
        problem = only(problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                memory:
                  start_tsk: [summarize]
            """))
        assert (problem.line, problem.col) == (5, 7)
        assert problem.hint == "did you mean 'start_task'?"


class TestShapeErrors:
    @pytest.mark.parametrize("value", ["5", "true"], ids=["number", "boolean"])
    def test_prompt_of_the_wrong_type_is_one_problem(self, value: str) -> None:
        """A slot's ask is text, a {zh:, en:} map or a list of them (variants); a wrong value is one
        plain-worded problem."""
        problem = only(problems(f"""\
            flows:
              pay:
                trigger: {{keywords: [pay]}}
                slots:
                  - name: amount
                    ask: {value}
            """))
        assert (problem.line, problem.col) == (6, 14)
        assert "must be text or a mapping (key: value) or a list" in problem.message

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_language_text_of_the_wrong_type(self, lang: str) -> None:
        """ask: {zh: 1} names the zh text, not the whole prompt."""
        problem = only(problems(f"""\
            flows:
              pay:
                trigger: {{keywords: [pay]}}
                slots:
                  - name: amount
                    ask: {{{lang}: 1}}
            """))
        assert problem.message == f"flows.pay.slots[0].ask.{lang} must be text, not 1"
        assert "quote it" in problem.hint

    def test_literal_with_a_did_you_mean(self) -> None:
        """persist: sesion -> did you mean 'session'?"""
        problem = only(problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                slots:
                  - {name: amount, persist: sesion}
            """))
        assert "must be one of none, session, user" in problem.message
        assert problem.hint == "did you mean 'session'?"

    def test_missing_required_key(self) -> None:
        """A slot without a name: the problem points at the slot."""
        problem = only(problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                slots:
                  - entity: number
            """))
        assert (problem.line, problem.col) == (5, 9)
        assert "missing the required key 'name'" in problem.message

    def test_flows_are_required(self) -> None:
        """A file without flows: says so at the top."""
        problem = only(problems("bot: {name: x}\n"))
        assert (problem.line, problem.col) == (1, 1)
        assert "'flows'" in problem.message

    def test_validator_message_is_kept_without_pydantic_prefix(self) -> None:
        """session_timeout: forever -> the duration message, without 'Value error,'."""
        problem = only(problems("bot: {session_timeout: forever}\n" + MINIMAL))
        assert problem.message.startswith("bot.session_timeout: 'forever' is not a duration")

    def test_shape_and_meaning_problems_come_together(self) -> None:
        """A bad type in one flow does not hide an unknown entity type in another."""
        found = problems("""\
            flows:
              a:
                trigger: {keywords: [a]}
                slots:
                  - {name: x, required: maybe}
              b:
                trigger: {keywords: [b]}
                slots:
                  - {name: y, entity: nmber}
            """)
        assert [p.line for p in found] == [5, 9]
        assert "true or false" in found[0].message
        assert found[1].hint == "did you mean 'number'?"


class TestYamlText:
    def test_yaml_1_2_keeps_yes_and_no_as_text(self) -> None:
        """Examples 'yes'/'no'/'on' stay strings (YAML 1.2), not booleans."""
        bot = load("""\
            flows:
              answer:
                trigger: {examples: [yes, no, on, 好的]}
            """)
        assert bot.spec.flows["answer"].trigger.examples == ["yes", "no", "on", "好的"]

    def test_syntax_error_is_positioned(self) -> None:
        """An unclosed bracket: a Problem with the position, not a traceback."""
        problem = only(problems("flows:\n  a:\n    trigger: {examples: [你好, hi}\n"))
        assert problem.message.startswith("YAML syntax error")
        assert problem.line == 3

    def test_colon_inside_a_value_gets_a_quoting_hint(self) -> None:
        """ask: Note: ... needs quotes."""
        problem = only(problems("flows:\n  a:\n    description: Note: 请注意\n"))
        assert (problem.line, problem.col) == (3, 22)
        assert "quoted" in problem.hint

    def test_every_duplicate_key_is_listed(self) -> None:
        """Two duplicates in one file: two problems, each at the second occurrence."""
        found = problems("""\
            flows:
              a:
                trigger: {examples: [你好]}
                trigger: {examples: [hello]}
              b:
                description: x
                description: y
            """)
        assert [(p.line, p.col) for p in found] == [(4, 5), (7, 5)]
        assert "duplicate key 'trigger' (first written at line 3)" in found[0].message

    @pytest.mark.parametrize("text", ["", "# 只有注释 / only a comment\n"], ids=["zh", "en"])
    def test_empty_file(self, text: str) -> None:
        """An empty (or comment-only) file says it is empty."""
        assert "is empty" in only(problems(text)).message

    def test_top_level_list(self) -> None:
        """A list at the top level is refused with what was found."""
        assert "must be a mapping, found a list" in only(problems("- flows\n")).message

    def test_binary_file(self, tmp_path: Path) -> None:
        """Binary data is refused as such."""
        path = tmp_path / "bot.yaml"
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        with pytest.raises(FlowError) as caught:
            load_bot_file(path)
        assert "not a text file" in only(caught.value.problems).message

    def test_missing_file(self, tmp_path: Path) -> None:
        """A path that does not exist: a FlowError, not an OSError."""
        with pytest.raises(FlowError) as caught:
            load_bot_file(tmp_path / "nope.yaml")
        assert only(caught.value.problems).message == "no such file"

    def test_bytes_are_accepted_by_parse_bot_text(self) -> None:
        """UTF-8 bytes (with a BOM) parse like text."""
        bot = parse_bot_text("\ufeff".encode() + MINIMAL.encode())
        assert list(bot.spec.flows) == ["greet"]


class TestActionsAtLoad:
    def test_missing_actions_module_is_a_positioned_problem(self, tmp_path: Path) -> None:
        """bot.actions naming no module: reported at the module name, with what it should define."""
        problem = only(problems("""\
            bot:
              actions: no_such_module_here
            flows:
              pay:
                trigger: {keywords: [付款, pay]}
                execute: {action: take_payment}
            """, base_dir=tmp_path))
        assert (problem.line, problem.col) == (2, 12)
        assert "cannot import the actions module 'no_such_module_here'" in problem.message
        assert "take_payment" in problem.hint

    def test_overrides_make_a_missing_module_unneeded(self, tmp_path: Path) -> None:
        """When every action is supplied by actions=, the module is not needed."""
        bot = load("""\
            bot:
              actions: no_such_module_here
            flows:
              pay:
                trigger: {keywords: [pay]}
                execute: {action: take_payment}
            """, actions={"take_payment": {"receipt": "R-1"}}, base_dir=tmp_path)
        assert "take_payment" in bot.actions

    def test_actions_module_next_to_the_bot_file(self, tmp_path: Path) -> None:
        """bot.actions is imported from the bot file's folder."""
        (tmp_path / "loader_side_actions.py").write_text(
            "from dialogkit.actions.registry import action\n\n"
            "@action('take_payment')\n"
            "def take(ctx):\n    return {'receipt': 'R-' + ctx.slots['amount']}\n", encoding="utf-8")
        (tmp_path / "bot.yaml").write_text("""\
bot: {actions: loader_side_actions}
flows:
  pay:
    trigger: {keywords: [付款, pay]}
    slots: [{name: amount, entity: number, ask: {zh: 多少钱？, en: How much?}}]
    execute: {action: take_payment, say: "{receipt}"}
""", encoding="utf-8")
        bot = load_bot_file(tmp_path / "bot.yaml")
        from dialogkit.actions.registry import ActionContext
        assert bot.actions.run("take_payment", ActionContext(slots={"amount": "5"})) == {"receipt": "R-5"}

    def test_custom_memory_action_is_resolved(self, tmp_path: Path) -> None:
        """A registered module:function in a memory list becomes a callable in memory_actions."""
        (tmp_path / "loader_memory_hooks.py").write_text(
            "from dialogkit import memory_action\n\n@memory_action\ndef note(ctx):\n    return None\n", encoding="utf-8")
        bot = load("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                memory:
                  complete: [persist_slots, loader_memory_hooks:note]
            """, base_dir=tmp_path)
        assert callable(bot.memory_actions["loader_memory_hooks:note"])
        assert "persist_slots" not in bot.memory_actions


class TestTheFileOnItsOwn:
    def test_spec_does_not_judge_actions_or_custom_memory_actions(self) -> None:
        """Those need the bot's code: dialogkit.actions checks them, one layer up."""
        checked = check_bot_text(textwrap.dedent("""\
            flows:
              pay:
                trigger: {keywords: [付款, pay]}
                execute: {action: take_payment}
                memory: {complete: [persist_slots, "nowhere:hook"]}
            """), "bot.yaml")
        assert checked.problems == []
        assert checked.spec is not None and checked.spec.flows["pay"].execute.action == "take_payment"

    def test_shape_and_meaning_problems_are_returned_not_raised(self) -> None:
        checked = check_bot_text(textwrap.dedent("""\
            flows:
              pay:
                trigger: {keywords: [pay], exampels: [pay now]}
                slots: [{name: amount, entity: nmber}]
            """), "bot.yaml")
        assert [(p.line, p.hint) for p in checked.problems] == [
            (3, "did you mean 'examples'?"), (4, "did you mean 'number'?")]

    def test_nothing_usable_leaves_no_model(self) -> None:
        checked = check_bot_text("flows: 5\n", "bot.yaml")
        assert checked.spec is None and len(checked.problems) == 1

    def test_in_file_order(self) -> None:
        found = [Problem("b.yaml", 1, 1, "x"), Problem("a.yaml", 9, 1, "y"), Problem("a.yaml", 2, 5, "z")]
        assert [p.message for p in in_file_order(found)] == ["z", "y", "x"]
