"""The LLM client against the scripted server, through the real openai SDK (never patched), with the
sync SDK and with the async one (the ``driver`` fixture runs each test both ways)."""

from __future__ import annotations

import os
import time

import openai
import pytest
from structlog.testing import capture_logs

from dialogkit.errors import LLMError
from dialogkit.llm.client import LLMClient
from dialogkit.spec.schema import LLMSpec
from dialogkit.testing.llm_server import Delay, Drop, Garbage, Reply, ScriptedLLMServer, Status
from tests.llm.conftest import Driver, MakeClient

ANSWERS = pytest.mark.parametrize("answer", ["您的订单已发货。", "Your order has shipped."], ids=["zh", "en"])
ASK = [{"role": "user", "content": "订单到哪了？ / where is my order?"}]


class TestSuccess:
    @ANSWERS
    def test_reply_content_and_usage(self, answer: str, make_client: MakeClient, driver: Driver) -> None:
        """A completion returns its text and token usage, accumulated on the client."""
        usage = {"prompt_tokens": 12, "completion_tokens": 5}
        with ScriptedLLMServer([Reply(answer, usage=usage), Reply(answer, usage=usage)]) as server:
            client = make_client(server)
            first = driver.chat(client, ASK)
            driver.chat(client, ASK)
        assert (first.content, first.prompt_tokens, first.completion_tokens, first.attempts) == (answer, 12, 5, 1)
        assert first.latency_s > 0
        assert (client.usage.calls, client.usage.prompt_tokens, client.usage.completion_tokens) == (2, 24, 10)

    def test_request_carries_model_messages_format_and_key(self, make_client: MakeClient, driver: Driver) -> None:
        """The server sees the model, the messages, the response_format and the bearer key."""
        fmt = {"type": "json_object"}
        with ScriptedLLMServer(["{}"]) as server:
            driver.chat(make_client(server), ASK, response_format=fmt)
        body = server.requests[0]
        assert body["model"] == "scripted-model" and body["messages"] == ASK
        assert body["response_format"] == fmt
        assert server.headers[0]["authorization"] == "Bearer sk-test-secret"

    def test_tool_call_is_returned(self, make_client: MakeClient, driver: Driver) -> None:
        """A tool call comes back with its name and raw JSON arguments."""
        with ScriptedLLMServer([Reply(tool_call={"name": "set_slot", "arguments": {"slot": "order_id"}})]) as server:
            result = driver.chat(make_client(server), ASK, tools=[{"type": "function", "function": {"name": "set_slot"}}])
        assert result.tool_calls[0].name == "set_slot"
        assert '"order_id"' in result.tool_calls[0].arguments


class TestRetries:
    def test_timeout_raises_within_the_deadline(self, make_client: MakeClient, driver: Driver) -> None:
        """A server slower than timeout_s gives LLMError(original=APITimeoutError) on time."""
        with ScriptedLLMServer([Delay(2.0, then=Reply("late"))]) as server:
            client = make_client(server, timeout_s=0.3)
            started = time.monotonic()
            with pytest.raises(LLMError) as caught:
                driver.chat(client, ASK)
            elapsed = time.monotonic() - started
        assert isinstance(caught.value.original, openai.APITimeoutError)
        assert elapsed < 1.0
        assert client.usage.failures == 1

    def test_rate_limit_then_success_is_retried(self, make_client: MakeClient, driver: Driver) -> None:
        """A 429 is retried and the second answer returned."""
        with ScriptedLLMServer([Status(429), Reply("ok")]) as server:
            result = driver.chat(make_client(server), ASK)
        assert result.content == "ok" and result.attempts == 2
        assert len(server.requests) == 2

    def test_retry_after_is_honoured(self, make_client: MakeClient, driver: Driver) -> None:
        """The client waits the Retry-After the server asked for, not its own tiny backoff."""
        with ScriptedLLMServer([Status(429, retry_after=0.3), Reply("ok")]) as server:
            started = time.monotonic()
            driver.chat(make_client(server), ASK)
        assert time.monotonic() - started >= 0.3

    def test_retry_after_beyond_the_deadline_fails_at_once(self, make_client: MakeClient, driver: Driver) -> None:
        """A wait that would pass the deadline is not taken: the call fails now."""
        with ScriptedLLMServer([Status(429, retry_after=30), Reply("ok")]) as server:
            started = time.monotonic()
            with pytest.raises(LLMError) as caught:
                driver.chat(make_client(server, timeout_s=0.5), ASK)
            elapsed = time.monotonic() - started
        assert isinstance(caught.value.original, openai.RateLimitError)
        assert elapsed < 3.0, "it waited for the Retry-After"   # the SDK's first request alone may take a second
        assert len(server.requests) == 1

    def test_server_errors_exhaust_retries(self, make_client: MakeClient, driver: Driver) -> None:
        """500 on every attempt: max_retries + 1 requests, then LLMError with the original."""
        with ScriptedLLMServer([Status(500)] * 3) as server, pytest.raises(LLMError) as caught:
            driver.chat(make_client(server, max_retries=2), ASK)
        assert isinstance(caught.value.original, openai.InternalServerError)
        assert len(server.requests) == 3

    def test_sdk_retries_are_disabled(self, make_client: MakeClient, driver: Driver) -> None:
        """With max_retries=0 exactly one request is made: the SDK adds none of its own."""
        with ScriptedLLMServer([Status(503), Reply("never")]) as server, pytest.raises(LLMError):
            driver.chat(make_client(server, max_retries=0), ASK)
        assert len(server.requests) == 1

    def test_client_errors_are_not_retried(self, make_client: MakeClient, driver: Driver) -> None:
        """A 400 is the request's fault: no retry."""
        with ScriptedLLMServer([Status(400), Reply("never")]) as server, pytest.raises(LLMError) as caught:
            driver.chat(make_client(server), ASK)
        assert isinstance(caught.value.original, openai.BadRequestError)
        assert len(server.requests) == 1

    def test_dropped_connection_is_retried(self, make_client: MakeClient, driver: Driver) -> None:
        """A connection closed without an answer is retried."""
        with ScriptedLLMServer([Drop(), Reply("ok")]) as server:
            assert driver.chat(make_client(server), ASK).content == "ok"


class TestGarbage:
    def test_malformed_json_body(self, make_client: MakeClient, driver: Driver) -> None:
        """A 200 whose body is not JSON raises LLMError carrying the parse error."""
        with ScriptedLLMServer([Garbage("<html>oops</html>")]) as server, pytest.raises(LLMError) as caught:
            driver.chat(make_client(server), ASK)
        assert isinstance(caught.value.original, ValueError)

    def test_body_without_choices(self, make_client: MakeClient, driver: Driver) -> None:
        """Valid JSON that is not a completion raises LLMError."""
        with ScriptedLLMServer([Garbage('{"hello": "world"}')]) as server, pytest.raises(LLMError):
            driver.chat(make_client(server), ASK)

    @pytest.mark.parametrize("content", ["", "   "], ids=["empty", "blank"])
    def test_empty_content(self, content: str, make_client: MakeClient, driver: Driver) -> None:
        """An answer with no text (and no tool call) raises LLMError and counts as a failure."""
        with ScriptedLLMServer([Reply(content)]) as server:
            client = make_client(server)
            with pytest.raises(LLMError, match="empty"):
                driver.chat(client, ASK)
        assert client.usage.failures == 1


class TestConstruction:
    def test_no_key_means_no_client(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without a key anywhere, from_spec gives None and the bot stays rule-based."""
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        assert LLMClient.from_spec(LLMSpec()) is None
        assert LLMClient.from_spec(None) is None
        with pytest.raises(LLMError, match="API key"):
            LLMClient(LLMSpec())

    def test_key_and_base_url_from_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """OPENAI_API_KEY and OPENAI_BASE_URL are used when the spec names neither."""
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        with ScriptedLLMServer(["来自环境 / from env"]) as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            client = LLMClient.from_spec(LLMSpec(timeout_s=2))
            assert client is not None and client.base_url == server.base_url
            with client:
                assert client.chat(ASK).content == "来自环境 / from env"
        assert server.headers[0]["authorization"] == "Bearer sk-env"

    def test_key_is_never_logged_or_shown(self, make_client: MakeClient) -> None:
        """Neither the repr nor the failure logs contain the API key."""
        with ScriptedLLMServer([Status(500)] * 3) as server:
            client = make_client(server)
            with capture_logs() as logs, pytest.raises(LLMError) as caught:
                client.chat(ASK)
        assert logs and all("sk-test-secret" not in str(entry) for entry in logs)
        assert "sk-test-secret" not in repr(client) and "sk-test-secret" not in str(caught.value)


@pytest.mark.skipif(not os.environ.get("DIALOGKIT_TEST_LLM_BASE_URL"), reason="set DIALOGKIT_TEST_LLM_BASE_URL to test a real endpoint")
def test_real_endpoint_answers() -> None:
    """A real OpenAI-compatible endpoint answers a one-line question."""
    spec = LLMSpec(model=os.environ.get("DIALOGKIT_TEST_LLM_MODEL", "gpt-4o-mini"), timeout_s=30)
    client = LLMClient(spec, api_key=os.environ.get("OPENAI_API_KEY", "none"), base_url=os.environ["DIALOGKIT_TEST_LLM_BASE_URL"])
    with client:
        result = client.chat([{"role": "user", "content": "Reply with the word: pong"}])
    assert result.content and client.usage.calls == 1
