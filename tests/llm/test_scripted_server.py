"""The scripted OpenAI-compatible server users test their LLM paths with."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dialogkit.errors import LLMError
from dialogkit.testing.llm_server import Reply, ScriptedLLMServer
from tests.llm.conftest import MakeClient


def test_base_url_is_loopback_with_v1() -> None:
    """The server listens on 127.0.0.1 at a free port and names the /v1 base URL."""
    with ScriptedLLMServer([]) as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1" and server.port > 0


@pytest.mark.parametrize("text", ["你好", "hello"], ids=["zh", "en"])
def test_plain_string_and_dict_shorthands(text: str, make_client: MakeClient) -> None:
    """A str in the script is a Reply; a dict is a Reply with that dict as JSON content."""
    with ScriptedLLMServer([text, {"greeting": text}]) as server:
        client = make_client(server)
        assert client.chat([{"role": "user", "content": text}]).content == text
        assert json.loads(client.chat([{"role": "user", "content": text}]).content) == {"greeting": text}
    assert [r["messages"][0]["content"] for r in server.requests] == [text, text]


def test_callable_script_sees_each_request(make_client: MakeClient) -> None:
    """A callable script answers from the request body (here: echoes the user's words)."""

    def echo(body: dict[str, Any]) -> Reply:
        return Reply("echo: " + body["messages"][-1]["content"])

    with ScriptedLLMServer(echo) as server:
        client = make_client(server)
        assert client.chat([{"role": "user", "content": "订单"}]).content == "echo: 订单"
        assert client.chat([{"role": "user", "content": "order"}]).content == "echo: order"


def test_exhausted_script_fails_loudly(make_client: MakeClient) -> None:
    """An unexpected extra call gets a 500 'script exhausted', so the test sees it."""
    with ScriptedLLMServer(["only one"]) as server:
        client = make_client(server, max_retries=0)
        client.chat([{"role": "user", "content": "1"}])
        with pytest.raises(LLMError) as caught:
            client.chat([{"role": "user", "content": "2"}])
    assert "script exhausted" in str(caught.value.original)


def test_default_usage_is_reported(make_client: MakeClient) -> None:
    """Without a scripted usage the server still reports plausible token counts."""
    with ScriptedLLMServer([Reply("a reasonably long answer to count")]) as server:
        result = make_client(server).chat([{"role": "user", "content": "a question of some length"}])
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
