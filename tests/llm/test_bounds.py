"""The LLM's answer is bounded: a reply too long is refused before any JSON is parsed, and a
turn takes at most ``MAX_COMMANDS`` commands, so 20,000 proposed commands cost bounded work.

The work is counted (commands validated, JSON parses), never timed in-process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.llm import commands as llm_commands
from dialogkit.llm import structured
from dialogkit.llm.bounds import MAX_COMMANDS, MAX_REPLY_CHARS
from dialogkit.llm.client import LLMClient
from dialogkit.spec.schema import LLMSpec
from dialogkit.testing.llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
FIRST = {"zh": "我的手机碎了", "en": "my phone arrived broken"}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


class Counter:
    """Counts the items a function is called on, then calls it."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped, self.calls = wrapped, 0

    def validate_python(self, item: Any) -> Any:
        self.calls += 1
        return self.wrapped.validate_python(item)

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.wrapped(*args)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Counter, Counter]]:
    """(command items validated, JSON texts parsed) for the test's turns."""
    items = Counter(llm_commands._COMMAND)
    parses = Counter(structured.first_json)
    monkeypatch.setattr(llm_commands, "_COMMAND", items)
    monkeypatch.setattr(structured, "first_json", parses)
    yield items, parses


def talk(answer: Any, lang: str) -> tuple[str, dict[str, Any]]:
    """One turn against a model that always gives ``answer``: the reply and the session's LLM usage."""
    with ScriptedLLMServer(lambda body: answer) as server:
        spec = LLMSpec(model="scripted-model", timeout_s=5.0, max_retries=0, use_for=["understanding"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client)
            reply = bot.handle("s1", FIRST[lang])
            usage = bot.stats("s1")["llm"]
        finally:
            client.close()
    return reply.text, usage


@LANGS
def test_twenty_thousand_commands_are_refused_unparsed(lang: str, counted: tuple[Counter, Counter]) -> None:
    """A reply of 20,000 commands is longer than any turn needs: it is a failure before parsing,
    and the rules answer the turn."""
    answer = json.dumps({"commands": [{"command": "set_slot", "slot": "order_id", "value": "24680"}] * 20_000})
    assert len(answer) > MAX_REPLY_CHARS
    text, usage = talk(answer, lang)
    items, parses = counted
    assert (items.calls, parses.calls) == (0, 0)
    assert usage["failures"] >= 1 and text          # answered, by the rules
    assert "24680" not in text


@LANGS
def test_a_reply_within_the_size_takes_at_most_max_commands(lang: str, counted: tuple[Counter, Counter]) -> None:
    """As many commands as fit in the size read: only the first ``MAX_COMMANDS`` are validated."""
    one = {"command": "chit_chat"}
    many = json.dumps({"commands": [one] * ((MAX_REPLY_CHARS - 20) // len(json.dumps(one) + ", "))})
    assert len(many) <= MAX_REPLY_CHARS and many.count("chit_chat") > 20 * MAX_COMMANDS
    text, _ = talk(many, lang)
    items, parses = counted
    assert items.calls == MAX_COMMANDS and parses.calls == 1 and text


def test_commands_from_reads_only_the_first_max_commands(counted: tuple[Counter, Counter]) -> None:
    """Twenty thousand items handed over directly: MAX_COMMANDS read, the others never looked at."""
    data = {"commands": [{"command": "confirm"}] * 20_000}
    assert len(llm_commands.commands_from(data)) == MAX_COMMANDS
    assert counted[0].calls == MAX_COMMANDS


@pytest.mark.parametrize("openings", [1, 10_000])
def test_unclosed_fences_are_read_in_one_pass(openings: int) -> None:
    """Many ``` openings without a closing fence: each body is found once, none rescanned."""
    text = "```json\n" * openings + '{"commands": []}'
    assert structured.first_json(text) == {"commands": []}
    assert structured._fenced("a ```json\n{}\n``` b ```[1]``` c ```") == ["{}", "[1]"]
