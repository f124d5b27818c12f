"""Checks of meaning: every mistake a well-formed bot file can still hold, with its position."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.strings.placeholders import placeholders
from tests.spec.helpers import load, only, problems

PROMPTS = {
    "zh": {"ask": "请问金额是多少？", "say": "已付款。"},
    "en": {"ask": "How much?", "say": "Paid."},
}


class TestEntityTypes:
    @pytest.mark.parametrize(("entity", "guess"), [("nmber", "number"), ("prodcut", "product")])
    def test_unknown_entity_type_suggests_a_close_one(self, entity: str, guess: str) -> None:
        """Built-in and declared types are both candidates for the did-you-mean."""
        problem = only(problems(f"""\
            entities:
              product: {{values: {{phone: [手机, phone]}}}}
            flows:
              buy:
                trigger: {{keywords: [买, buy]}}
                slots:
                  - {{name: item, entity: {entity}}}
            """))
        assert (problem.line, problem.col) == (7, 30)
        assert problem.message == f"slot 'item' uses unknown entity type '{entity}'"
        assert problem.hint == f"did you mean '{guess}'?"

    def test_unknown_entity_type_without_a_close_one_lists_builtins(self) -> None:
        """No close name: the hint lists the built-in types."""
        problem = only(problems("""\
            flows:
              buy:
                trigger: {keywords: [buy]}
                slots: [{name: item, entity: spaceship}]
            """))
        assert "yes_no" in problem.hint


class TestRegexes:
    def test_bad_entity_pattern(self) -> None:
        """An entity pattern that does not compile reports Python's reason."""
        problem = only(problems("""\
            entities:
              code: {pattern: '[A-Z'}
            flows:
              f: {trigger: {keywords: [代码, code]}}
            """))
        assert (problem.line, problem.col) == (2, 19)
        assert "unterminated character set" in problem.message

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_bad_validation_pattern(self, lang: str) -> None:
        """A slot rule's pattern is compiled too; the rule's message language does not matter."""
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [订单, order]}}
                slots:
                  - name: order_id
                    validate:
                      - {{pattern: '(\\d+', error: {{{lang}: "{PROMPTS[lang]['ask']}"}}}}
            """))
        assert problem.line == 7
        assert "validation pattern of slot 'order_id'" in problem.message
        assert "missing )" in problem.message


class TestPlaceholders:
    @pytest.mark.parametrize(("text", "lang"), [("订单 {oder_id} 的状态？", "zh"), ("Status of {oder_id}?", "en")])
    def test_ask_placeholder_naming_no_slot(self, text: str, lang: str) -> None:
        """{oder_id} in an ask: did you mean {order_id}? pointed at that language's text."""
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [订单, order]}}
                slots:
                  - name: order_id
                    ask:
                      {lang}: "{text}"
            """))
        assert (problem.line, problem.col) == (7, 15)
        assert "ask placeholder {oder_id} names no slot" in problem.message
        assert problem.hint == "did you mean {order_id}?"

    @pytest.mark.parametrize("text", ["确认为 {product} 下单？", "Order {product}?"], ids=["zh", "en"])
    def test_confirm_placeholder_naming_no_slot(self, text: str) -> None:
        """confirm.ask may only name the flow's slots."""
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [订单, order]}}
                slots: [{{name: order_id}}]
                confirm: {{ask: "{text}"}}
            """))
        assert "confirm.ask placeholder {product} names no slot" in problem.message

    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_say_and_on_error_may_name_action_results_and_error(self, lang: str) -> None:
        """{ticket_id} comes from the action and {error} from its failure: not problems."""
        bot = load(f"""\
            flows:
              f:
                trigger: {{keywords: [工单, ticket]}}
                slots: [{{name: order_id}}]
                execute:
                  action: create_ticket
                  say: {{{lang}: "{{ticket_id}} / {{order_id}}"}}
                  on_error: {{{lang}: "{{error}}"}}
            """, actions={"create_ticket": {"ticket_id": "T-1"}})
        assert "f" in bot.spec.flows

    def test_say_without_an_action_may_only_name_slots(self) -> None:
        """No action means no result keys: {ticket_id} is then a mistake."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [工单, ticket]}
                execute: {say: {en: "Ticket {ticket_id}"}}
            """))
        assert "say placeholder {ticket_id}" in problem.message

    def test_unbalanced_brace(self) -> None:
        """'{order_id' is reported, not a crash at run time."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [订单]}
                slots: [{name: order_id, ask: "订单 {order_id 呢？"}]
            """))
        assert "unbalanced braces" in problem.message

    def test_placeholders_helper(self) -> None:
        """{name.attr} counts as name; {{ and }} are literal braces."""
        assert placeholders("{a} {b.label} {{c}} {d[0]}") == ["a", "b", "d"]


class TestDuplicates:
    def test_duplicate_slot_names(self) -> None:
        """The second slot of one name is reported at its name."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [订单, order]}
                slots:
                  - name: order_id
                  - name: order_id
            """))
        assert (problem.line, problem.col) == (6, 15)
        assert problem.message == "duplicate slot name 'order_id' in this flow"

    def test_duplicate_intents_across_flows(self) -> None:
        """Two flows claiming one intent: reported at the second."""
        problem = only(problems("""\
            flows:
              report:
                trigger: {intent: support, examples: [手机坏了]}
              status:
                trigger: {intent: support, examples: [where is my order]}
            """))
        assert (problem.line, problem.col) == (5, 23)
        assert "intent 'support' of flow 'status' is already the intent of flow 'report'" in problem.message

    def test_intent_defaults_to_the_flow_name(self) -> None:
        """A flow without intent: its name is its intent and may clash with another's."""
        problem = only(problems("""\
            flows:
              report:
                trigger: {examples: [手机坏了]}
              status:
                trigger: {intent: report, examples: [where is my order]}
            """))
        assert "intent 'report'" in problem.message


class TestActions:
    @pytest.mark.parametrize("lang", ["zh", "en"])
    def test_unknown_action_suggests_a_registered_one(self, lang: str) -> None:
        """create_tiket vs the stub create_ticket."""
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [工单, ticket]}}
                execute: {{action: create_tiket, say: {{{lang}: "{PROMPTS[lang]['say']}"}}}}
            """, actions={"create_ticket": {"ticket_id": "T-1"}}))
        assert problem.message == "unknown action 'create_tiket'"
        assert problem.hint == "did you mean 'create_ticket'?"

    def test_unknown_action_without_an_actions_module(self) -> None:
        """No bot.actions: the hint says where actions come from."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [ticket]}
                execute: {action: create_ticket}
            """))
        assert "bot.actions" in problem.hint

    def test_unknown_validator_action(self) -> None:
        """validate: - action: names an action too."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [订单]}
                slots:
                  - name: order_id
                    validate: [{action: check_order}]
            """))
        assert (problem.line, problem.col) == (6, 29)
        assert "unknown action 'check_order'" in problem.message

    def test_reference_that_does_not_import(self, tmp_path: Path) -> None:
        """module:function that fails to resolve says why."""
        (tmp_path / "validation_refs.py").write_text("def real(ctx):\n    return {}\n", encoding="utf-8")
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [ticket]}
                execute: {action: "validation_refs:imaginary"}
            """, base_dir=tmp_path))
        assert "module 'validation_refs' has no 'imaginary'" in problem.message

    def test_reference_that_imports_is_known(self, tmp_path: Path) -> None:
        """module:function that resolves is a known action."""
        (tmp_path / "validation_refs_ok.py").write_text(
            "from dialogkit import action\n\n\n@action('real')\ndef real(ctx):\n    return {'x': 1}\n", encoding="utf-8")
        bot = load("""\
            flows:
              f:
                trigger: {keywords: [ticket]}
                execute: {action: "validation_refs_ok:real"}
            """, base_dir=tmp_path)
        assert "validation_refs_ok:real" in bot.actions


    @pytest.mark.parametrize("ref", ["os:system", "os:abort", "validation_refs_plain:real"])
    def test_a_function_not_registered_with_action_is_a_load_error(self, tmp_path: Path, ref: str) -> None:
        """Only @action functions may be named: os:system passes no validation, and no plain function."""
        (tmp_path / "validation_refs_plain.py").write_text("def real(ctx):\n    return {}\n", encoding="utf-8")
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [ticket]}}
                execute: {{action: "{ref}"}}
            """, base_dir=tmp_path))
        assert "is not an @action function" in problem.message and "@action" in problem.hint


class TestMemoryActions:
    def test_unknown_memory_action_suggests_a_builtin(self) -> None:
        """summarise -> did you mean 'summarize'?"""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [ticket]}
                memory:
                  confirm: [summarise]
            """))
        assert (problem.line, problem.col) == (5, 17)
        assert problem.hint == "did you mean 'summarize'?"

    def test_every_turn_list_is_checked(self) -> None:
        """bot.memory.every_turn names memory actions too."""
        problem = only(problems("""\
            bot: {memory: {every_turn: [track_entity]}}
            flows:
              f: {trigger: {keywords: [ticket]}}
            """))
        assert problem.hint == "did you mean 'track_entities'?"

    def test_memory_reference_that_does_not_import(self, tmp_path: Path) -> None:
        """A module:function memory action that cannot be imported."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [ticket]}
                memory: {complete: ["no_such_memory_mod:hook"]}
            """, base_dir=tmp_path))
        assert "cannot use memory action 'no_such_memory_mod:hook'" in problem.message


class TestFlows:
    def test_handoff_naming_no_flow(self) -> None:
        """bot.handoff must name a flow."""
        problem = only(problems("""\
            bot: {handoff: human_agnet}
            flows:
              human_agent: {trigger: {keywords: [人工, human]}}
            """))
        assert problem.message == "handoff names no flow: 'human_agnet'"
        assert problem.hint == "did you mean 'human_agent'?"

    def test_flow_nobody_can_start(self) -> None:
        """No examples and no keywords: a problem at the flow's name."""
        problem = only(problems("""\
            flows:
              orphan:
                description: 无法触发 / cannot start
            """))
        assert (problem.line, problem.col) == (2, 3)
        assert "can never start" in problem.message

    def test_handoff_flow_needs_no_trigger(self) -> None:
        """The handoff flow is started by the bot itself."""
        bot = load("""\
            bot: {handoff: agent}
            flows:
              agent: {description: 转人工 / human agent}
              f: {trigger: {keywords: [ticket]}}
            """)
        assert "agent" in bot.spec.flows


class TestRules:
    @pytest.mark.parametrize("entity", ["product", "email"])
    def test_min_max_on_a_value_that_is_not_a_number(self, entity: str) -> None:
        """min compares numbers: refused on a synonym type or a textual built-in."""
        problem = only(problems(f"""\
            entities:
              product: {{values: {{phone: [手机]}}}}
            flows:
              f:
                trigger: {{keywords: [买]}}
                slots:
                  - name: x
                    entity: {entity}
                    validate: [{{min: 1}}]
            """))
        assert "'min' compares numbers" in problem.message

    def test_length_on_a_number(self) -> None:
        """min_length measures text: refused on a number slot."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [pay]}
                slots: [{name: amount, entity: number, validate: [{max_length: 3}]}]
            """))
        assert "'max_length' measures text" in problem.message

    def test_one_of_with_a_value_the_type_does_not_have(self) -> None:
        """one_of on a synonym type must list its canonical values."""
        problem = only(problems("""\
            entities:
              product: {values: {phone: [手机], laptop: [电脑]}}
            flows:
              f:
                trigger: {keywords: [买]}
                slots:
                  - name: item
                    entity: product
                    validate: [{one_of: [phone, lapton]}]
            """))
        assert "one_of lists 'lapton'" in problem.message
        assert problem.hint == "did you mean 'laptop'?"

    @pytest.mark.parametrize("rules", ["[{min: 10, max: 5}]", "[{min: 10}, {max: 5}]"], ids=["one", "two"])
    def test_min_above_max(self, rules: str) -> None:
        """A slot whose rules no value can satisfy, in one rule or across two."""
        problem = only(problems(f"""\
            flows:
              f:
                trigger: {{keywords: [付款, pay]}}
                slots: [{{name: amount, entity: number, validate: {rules}}}]
            """))
        assert "can never be valid: min 10 is above max 5" in problem.message

    def test_length_bounds_crossed(self) -> None:
        """min_length above max_length on a text slot."""
        problem = only(problems("""\
            flows:
              f:
                trigger: {keywords: [备注, note]}
                slots: [{name: note, validate: [{min_length: 8, max_length: 2}]}]
            """))
        assert "min_length 8 is above max_length 2" in problem.message

    def test_sensible_rules_pass(self) -> None:
        """min <= max on a number, lengths on text, one_of of real values: no problem."""
        bot = load("""\
            entities:
              product: {values: {phone: [手机], laptop: [电脑]}}
            flows:
              f:
                trigger: {keywords: [买, buy]}
                slots:
                  - {name: amount, entity: number, validate: [{min: 1, max: 5}]}
                  - {name: note, validate: [{min_length: 1, max_length: 20}]}
                  - {name: item, entity: product, validate: [{one_of: [phone]}]}
            """)
        assert len(bot.spec.flows["f"].slots) == 3


class TestBlankTexts:
    def test_empty_labels_aliases_and_trigger_items_are_problems_at_their_place(self) -> None:
        """Each would render as nothing ("(, damaged)") or match anything."""
        found = problems("""\
            entities:
              kind:
                values:
                  a: [x, '', y]
                  c:
                    aliases: [cc, '  ']
                    label: {zh: '', en: ok}
            flows:
              f:
                trigger: {keywords: [go, ''], examples: ['', 我要 hi there]}
                slots:
                  - name: s
                    entity: kind
                    label: ' '
                    ask: "?"
            """)
        where = sorted((p.line, p.message) for p in found)
        assert where == [
            (4, "an alias is empty"), (6, "an alias is empty"), (7, "the label of value 'c' is empty"),
            (10, "a trigger example is empty"), (10, "a trigger keyword is empty"),
            (14, "the label of slot 's' is empty"),
        ]
        assert all("write the text" in p.hint for p in found)
