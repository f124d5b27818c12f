"""``/metrics``: turns by flow and outcome, the latency histogram, LLM calls and fallbacks,
clarifications, errors by code (docs/serving.md, "Metrics")."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.model.reply import Reply
from dialogkit.model.session import Usage
from dialogkit.service import create_app
from dialogkit.service.metrics import Metrics, outcome_of


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in the Prometheus text ``text`` (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if labels else "") + r" ([0-9.e+-]+)$"
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def say(client: TestClient, session: str, *texts: str) -> None:
    for text in texts:
        assert client.post(f"/v1/sessions/{session}/turns", json={"text": text}).status_code == 200


def test_turns_are_counted_by_flow_and_outcome(client: TestClient) -> None:
    say(client, "zh", "我上周买的手机屏幕碎了", "123456", "确认")
    say(client, "en", "my phone arrived broken", "never mind")
    say(client, "refs", "I have two orders, 12345 and 67890", "it never arrived")
    text = client.get("/metrics").text
    assert sample(text, "dialogkit_turns_total", flow="report_issue", outcome="continued") == 3
    assert sample(text, "dialogkit_turns_total", flow="report_issue", outcome="completed") == 1
    assert sample(text, "dialogkit_turns_total", flow="report_issue", outcome="cancelled") == 1
    assert sample(text, "dialogkit_turns_total", flow="none", outcome="clarification") == 1
    assert sample(text, "dialogkit_clarifications_total") == 1
    assert sample(text, "dialogkit_turn_latency_seconds_count") == 7
    assert sample(text, "dialogkit_turn_latency_seconds_bucket", le="10.0") == 7
    assert client.get("/metrics").headers["content-type"].startswith("text/plain")


def test_errors_are_counted_by_code(client: TestClient) -> None:
    client.get("/v1/sessions/nobody")
    client.get("/v1/sessions/nobody")
    client.get("/v1/sessions/bad%20id")
    client.post("/v1/sessions/s1/turns", json={"text": "x" * 70_000})
    text = client.get("/metrics").text
    assert sample(text, "dialogkit_errors_total", code="unknown_session") == 2
    assert sample(text, "dialogkit_errors_total", code="invalid_id") == 1
    assert sample(text, "dialogkit_errors_total", code="body_too_large") == 1


def test_a_failed_turn_counts_as_an_error_outcome(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object, **kwargs: object) -> Reply:
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.turns, "handle", crash)
    with TestClient(create_app(bot), raise_server_exceptions=False) as client:
        client.post("/v1/sessions/s1/turns", json={"text": "hi"})
        text = client.get("/metrics").text
    assert sample(text, "dialogkit_turns_total", flow="none", outcome="error") == 1
    assert sample(text, "dialogkit_errors_total", code="internal_error") == 1


class FakeClient:
    """What the metrics read of an LLM client: its usage counters."""

    def __init__(self) -> None:
        self.usage = Usage()


def test_llm_calls_and_fallbacks_are_counted_from_the_clients_usage(bot: Bot,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeClient()
    handle = bot.turns.handle

    def with_llm(*args: object, **kwargs: object) -> Reply:
        fake.usage.calls += 2                # understanding and rephrasing answered
        fake.usage.failures += 1             # one call failed: the rules answered instead
        return handle(*args, **kwargs)       # type: ignore[arg-type]

    monkeypatch.setattr(bot.turns, "handle", with_llm)
    monkeypatch.setattr(bot, "llm", fake)
    with TestClient(create_app(bot)) as client:
        say(client, "s1", "my phone arrived broken", "12345")
        text = client.get("/metrics").text
    assert sample(text, "dialogkit_llm_calls_total", result="ok") == 4
    assert sample(text, "dialogkit_llm_calls_total", result="failed") == 2
    assert sample(text, "dialogkit_llm_fallbacks_total") == 2


def test_a_new_llm_client_is_counted_from_zero() -> None:
    metrics = Metrics()
    first, second = FakeClient(), FakeClient()
    first.usage.calls = 5
    metrics.llm_usage(first)
    second.usage.calls = 1
    metrics.llm_usage(second)                # a reload built a new client
    metrics.llm_usage(second)                # nothing new: nothing added
    metrics.llm_usage(None)
    assert metrics.llm_calls.labels("ok")._value.get() == 6


@pytest.mark.parametrize(("transitions", "clarification", "outcome"), [
    (["start_task", "collect"], None, "continued"),
    (["confirm", "complete"], None, "completed"),
    (["confirm", "fail"], None, "failed"),
    (["cancel"], None, "cancelled"),
    ([], ["12345", "67890"], "clarification"),
])
def test_outcomes(transitions: list[str], clarification: list[str] | None, outcome: str) -> None:
    reply = Reply(text="", state="IDLE", flow=None, slots={}, session_id="s", language="en",
                  transitions=transitions, clarification=clarification)
    assert outcome_of(reply) == outcome


def test_two_apps_in_one_process_count_apart(bot: Bot) -> None:
    with TestClient(create_app(bot)) as one, TestClient(create_app(bot)) as two:
        say(one, "s1", "hi")
        assert sample(two.get("/metrics").text, "dialogkit_turn_latency_seconds_count") == 0
        assert sample(one.get("/metrics").text, "dialogkit_turn_latency_seconds_count") == 1
