"""Structured output negotiated with the server: refused modes step down, what worked is remembered,
a rejected request is never sent again unchanged. Each test runs with the sync and the async SDK."""

from __future__ import annotations

import json
import time
from typing import Any

import openai
import pytest
from structlog.testing import capture_logs

from dialogkit.context.parts import ContextMessage
from dialogkit.errors import LLMError
from dialogkit.llm import once
from dialogkit.llm.client import LLMRejected
from dialogkit.llm.commands import SetSlot, StartFlow
from dialogkit.llm.structured import first_json
from dialogkit.spec.schema import BotFile
from dialogkit.testing.llm_server import (
    LLAMA_CPP_PYTHON,
    PYDANTIC_422,
    TEXT_ONLY,
    Delay,
    Reply,
    ScriptedLLMServer,
    Status,
    request_mode,
)
from tests.llm.conftest import Driver, MakeClient

UTTERANCES = {"zh": "我的手机屏幕碎了，订单号123456", "en": "my phone screen is cracked, order 123456"}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"commands": [
    {"command": "start_flow", "flow": "report_issue"},
    {"command": "set_slot", "slot": "order_id", "value": "123456"},
]}
EXPECTED = [StartFlow(flow="report_issue"), SetSlot(slot="order_id", value="123456")]
REFUSALS = {
    "400": {"json_schema": Status(400, message="Invalid parameter: 'response_format' of type 'json_schema' is not supported")},
    "422": PYDANTIC_422,
    "500 naming response_format": LLAMA_CPP_PYTHON,
}


def context(lang: str) -> list[ContextMessage]:
    return [
        ContextMessage("system", "You are support.", 100, 8, "system", True),
        ContextMessage("user", UTTERANCES[lang], 100, 20, "current", True),
    ]


def modes(server: ScriptedLLMServer) -> list[str]:
    return [request_mode(body) for body in server.requests]


def system_prompt(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


class TestStepDown:
    @LANGS
    @pytest.mark.parametrize("shape", list(REFUSALS))
    def test_a_refused_json_schema_is_asked_again_in_json_mode(
        self, shape: str, lang: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver
    ) -> None:
        """400, 422, or a 500 naming response_format: once more in JSON mode, schema in the request and prompt."""
        with ScriptedLLMServer([REPORT], refuse=REFUSALS[shape]) as server:
            client = make_client(server)
            commands = driver.understand(client, context(lang), bot_spec, None, None)
        assert commands == EXPECTED
        assert modes(server) == ["json_schema", "json_object"]
        second = server.requests[1]
        schema = second["response_format"]["schema"]
        assert schema["required"] == ["commands"]
        assert json.dumps(schema, ensure_ascii=False, separators=(",", ":")) in system_prompt(second)
        assert second["messages"][-1]["content"] == UTTERANCES[lang]
        assert client.mode == "json_object" and client.usage.failures == 0

    @pytest.mark.parametrize("shape", list(REFUSALS))
    def test_the_mode_that_worked_is_asked_first_next_time(
        self, shape: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver
    ) -> None:
        """The refused mode is not asked again: the next call, even by another client, goes straight to JSON mode."""
        with ScriptedLLMServer([REPORT, REPORT, REPORT], refuse=REFUSALS[shape]) as server:
            driver.understand(make_client(server), context("zh"), bot_spec, None, None)
            driver.understand(make_client(server), context("en"), bot_spec, None, None)
            driver.understand(make_client(server), context("zh"), bot_spec, None, None)
        assert modes(server) == ["json_schema", "json_object", "json_object", "json_object"]

    @LANGS
    def test_a_server_without_json_mode_is_asked_in_text(
        self, lang: str, bot_spec: BotFile, make_client: MakeClient, driver: Driver
    ) -> None:
        """Refused twice: plain text, the schema in the prompt, the first JSON object taken from the chatter."""
        chatter = f'好的 / Sure! {json.dumps(REPORT)} and also {{"commands": []}} 希望有帮助'
        with ScriptedLLMServer([chatter, chatter], refuse=TEXT_ONLY) as server:
            client = make_client(server)
            first = driver.understand(client, context(lang), bot_spec, None, None)
            again = driver.understand(client, context(lang), bot_spec, None, None)
        assert first == again == EXPECTED
        assert modes(server) == ["json_schema", "json_object", "text", "text"]
        assert "response_format" not in server.requests[2] and "JSON Schema" in system_prompt(server.requests[2])
        assert client.mode == "text"

    def test_modes_are_remembered_per_server(self, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        """A server that refused JSON Schema does not make another server's client step down."""
        with ScriptedLLMServer([REPORT], refuse=LLAMA_CPP_PYTHON) as llama, ScriptedLLMServer([REPORT]) as full:
            driver.understand(make_client(llama), context("en"), bot_spec, None, None)
            other = make_client(full)
            assert other.mode is None
            driver.understand(other, context("en"), bot_spec, None, None)
        assert modes(llama) == ["json_schema", "json_object"] and modes(full) == ["json_schema"]
        assert other.mode == "json_schema"

    def test_the_ticket_summary_steps_down_too(self, make_client: MakeClient, driver: Driver) -> None:
        """Every structured call negotiates: the ticket summary's schema goes into JSON mode's request."""
        data = {"facts": ["phone damaged"], "confirmed": [], "pending": []}
        with ScriptedLLMServer([data], refuse=LLAMA_CPP_PYTHON) as server:
            text = driver.summarize(make_client(server), ["my phone is damaged"], "en", ticket=True)
        assert "- phone damaged" in text.splitlines()
        assert modes(server) == ["json_schema", "json_object"]
        assert set(server.requests[1]["response_format"]["schema"]["required"]) == {"facts", "confirmed", "pending"}


class TestNotRetriedUnchanged:
    @pytest.mark.parametrize("shape", list(REFUSALS))
    def test_each_refused_request_is_sent_once(self, shape: str, bot_spec: BotFile, make_client: MakeClient,
                                               driver: Driver) -> None:
        """A server refusing every mode gets each request once: no retries of a refusal, then a failure."""
        refuse = {mode: REFUSALS[shape]["json_schema"] for mode in ("json_schema", "json_object")}
        refuse["text"] = Status(400, message="bad request")
        with ScriptedLLMServer([], refuse=refuse) as server:
            client = make_client(server, max_retries=2)
            with pytest.raises(LLMRejected):
                driver.understand(client, context("en"), bot_spec, None, None)
        assert modes(server) == ["json_schema", "json_object", "text"]
        assert client.usage.failures == 1

    def test_a_500_not_naming_the_mode_is_retried_as_is(self, bot_spec: BotFile, make_client: MakeClient,
                                                        driver: Driver) -> None:
        """A plain 500 (or 429, or a timeout) may pass: the same request is retried, no step-down."""
        with ScriptedLLMServer([Status(500), Status(429, retry_after=0), REPORT]) as server:
            client = make_client(server)
            assert driver.understand(client, context("en"), bot_spec, None, None) == EXPECTED
        assert modes(server) == ["json_schema"] * 3
        assert client.mode == "json_schema"

    @pytest.mark.parametrize("status", [401, 403, 404])
    def test_a_bad_key_or_model_is_not_a_refusal(self, status: int, bot_spec: BotFile, make_client: MakeClient,
                                                 driver: Driver) -> None:
        """No other mode would cure 401/403/404: one request, no step-down, nothing remembered."""
        with ScriptedLLMServer([Status(status)]) as server:
            client = make_client(server)
            with pytest.raises(LLMRejected) as caught:
                driver.understand(client, context("en"), bot_spec, None, None)
        assert len(server.requests) == 1 and caught.value.status == status and not caught.value.refusal
        assert client.mode is None

    def test_stepping_down_stays_within_the_deadline(self, bot_spec: BotFile, make_client: MakeClient,
                                                     driver: Driver) -> None:
        """The step-down shares the call's deadline: a slow answer in JSON mode fails on time."""
        with ScriptedLLMServer([Delay(3.0, Reply(json.dumps(REPORT)))], refuse=LLAMA_CPP_PYTHON) as server:
            client = make_client(server, timeout_s=0.5, max_retries=0)
            started = time.monotonic()
            with pytest.raises(LLMError) as caught:
                driver.understand(client, context("en"), bot_spec, None, None, deadline_s=0.5)
            elapsed = time.monotonic() - started
        assert isinstance(caught.value.original, openai.APITimeoutError)
        assert elapsed < 2.5 and modes(server) == ["json_schema", "json_object"]


class TestPinnedModes:
    @pytest.mark.parametrize("mode", ["json_object", "text"])
    def test_a_pinned_mode_is_the_only_one_asked(self, mode: str, bot_spec: BotFile, make_client: MakeClient,
                                                 driver: Driver) -> None:
        with ScriptedLLMServer([REPORT]) as server:
            client = make_client(server, structured_output=mode)
            assert driver.understand(client, context("zh"), bot_spec, None, None) == EXPECTED
        assert modes(server) == [mode] and client.mode == mode
        assert "JSON Schema" in system_prompt(server.requests[0])

    def test_a_pinned_mode_refused_is_a_failure(self, bot_spec: BotFile, make_client: MakeClient,
                                                driver: Driver) -> None:
        with ScriptedLLMServer([REPORT], refuse=LLAMA_CPP_PYTHON) as server:
            client = make_client(server, structured_output="json_schema")
            with pytest.raises(LLMRejected) as caught:
                driver.understand(client, context("en"), bot_spec, None, None)
        assert caught.value.refusal and modes(server) == ["json_schema"] and client.usage.failures == 1

    @LANGS
    def test_tools_offer_one_function_per_command(self, lang: str, bot_spec: BotFile, make_client: MakeClient,
                                                  driver: Driver) -> None:
        """tools mode: each command is a function; the model's calls become the commands."""
        calls = [{"name": "start_flow", "arguments": {"flow": "report_issue"}},
                 {"name": "set_slot", "arguments": {"slot": "order_id", "value": "123456"}}]
        with ScriptedLLMServer([Reply(tool_calls=calls)]) as server:
            client = make_client(server, structured_output="tools")
            assert driver.understand(client, context(lang), bot_spec, None, None) == EXPECTED
        body = server.requests[0]
        names = [tool["function"]["name"] for tool in body["tools"]]
        assert names == ["start_flow", "set_slot", "correct_slot", "confirm", "deny", "cancel", "clarify", "chit_chat"]
        assert body["tools"][0]["function"]["parameters"]["properties"]["flow"]["enum"] == ["report_issue", "check_status"]
        assert "response_format" not in body and "tool_choice" not in body

    def test_tools_for_the_ticket_summary_force_its_one_function(self, make_client: MakeClient, driver: Driver) -> None:
        data = {"facts": ["手机损坏"], "confirmed": ["创建工单"], "pending": []}
        with ScriptedLLMServer([Reply(tool_call={"name": "ticket_summary", "arguments": data})]) as server:
            text = driver.summarize(make_client(server, structured_output="tools"), ["手机坏了"], "zh", ticket=True)
        assert "- 手机损坏" in text.splitlines()
        assert server.requests[0]["tool_choice"] == {"type": "function", "function": {"name": "ticket_summary"}}

    def test_tools_refused_in_a_500_body_are_not_retried(self, bot_spec: BotFile, make_client: MakeClient,
                                                         driver: Driver) -> None:
        refuse = {"tools": Status(500, message="tools are not supported by this model")}
        with ScriptedLLMServer([REPORT] * 3, refuse=refuse) as server:
            client = make_client(server, structured_output="tools")
            with pytest.raises(LLMRejected):
                driver.understand(client, context("en"), bot_spec, None, None)
        assert len(server.requests) == 1


class TestLoggedOnce:
    def test_a_rejected_request_is_logged_once_per_process(self, bot_spec: BotFile, make_client: MakeClient,
                                                           driver: Driver) -> None:
        """A bad key fails every call the same way: one warning, then debug lines."""
        once.reset()      # earlier tests in the process may have seen the same kind of rejection
        with ScriptedLLMServer([Status(401)] * 3) as server, capture_logs() as logs:
            client = make_client(server)
            for _ in range(3):
                with pytest.raises(LLMRejected):
                    driver.understand(client, context("en"), bot_spec, None, None)
        rejected = [entry for entry in logs if entry["event"] == "llm_call_rejected"]
        levels = [entry["log_level"] for entry in rejected]
        # Debug lines reach the capture only where the process logs at debug level.
        assert levels[0] == "warning" and levels.count("warning") == 1 and set(levels[1:]) <= {"debug"}
        assert client.usage.failures == 3

    def test_a_step_down_is_logged_once(self, bot_spec: BotFile, make_client: MakeClient, driver: Driver) -> None:
        with ScriptedLLMServer([REPORT, REPORT], refuse=LLAMA_CPP_PYTHON) as server, capture_logs() as logs:
            driver.understand(make_client(server), context("en"), bot_spec, None, None)
            driver.understand(make_client(server), context("en"), bot_spec, None, None)
        refused = [entry for entry in logs if entry["event"] == "llm_mode_refused"]
        assert len(refused) == 1 and refused[0]["refused"] == "json_schema" and refused[0]["next"] == "json_object"
        assert not [entry for entry in logs if entry["event"] in ("llm_call_rejected", "llm_call_failed")]


class TestMessages:
    def test_system_messages_are_merged_and_roles_alternate(self, bot_spec: BotFile, make_client: MakeClient,
                                                            driver: Driver) -> None:
        """Chat templates of local models take one system message, then alternating turns."""
        window = [
            ContextMessage("system", "You are support.", 100, 8, "system", True),
            ContextMessage("system", "当前任务：report_issue", 90, 8, "flow", True),
            ContextMessage("user", "我的手机坏了", 50, 8, "recent", False),
            ContextMessage("assistant", "请提供您的订单号。", 50, 8, "recent", False),
            ContextMessage("user", "123456", 100, 8, "current", True),
        ]
        with ScriptedLLMServer([REPORT]) as server:
            driver.understand(make_client(server), window, bot_spec, "report_issue", "order_id")
        roles = [m["role"] for m in server.requests[0]["messages"]]
        assert roles == ["system", "user", "assistant", "user"]
        prompt = system_prompt(server.requests[0])
        assert "language-understanding step" in prompt and "You are support." in prompt and "当前任务" in prompt


class TestFirstJson:
    @pytest.mark.parametrize(("text", "expected"), [
        ('{"a": 1}', {"a": 1}),
        ('好的：{"a": 1} 还有 {"b": 2}', {"a": 1}),
        ('Sure {not json} then {"a": {"b": [1, 2]}} trailing }', {"a": {"b": [1, 2]}}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('only a list: [1, 2] here', [1, 2]),
    ], ids=["whole", "two objects zh", "nested after garbage", "fence", "array"])
    def test_the_first_json_object_is_taken(self, text: str, expected: Any) -> None:
        assert first_json(text) == expected

    def test_no_json_raises(self) -> None:
        with pytest.raises(LLMError):
            first_json("这里没有 JSON / no json here {")
