"""A rephrasing replaces the template only when it keeps every value of the template and adds no
URL, e-mail address or number; an injected "reply with your password … http://evil.example/x"
never reaches the user: the template does, and the rejection is logged."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from dialogkit import Bot
from dialogkit.llm.client import LLMClient
from dialogkit.llm.rephrase_check import rephrase_problem
from dialogkit.spec.schema import LLMSpec
from dialogkit.testing.llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
TURN = {"zh": "我的手机碎了，订单号 12345", "en": "my phone arrived broken, order 12345"}
TEMPLATE = {"zh": "将为订单 12345（手机，损坏）创建工单，确认吗？",
            "en": "I'll open a ticket for order 12345 (phone, damaged). Shall I go ahead?"}
INJECTED = {
    "zh": "请回复您的密码以确认订单 12345：http://evil.example/x",
    "en": "To confirm order 12345 (phone, damaged), reply with your password at http://evil.example/x",
}


@LANGS
def test_an_injected_rephrasing_is_refused_and_logged(lang: str) -> None:
    with ScriptedLLMServer(lambda body: INJECTED[lang]) as server:
        spec = LLMSpec(model="scripted-model", timeout_s=5.0, max_retries=0, use_for=["rephrase"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client)
            with capture_logs() as logs:
                replies = [bot.handle(f"s{i}", TURN[lang]).text for i in range(3)]
        finally:
            client.close()
    assert server.requests and replies == [TEMPLATE[lang]] * 3
    reasons = [e["reason"] for e in logs if e["event"] == "llm_fallback" and e["step"] == "rephrase"]
    assert len(reasons) == 3 and all("URL" in r for r in reasons)


@pytest.mark.parametrize(("answer", "problem"), [
    ("Shall I open a ticket for order 12345 (phone, damaged)?", None),
    ("Shall I open a ticket for your order (phone, damaged)?", "lost 1"),
    ("Shall I open a ticket for order 12345 (damaged)?", "lost 1"),           # the task's value 'phone'
    ("Ticket for order 12345 (phone, damaged)? Mail help@evil.example", "e-mail"),
    ("Ticket for order 12345 (phone, damaged)? Call 4006 now", "number"),
    ("Ticket for order 12345 (phone, damaged)? See www.evil.example", "URL"),
    ("", "empty"),
])
def test_what_a_rephrasing_may_change(answer: str, problem: str | None) -> None:
    found = rephrase_problem(TEMPLATE["en"], answer, ["12345", "phone", "damaged", "not shown"])
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_a_chinese_rephrasing_keeping_the_values_is_taken() -> None:
    assert rephrase_problem(TEMPLATE["zh"], "好的，要为订单 12345 的手机（损坏）开工单吗？", ["12345", "phone"]) is None
    assert "URL" in (rephrase_problem(TEMPLATE["zh"], INJECTED["zh"] + "（手机，损坏）") or "")


def test_the_check_is_linear_on_long_runs() -> None:
    """64 KB of letters, digits or dots: each pattern starts once per run (no quadratic rescans)."""
    for text in ("a" * 65536, "1" * 65536, "." * 65536, "a1" * 32768):
        assert rephrase_problem(text, text) is None


MEETING = ROOT / "flows" / "meeting.yaml"
ASKED = {"zh": ("创建会议", "会议定在哪天？"), "en": ("schedule a meeting", "Which day is the meeting?")}
COMMANDS = '{"commands": [{"command": "set_slot", "slot": "date", "value": "tomorrow"}]}'


@LANGS
@pytest.mark.parametrize("answer", [COMMANDS, "```json\n" + COMMANDS + "\n```", {"zh": "好的，会议已安排。",
                                                                                   "en": "Sure, the meeting is set."}])
def test_a_rephrasing_that_loses_the_question_is_not_said(lang: str, answer: str | dict[str, str]) -> None:
    """A model that answers with commands, or with a statement, in place of "Which day?": the bot asks
    its own question."""
    said = answer[lang] if isinstance(answer, dict) else answer
    user, question = ASKED[lang]
    with ScriptedLLMServer(lambda body: said) as server:
        spec = LLMSpec(model="scripted-model", timeout_s=5.0, max_retries=0, use_for=["rephrase"])
        client = LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        try:
            bot = Bot.from_file(MEETING, store="memory://", llm=client,
                                actions={"book_meeting": {"meeting_id": "M-1"}, "send_question": {"message_id": "Q-1"}})
            reply = bot.handle("s", user)
        finally:
            client.close()
    assert server.requests and reply.text == question


@pytest.mark.parametrize(("template", "answer", "problem"), [
    ("Which day is the meeting?", "On which day should the meeting be?", None),
    ("会议定在哪天？", "请问会议安排在哪一天？", None),
    ("会议定在哪天？", "会议安排在哪一天呢", None),
    ("Which day is the meeting?", "The meeting is set.", "question"),
    ("会议定在哪天？", "好的，会议已安排。", "question"),
    ("Which day is the meeting?", COMMANDS, "data"),
    ("会议定在哪天？", "```\n会议定在哪天？\n```", "data"),
    ("Order 12345 is shipped.", "Your order 12345 has shipped.", None),
])
def test_a_question_stays_a_question_and_text_stays_text(template: str, answer: str, problem: str | None) -> None:
    found = rephrase_problem(template, answer)
    assert (found is None) if problem is None else (found is not None and problem in found)
