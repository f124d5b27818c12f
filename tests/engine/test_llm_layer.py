"""A bot with an LLM: the LLM proposes, the rules validate, and any failure falls back to the rules.

Every test talks to a ``ScriptedLLMServer`` through the real ``openai`` client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.engine.llm_layer import LLMLayer
from dialogkit.llm.client import LLMClient
from dialogkit.spec.schema import LLMSpec
from dialogkit.strings.redaction import MASK
from dialogkit.testing.llm_server import Delay, Garbage, Reply, ScriptedLLMServer, Status

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])

# Order numbers written in words: the rules find no order_id here, the LLM does.
IN_WORDS = {
    "zh": "我那台手机摔坏了，订单号是一二三四五六",
    "en": "my phone is broken, the order number is one two three four five six",
}
WITH_DIGITS = {"zh": "订单 654321 的手机屏幕碎了", "en": "order 654321: my phone arrived broken"}
ASKS_ORDER = {"zh": "订单号", "en": "order number"}
CONFIRMS = {"zh": "将为订单 123456", "en": "I'll open a ticket for order 123456"}
REPORT = {"commands": [
    {"command": "start_flow", "flow": "report_issue"},
    {"command": "set_slot", "slot": "order_id", "value": "123456"},
    {"command": "set_slot", "slot": "product", "value": "phone"},
    {"command": "set_slot", "slot": "issue_type", "value": "damaged"},
]}


def client_for(server: ScriptedLLMServer, *, timeout_s: float = 2.0, max_retries: int = 2,
               use_for: tuple[str, ...] = ("understanding", "summaries")) -> LLMClient:
    spec = LLMSpec(model="scripted-model", timeout_s=timeout_s, max_retries=max_retries, use_for=list(use_for))
    return LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)


@pytest.fixture()
def serve() -> Iterator[Any]:
    servers: list[ScriptedLLMServer] = []
    clients: list[LLMClient] = []

    def start(script: Any, **options: Any) -> tuple[Bot, ScriptedLLMServer]:
        server = ScriptedLLMServer(script).start()
        servers.append(server)
        client = client_for(server, **options)
        clients.append(client)
        return Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client), server

    yield start
    for client in clients:
        client.close()
    for server in servers:
        server.close()


class TestCreate:
    def test_no_llm_section_and_no_argument_means_rule_based(self) -> None:
        assert Bot.from_file(SUPPORT, store="memory://").llm_layer is None

    def test_a_spec_without_any_key_stays_rule_based(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        bot = Bot.from_file(SUPPORT, store="memory://", llm=LLMSpec(base_url="http://127.0.0.1:9/v1"))
        assert bot.llm_layer is None and bot.llm is None

    def test_a_spec_or_dict_with_a_key_builds_a_client(self) -> None:
        for llm in (LLMSpec(api_key="sk-x", base_url="http://127.0.0.1:9/v1"), {"api_key": "sk-x", "base_url": "http://127.0.0.1:9/v1"}):
            bot = Bot.from_file(SUPPORT, store="memory://", llm=llm)
            assert isinstance(bot.llm_layer, LLMLayer) and isinstance(bot.llm, LLMClient)
            bot.llm.close()


class TestUnderstanding:
    @LANGS
    def test_the_llm_starts_the_flow_and_fills_slots_the_rules_miss(self, serve: Any, lang: str) -> None:
        bot, server = serve([REPORT])
        reply = bot.handle("s", IN_WORDS[lang])
        assert reply.state == "CONFIRMATION"
        assert reply.slots == {"order_id": "123456", "product": "phone", "issue_type": "damaged"}
        assert CONFIRMS[lang] in reply.text
        assert len(server.requests) == 1

    @LANGS
    def test_the_prompt_goes_through_the_context_window(self, serve: Any, lang: str) -> None:
        """Understanding instructions, then the window's parts, ending with the user's message."""
        bot, server = serve([REPORT])
        bot.handle("s", IN_WORDS[lang])
        messages = server.requests[0]["messages"]
        assert "language-understanding step" in messages[0]["content"]
        assert messages[-1] == {"role": "user", "content": IN_WORDS[lang]}
        assert server.requests[0]["response_format"]["type"] == "json_schema"

    @LANGS
    def test_a_value_the_rules_reject_is_dropped_and_the_rules_value_used(self, serve: Any, lang: str) -> None:
        wrong = {"commands": [{"command": "start_flow", "flow": "report_issue"},
                              {"command": "set_slot", "slot": "order_id", "value": "12ab"}]}
        bot, _ = serve([wrong])
        reply = bot.handle("s", WITH_DIGITS[lang])
        assert reply.slots["order_id"] == "654321"
        assert reply.state == "CONFIRMATION"
        assert bot.session("s").data.usage.failures == 1

    @LANGS
    def test_usage_is_recorded_in_the_session(self, serve: Any, lang: str) -> None:
        bot, _ = serve([Reply(json.dumps(REPORT), usage={"prompt_tokens": 321, "completion_tokens": 45})])
        bot.handle("s", IN_WORDS[lang])
        assert bot.stats("s")["llm"] == {"calls": 1, "prompt_tokens": 321, "completion_tokens": 45, "failures": 0}

    @LANGS
    def test_confirm_deny_and_cancel_become_cues(self, serve: Any, lang: str) -> None:
        bot, _ = serve([REPORT, {"commands": [{"command": "confirm"}]}])
        bot.handle("s", IN_WORDS[lang])
        reply = bot.handle("s", "就这么办吧，麻烦了" if lang == "zh" else "please do exactly that for me")
        assert reply.state == "IDLE" and "T-1001" in reply.text

    @LANGS
    def test_429_is_retried_and_the_answer_used(self, serve: Any, lang: str) -> None:
        bot, server = serve([Status(429, retry_after=0), REPORT])
        reply = bot.handle("s", IN_WORDS[lang])
        assert reply.slots["order_id"] == "123456"
        assert len(server.requests) == 2
        assert bot.stats("s")["llm"]["failures"] == 0


FAILURES = {
    "timeout": ([Delay(2.0, Reply(json.dumps(REPORT)))], {"timeout_s": 0.3, "max_retries": 0}),
    "server errors": ([Status(500), Status(502), Status(503)], {}),
    "malformed json": (["the user wants a ticket, I think"], {}),
    "garbage body": ([Garbage("<html>oops</html>")], {}),
    "empty output": ([Reply("")], {}),
}


class TestFallback:
    @LANGS
    @pytest.mark.parametrize("failure", list(FAILURES))
    def test_any_failure_keeps_the_rule_reading(self, serve: Any, lang: str, failure: str) -> None:
        """The rules' answer is given: a report with its product, asking for the order number."""
        script, options = FAILURES[failure]
        bot, _ = serve(script, **options)
        reply = bot.handle("s", IN_WORDS[lang])
        assert reply.flow == "report_issue" and reply.state == "PARAM_COLLECT"
        assert reply.slots.get("product") == "phone" and "order_id" not in reply.slots
        assert ASKS_ORDER[lang] in reply.text
        assert bot.stats("s")["llm"]["failures"] >= 1

    @LANGS
    def test_the_session_stays_usable_after_a_failure(self, serve: Any, lang: str) -> None:
        bot, _ = serve([Status(500), Status(500), Status(500), REPORT])
        bot.handle("s", IN_WORDS[lang])
        reply = bot.handle("s", "123456")
        assert reply.state == "CONFIRMATION" and reply.slots["order_id"] == "123456"


SECRET_BOT = (Path(__file__).parent / "bots" / "account.yaml").read_text(encoding="utf-8")
PHONES = ("13812345678", "13987654321")
SECRET_TURNS = {
    "zh": [f"把手机号改成{PHONES[0]}", f"不对，应该是{PHONES[1]}", "等一下，我想想"],
    "en": [f"change my phone number to {PHONES[0]}", f"actually it's {PHONES[1]}", "hold on, let me think"],
}


class TestSensitive:
    @LANGS
    def test_sensitive_values_never_reach_the_server(self, tmp_path: Path, lang: str) -> None:
        path = tmp_path / "account.yaml"
        path.write_text(SECRET_BOT, encoding="utf-8")
        start = {"commands": [{"command": "start_flow", "flow": "change_phone"},
                              {"command": "set_slot", "slot": "new_phone", "value": MASK}]}
        with ScriptedLLMServer(lambda body: start) as server, client_for(server) as client:
            bot = Bot.from_file(path, store="memory://", llm=client)
            for text in SECRET_TURNS[lang]:
                reply = bot.handle("s", text)
            assert reply.state == "CONFIRMATION"
            assert bot.session("s").slots["new_phone"] == PHONES[1]
        bodies = json.dumps(server.requests, ensure_ascii=False)
        assert server.requests and not any(phone in bodies for phone in PHONES)


class TestRephrase:
    @LANGS
    def test_rephrase_replaces_the_template_and_keeps_it_on_failure(self, serve: Any, lang: str) -> None:
        nicer = {"zh": "好的！请问您的订单号是多少呢？", "en": "Sure! Could you tell me your order number?"}
        bot, _ = serve([Reply("not json"), Reply(nicer[lang]), Status(400)], use_for=("understanding", "rephrase"))
        assert bot.handle("s", IN_WORDS[lang]).text == nicer[lang]
        reply = bot.handle("t", IN_WORDS[lang])   # understanding and rephrase both fail now
        assert ASKS_ORDER[lang] in reply.text


class TestClose:
    @LANGS
    def test_closing_the_bot_closes_its_llm_client(self, serve: Any, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
        bot, _ = serve([REPORT])
        bot.handle("s", IN_WORDS[lang])
        closed: list[bool] = []
        assert bot.llm is not None
        monkeypatch.setattr(bot.llm, "close", lambda: closed.append(True))
        bot.close()
        assert closed == [True]


class TestUsagePerSession:
    @LANGS
    def test_two_sessions_at_once_are_each_charged_their_own_calls(self, lang: str) -> None:
        """s1's call is slow, s2's lands meanwhile on the same client: neither is charged the other's."""
        import threading

        def answer(body: dict[str, Any]) -> Any:
            slow = any("slow" in str(m.get("content")) for m in body["messages"][-1:])
            reply = Reply(json.dumps(REPORT), usage={"prompt_tokens": 100 if slow else 7, "completion_tokens": 10 if slow else 3})
            return Delay(0.4, reply) if slow else reply

        texts = {"zh": (IN_WORDS["zh"] + " slow", IN_WORDS["zh"]), "en": (IN_WORDS["en"] + " slow", IN_WORDS["en"])}
        with ScriptedLLMServer(answer) as server, client_for(server) as client:
            bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client)
            slow = threading.Thread(target=bot.handle, args=("s1", texts[lang][0]))
            slow.start()
            while not server.requests:
                threading.Event().wait(0.01)
            bot.handle("s2", texts[lang][1])
            slow.join(timeout=5)
            assert bot.stats("s1")["llm"] == {"calls": 1, "prompt_tokens": 100, "completion_tokens": 10, "failures": 0}
            assert bot.stats("s2")["llm"] == {"calls": 1, "prompt_tokens": 7, "completion_tokens": 3, "failures": 0}


FEEDBACK_BOT = """
bot: {name: shop, language: auto}
flows:
  feedback:
    description: 提建议 / Leave feedback
    trigger:
      intent: feedback
      examples: [我想提个建议, 我有个意见, I want to leave feedback, I have a suggestion]
      keywords: [建议, 意见, feedback, suggestion]
    slots:
      - name: comment
        label: {zh: 内容, en: comment}
        ask: {zh: 请说说您的建议。, en: What is your feedback?}
    execute:
      say: {zh: "已记录：{comment}", en: "Noted: {comment}"}
"""
FEEDBACK = {
    "zh": ("我想提个建议，你们的包装盒太大了", "包装盒太大了"),
    "en": ("I have a suggestion, your boxes are far too big", "the boxes are far too big"),
}


class TestFreeTextSlots:
    @LANGS
    def test_a_free_text_value_from_the_llm_fills_the_slot(self, tmp_path: Path, lang: str) -> None:
        """A slot without an entity type: the rules cannot find its value in a sentence, the LLM can."""
        path = tmp_path / "shop.yaml"
        path.write_text(FEEDBACK_BOT, encoding="utf-8")
        text, value = FEEDBACK[lang]
        proposal = {"commands": [{"command": "start_flow", "flow": "feedback"},
                                 {"command": "set_slot", "slot": "comment", "value": value}]}
        with ScriptedLLMServer([proposal]) as server, client_for(server) as client:
            bot = Bot.from_file(path, store="memory://", llm=client)
            reply = bot.handle("s", text)
        assert reply.state == "IDLE" and value in reply.text
        assert [run.inputs for run in reply.actions] in ([], [{"comment": value}])
