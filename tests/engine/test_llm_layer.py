"""A bot with an LLM: the LLM proposes, the rules validate, and any failure falls back to the rules.

Every test talks to a ``ScriptedLLMServer`` through the real ``openai`` client. Tests using the
``serve`` fixture run twice: with the layer's sync entry points, and with their async twins
(``aunderstand``, ``arephrase``, ``asummarize``) awaited on one event loop, as an async service will.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from structlog.testing import capture_logs

from dialogkit import Bot
from dialogkit.engine.llm_layer import LLMLayer
from dialogkit.engine.turn import TurnContext
from dialogkit.llm import once
from dialogkit.llm.client import LLMClient
from dialogkit.llm.structured import forget_modes
from dialogkit.spec.schema import LLMSpec
from dialogkit.strings.redaction import MASK
from dialogkit.testing.llm_server import (
    LLAMA_CPP_PYTHON,
    Delay,
    Garbage,
    Reply,
    ScriptedLLMServer,
    Status,
    request_mode,
)

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


def usage_of(bot: Bot, session_id: str) -> dict[str, Any]:
    """The session's LLM usage counts from ``bot.stats`` (without the negotiated mode it also names)."""
    llm = bot.stats(session_id)["llm"]
    return {key: llm[key] for key in ("calls", "prompt_tokens", "completion_tokens", "failures")}


def client_for(server: ScriptedLLMServer, *, timeout_s: float = 2.0, max_retries: int = 2,
               use_for: tuple[str, ...] = ("understanding", "summaries")) -> LLMClient:
    spec = LLMSpec(model="scripted-model", timeout_s=timeout_s, max_retries=max_retries, use_for=list(use_for))
    return LLMClient(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)


T = TypeVar("T")


@pytest.fixture(autouse=True)
def _fresh_process_memory() -> Iterator[None]:
    """Negotiated modes and once-only warnings live for the process: each test starts without them."""
    forget_modes()
    once.reset()
    yield
    forget_modes()
    once.reset()


class AsyncDriven:
    """The layer as an async service drives it: every LLM step awaited (``aunderstand``, ``arephrase``,
    ``asummarize``) on one event loop, here in a thread of its own because ``Bot.handle`` is sync."""

    def __init__(self, layer: LLMLayer) -> None:
        self.layer = layer
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="async-llm", daemon=True)
        self.thread.start()

    def _await(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=10)

    def uses(self, purpose: str) -> bool:
        return self.layer.uses(purpose)

    def understand(self, ctx: TurnContext) -> None:
        self._await(self.layer.aunderstand(ctx))

    def rephrase(self, ctx: TurnContext, text: str) -> str:
        return self._await(self.layer.arephrase(ctx, text))

    def summarizer(self, ctx: TurnContext, sensitive: list[str]) -> Callable[[list[str], str], str]:
        return lambda texts, language: self._await(self.layer.asummarize(ctx, texts, language, sensitive))

    def close(self) -> None:
        self._await(self.layer.client.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


@pytest.fixture(params=["sync", "async"])
def serve(request: pytest.FixtureRequest) -> Iterator[Any]:
    servers: list[ScriptedLLMServer] = []
    clients: list[LLMClient] = []
    driven: list[AsyncDriven] = []

    def start(script: Any, *, refuse: Any = None, **options: Any) -> tuple[Bot, ScriptedLLMServer]:
        server = ScriptedLLMServer(script, refuse=refuse).start()
        servers.append(server)
        client = client_for(server, **options)
        clients.append(client)
        bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS, llm=client)
        if request.param == "async":
            assert bot.llm_layer is not None
            driven.append(AsyncDriven(bot.llm_layer))
            bot.turns.llm = driven[-1]  # type: ignore[assignment]
        return bot, server

    yield start
    for each in driven:
        each.close()
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
    def test_a_value_the_model_heard_fills_the_flow_the_words_request(self, serve: Any, lang: str) -> None:
        """The words ask for the status; the model names no flow, only the order number read out in words."""
        said = {"zh": "帮我查一下订单状态，订单号一二三四五六",
                "en": "check my order status, the order number is one two three four five six"}[lang]
        bot, _ = serve([{"commands": [{"command": "set_slot", "slot": "order_id", "value": "123456"}]}])
        reply = bot.handle("s", said)
        assert [(run.name, run.inputs) for run in reply.actions] == [("order_status", {"order_id": "123456"})]
        assert any(e.rule == "llm" and e.did == "set order_id = 123456" for e in reply.explain)

    @LANGS
    def test_the_models_correction_at_the_confirmation_changes_the_task(self, serve: Any, lang: str) -> None:
        """The new order number is read out in words: the rules hear the correction, not its value."""
        said = {"zh": "等等，订单号应该是六五四三二一", "en": "wait, the order number should be six five four three two one"}
        fix = {"commands": [{"command": "correct_slot", "slot": "order_id", "value": "654321"}]}
        bot, _ = serve([REPORT, fix])
        bot.handle("s", IN_WORDS[lang])
        reply = bot.handle("s", said[lang])
        assert reply.state == "CONFIRMATION" and reply.slots["order_id"] == "654321" and "654321" in reply.text
        assert any(e.rule == "llm" and e.did == "corrected order_id: 123456 → 654321" for e in reply.explain)

    @LANGS
    def test_usage_is_recorded_in_the_session(self, serve: Any, lang: str) -> None:
        bot, _ = serve([Reply(json.dumps(REPORT), usage={"prompt_tokens": 321, "completion_tokens": 45})])
        bot.handle("s", IN_WORDS[lang])
        assert usage_of(bot, "s") == {"calls": 1, "prompt_tokens": 321, "completion_tokens": 45, "failures": 0}

    @LANGS
    def test_a_confirm_is_a_yes_when_the_words_open_with_one(self, serve: Any, lang: str) -> None:
        """The rules' yes cue misses a yes with this much after it; the model's confirm is kept, as
        the words open with a yes (a confirm without one is dropped: see test_grounding.py)."""
        bot, _ = serve([REPORT, {"commands": [{"command": "confirm"}]}])
        bot.handle("s", IN_WORDS[lang])
        said = "好的，就这么办吧，麻烦你们了" if lang == "zh" else "sure, that is exactly what I need, thanks a lot"
        assert "yes" not in bot.understanding.interpret(said, lang).cues
        reply = bot.handle("s", said)
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
            assert usage_of(bot, "s1") == {"calls": 1, "prompt_tokens": 100, "completion_tokens": 10, "failures": 0}
            assert usage_of(bot, "s2") == {"calls": 1, "prompt_tokens": 7, "completion_tokens": 3, "failures": 0}


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


class TestNegotiation:
    @LANGS
    def test_a_server_refusing_json_schema_answers_every_turn_in_json_mode(self, serve: Any, lang: str) -> None:
        """llama.cpp's server refuses JSON Schema with a 500 naming response_format: the first turn steps
        down once, every later request is JSON mode, and no turn falls back to the rules."""
        bot, server = serve(lambda body: REPORT if request_mode(body) != "text" else "ok", refuse=LLAMA_CPP_PYTHON)
        reply = bot.handle("s", IN_WORDS[lang])
        assert reply.state == "CONFIRMATION" and reply.slots["order_id"] == "123456"
        bot.handle("t", WITH_DIGITS[lang])
        assert [request_mode(body) for body in server.requests] == ["json_schema", "json_object", "json_object"]
        assert bot.stats("s")["llm"]["failures"] == bot.stats("t")["llm"]["failures"] == 0
        assert bot.stats("s")["llm"]["calls"] == 1
        assert bot.llm is not None and bot.llm.mode == "json_object"
        assert bot.stats("s")["llm"]["mode"] == "json_object"

    @LANGS
    def test_a_rejected_request_falls_back_with_one_warning_per_process(self, serve: Any, lang: str) -> None:
        """A bad key fails every turn the same way: each turn is answered by the rules and counted, the
        warnings are logged once."""
        bot, server = serve([Status(401)] * 3)
        with capture_logs() as logs:
            for session in ("a", "b", "c"):
                reply = bot.handle(session, IN_WORDS[lang])
                assert reply.flow == "report_issue" and ASKS_ORDER[lang] in reply.text
                assert bot.stats(session)["llm"]["failures"] == 1
        assert len(server.requests) == 3
        warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
        assert warnings.count("llm_fallback") == 1 and warnings.count("llm_call_rejected") == 1


class TestSummaries:
    @LANGS
    def test_rounds_leaving_the_window_are_summarised_by_the_llm(self, serve: Any, lang: str) -> None:
        """Small talk until the first five rounds have left the window (folding stays one round
        behind it): they are folded by the LLM's summary."""
        summary = "用户在闲聊。" if lang == "zh" else "The user is making small talk."

        def answer(body: dict[str, Any]) -> Any:
            return {"commands": [{"command": "chit_chat"}]} if request_mode(body) != "text" else summary

        bot, server = serve(answer)
        for number in range(5 + bot.spec.context.effective_keep_recent_rounds + 1):
            bot.handle("s", f"今天天气不错 {number}" if lang == "zh" else f"nice weather today {number}")
        assert summary in json.dumps(bot.session("s").data.summary.round_summaries, ensure_ascii=False)
        assert [request_mode(body) for body in server.requests].count("text") == 1


class TestStats:
    @LANGS
    def test_a_short_conversation_reports_its_true_negative_saving(self, lang: str) -> None:
        """More is sent than the history holds: saved_pct says so (saved_tokens stops at 0), and /stats
        explains why."""
        from io import StringIO

        from rich.console import Console

        from dialogkit.cli.chat import _stats

        bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
        bot.handle("s", WITH_DIGITS[lang])
        stats = bot.stats("s")
        assert stats["sent_tokens"] > stats["full_tokens"] > 0 and stats["saved_tokens"] == 0
        assert stats["saved_pct"] == round(100 * (stats["full_tokens"] - stats["sent_tokens"]) / stats["full_tokens"], 1)
        assert stats["saved_pct"] < 0
        console = Console(file=StringIO(), width=200)
        _stats(console, bot, "s")
        shown = console.file.getvalue()  # type: ignore[attr-defined]
        assert f"saved_pct: {stats['saved_pct']}" in shown
        assert "system prompt, task state and summary cost more than the history itself" in shown
