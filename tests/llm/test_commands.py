"""Understanding as commands, their validation by the rules, summaries and rephrasing; each call
made with the sync SDK and with the async one (the ``driver`` fixture)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from structlog.testing import capture_logs

from dialogkit.context.parts import ContextMessage
from dialogkit.errors import LLMError
from dialogkit.llm.commands import (
    Cancel,
    ChitChat,
    Clarify,
    Confirm,
    CorrectSlot,
    Deny,
    SetSlot,
    StartFlow,
    command_schema,
    parse_commands,
    validate_commands,
)
from dialogkit.spec.schema import BotFile, SlotSpec
from dialogkit.testing.llm_server import Garbage, ScriptedLLMServer
from tests.llm.conftest import Driver, MakeClient

UTTERANCES = {
    "zh": "我的手机屏幕碎了，订单号123456",
    "en": "my phone screen is cracked, order 123456",
}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"commands": [
    {"command": "start_flow", "flow": "report_issue"},
    {"command": "set_slot", "slot": "product", "value": "phone"},
    {"command": "set_slot", "slot": "order_id", "value": "123456"},
]}


def context(lang: str) -> list[ContextMessage]:
    return [
        ContextMessage("system", "You are support.", 100, 8, "system", True),
        ContextMessage("user", UTTERANCES[lang], 100, 20, "current", True),
    ]


def rules(slot: SlotSpec, value: Any) -> tuple[bool, Any, str | None]:
    """A stand-in for the rule layer: order ids are 5-12 digits; products map aliases to keys."""
    text = str(value).strip()
    if slot.entity == "order_id":
        return (text.isdigit() and 5 <= len(text) <= 12, text, "an order number has 5 to 12 digits")
    if slot.entity == "product":
        aliases = {"手机": "phone", "phone": "phone", "笔记本": "laptop", "laptop": "laptop"}
        return (text in aliases, aliases.get(text), "unknown product")
    return (True, text, None)


class TestUnderstand:
    @LANGS
    def test_commands_from_structured_output(self, lang: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        """The model's JSON becomes typed commands; the request asks for a strict JSON schema."""
        with ScriptedLLMServer([REPORT]) as server:
            commands = driver.understand(make_client(server), context(lang), bot_spec, None, None)
        assert commands == [
            StartFlow(flow="report_issue"),
            SetSlot(slot="product", value="phone"),
            SetSlot(slot="order_id", value="123456"),
        ]
        body = server.requests[0]
        assert body["response_format"]["type"] == "json_schema"
        assert body["messages"][0]["role"] == "system" and "report_issue" in body["messages"][0]["content"]
        assert body["messages"][-1]["content"] == UTTERANCES[lang]

    @LANGS
    def test_json_inside_a_fence_is_accepted(self, lang: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        """A model that wraps its JSON in ```json fences and chatter is still understood."""
        answer = f"好的 / Sure:\n```json\n{json.dumps(REPORT)}\n```\n"
        with ScriptedLLMServer([answer]) as server:
            commands = driver.understand(make_client(server), context(lang), bot_spec, None, None)
        assert commands[0] == StartFlow(flow="report_issue")

    @pytest.mark.parametrize("answer", ["这不是JSON", "not json at all", '{"intent": "x"}', '{"commands": [{"command": "fly"}]}'])
    def test_garbage_raises(self, answer: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        """Text that is not a command list raises LLMError (the bot then uses its rules)."""
        with ScriptedLLMServer([answer]) as server, pytest.raises(LLMError):
            driver.understand(make_client(server), context("en"), bot_spec, None, None)

    def test_malformed_response_body_raises(self, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        """A non-JSON HTTP body raises LLMError too."""
        with ScriptedLLMServer([Garbage()]) as server, pytest.raises(LLMError):
            driver.understand(make_client(server), context("zh"), bot_spec, None, None)

    def test_every_command_kind_parses(self) -> None:
        """All eight command kinds parse; an invalid item among valid ones is skipped."""
        text = json.dumps({"commands": [
            {"command": "start_flow", "flow": "check_status"},
            {"command": "set_slot", "slot": "order_id", "value": "1"},
            {"command": "correct_slot", "slot": "order_id", "value": "2"},
            {"command": "confirm"}, {"command": "deny"}, {"command": "cancel"},
            {"command": "clarify", "question": "哪个订单？"}, {"command": "chit_chat"},
            {"command": "start_flow"},
        ]})
        assert [type(c) for c in parse_commands(text)] == [
            StartFlow, SetSlot, CorrectSlot, Confirm, Deny, Cancel, Clarify, ChitChat,
        ]

    def test_schema_names_the_bots_flows_and_slots(self, bot_spec: BotFile) -> None:
        """The response schema only allows this bot's flow and slot names."""
        schema = command_schema(bot_spec)["json_schema"]["schema"]
        variants = schema["properties"]["commands"]["items"]["anyOf"]
        start = next(v for v in variants if v["properties"]["command"]["enum"] == ["start_flow"])
        set_slot = next(v for v in variants if v["properties"]["command"]["enum"] == ["set_slot"])
        assert start["properties"]["flow"]["enum"] == ["report_issue", "check_status"]
        assert set_slot["properties"]["slot"]["enum"] == ["note", "order_id", "product"]


class TestValidate:
    @LANGS
    def test_values_are_canonicalised_by_the_rules(self, lang: str, bot_spec: BotFile) -> None:
        """An alias the LLM copied ("手机" / "phone") becomes the canonical value."""
        alias = "手机" if lang == "zh" else "phone"
        kept = validate_commands([StartFlow(flow="report_issue"), SetSlot(slot="product", value=alias)], bot_spec, rules)
        assert kept == [StartFlow(flow="report_issue"), SetSlot(slot="product", value="phone")]

    @LANGS
    def test_value_failing_validation_is_dropped(self, lang: str, bot_spec: BotFile) -> None:
        """A value the rules reject is dropped with a warning that names the slot, not the value."""
        bad = "一二三" if lang == "zh" else "abc"
        with capture_logs() as logs:
            kept = validate_commands([SetSlot(slot="order_id", value=bad), Confirm()], bot_spec, rules, active_flow="report_issue")
        assert kept == [Confirm()]
        warning = next(e for e in logs if e["event"] == "llm_command_dropped")
        assert warning["slot"] == "order_id" and bad not in str(warning)

    def test_unknown_flow_and_slot_are_dropped(self, bot_spec: BotFile) -> None:
        """Flows and slots the bot file does not define are dropped."""
        commands = [StartFlow(flow="book_flight"), SetSlot(slot="seat", value="1A"), CorrectSlot(slot="product", value="laptop")]
        kept = validate_commands(commands, bot_spec, rules, active_flow="report_issue")
        assert kept == [CorrectSlot(slot="product", value="laptop")]

    def test_slot_is_looked_up_in_the_flow_just_started(self, bot_spec: BotFile) -> None:
        """After start_flow, slots belong to that flow: product is not a check_status slot."""
        commands = [StartFlow(flow="check_status"), SetSlot(slot="product", value="phone"), SetSlot(slot="order_id", value="123456")]
        kept = validate_commands(commands, bot_spec, rules, active_flow="report_issue")
        assert kept == [StartFlow(flow="check_status"), SetSlot(slot="order_id", value="123456")]

    def test_intent_name_is_mapped_to_its_flow(self, bot_spec: BotFile) -> None:
        """A model naming the trigger intent instead of the flow still starts the flow."""
        assert validate_commands([StartFlow(flow="order_status")], bot_spec, rules) == [StartFlow(flow="check_status")]


class TestSummaries:
    @LANGS
    def test_round_summary_is_plain_text(self, lang: str, make_client: MakeClient, driver: Driver) -> None:
        """A round summary is the model's text; the prompt names the language."""
        answer = "用户报告手机损坏，订单123456。" if lang == "zh" else "The user reported a broken phone, order 123456."
        with ScriptedLLMServer([answer]) as server:
            text = driver.summarize(make_client(server), ["user: " + UTTERANCES[lang], "assistant: ok"], lang)
        assert text == answer
        language = "Simplified Chinese" if lang == "zh" else "English"
        assert language in server.requests[0]["messages"][0]["content"]

    @LANGS
    def test_ticket_summary_keeps_three_sections(self, lang: str, make_client: MakeClient, driver: Driver) -> None:
        """The ticket summary renders facts / confirmed / pending with headings in the language."""
        data = {"facts": ["手机损坏" if lang == "zh" else "phone damaged"], "confirmed": [], "pending": ["创建工单" if lang == "zh" else "open a ticket"]}
        with ScriptedLLMServer([data]) as server:
            text = driver.summarize(make_client(server), [UTTERANCES[lang]], lang, ticket=True)
        headings = ["事实：", "已确认：", "待处理："] if lang == "zh" else ["Facts:", "Confirmed:", "Pending:"]
        lines = text.splitlines()
        assert [line for line in lines if not line.startswith("- ")] == headings
        assert f"- {data['facts'][0]}" in lines and "- —" in lines

    def test_ticket_summary_without_sections_raises(self, make_client: MakeClient, driver: Driver) -> None:
        """An answer with none of the three sections is rejected."""
        with ScriptedLLMServer([{"summary": "x"}]) as server, pytest.raises(LLMError, match="sections"):
            driver.summarize(make_client(server), ["x"], "en", ticket=True)


class TestRephrase:
    @LANGS
    def test_rephrase_keeps_numbers(self, lang: str, make_client: MakeClient, driver: Driver) -> None:
        """A fluent rephrasing that keeps every number is returned without its quotes."""
        original = "已创建工单 T-1001。" if lang == "zh" else "Ticket T-1001 has been created."
        fluent = "好的，工单 T-1001 已为您创建。" if lang == "zh" else "Done! Your ticket T-1001 is open."
        with ScriptedLLMServer([f"“{fluent}”"]) as server:
            assert driver.rephrase(make_client(server), original, lang) == fluent

    @LANGS
    def test_rephrase_losing_a_number_raises(self, lang: str, make_client: MakeClient, driver: Driver) -> None:
        """A rephrasing that drops the order number is refused so the template is used."""
        original = "订单 123456 已发货。" if lang == "zh" else "Order 123456 has shipped."
        sloppy = "您的订单已发货。" if lang == "zh" else "Your order has shipped."
        with ScriptedLLMServer([sloppy]) as server, pytest.raises(LLMError, match="identifier"):
            driver.rephrase(make_client(server), original, lang)
