"""OpenTelemetry traces (docs/serving.md, "Traces"): a span per turn, child spans for the store,
understanding, the policy, each action and each LLM call, read from an in-memory exporter; no
attribute ever holds a sensitive value or the user's words. Off, tracing costs nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from dialogkit import Bot, tracing
from dialogkit.actions.registry import ActionContext
from dialogkit.llm.client import LLMClient
from dialogkit.spec.schema import LLMSpec
from dialogkit.testing.llm_server import ScriptedLLMServer

BOT = """\
bot: {name: repairs, language: auto}
flows:
  report_issue:
    description: 报修 / Report a fault
    trigger: {keywords: [报修, 坏了, broken, repair]}
    slots:
      - name: phone
        entity: phone
        ask: {zh: 请留下联系电话。, en: What phone number can we call?}
        sensitive: true
    confirm: {ask: {zh: 确认提交吗？, en: Shall I submit it?}}
    execute:
      action: create_ticket
      returns: [ticket_id]
      say: {zh: "已创建工单 {ticket_id}。", en: "Ticket {ticket_id} has been created."}
"""
PHONE = "13812345678"
SAY = {"zh": ["我的电脑坏了", f"电话{PHONE}", "确认"], "en": ["my laptop is broken", f"call me on {PHONE}", "yes"]}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def create_ticket(ctx: ActionContext) -> dict[str, str]:
    return {"ticket_id": "T-1"}


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    yield exporter
    tracing.disable()
    provider.shutdown()


@pytest.fixture
def bot(tmp_path: Path) -> Iterator[Callable[..., Bot]]:
    made: list[Bot] = []

    def make(**options: Any) -> Bot:
        path = tmp_path / "repairs.yaml"
        path.write_text(BOT, encoding="utf-8")
        made.append(Bot.from_file(path, store="memory://", actions={"create_ticket": create_ticket}, **options))
        return made[-1]

    yield make
    for each in made:
        each.close()


def children(of: ReadableSpan, among: tuple[ReadableSpan, ...]) -> list[str]:
    return [s.name for s in among if s.parent is not None and s.parent.span_id == of.context.span_id]


def turns(among: tuple[ReadableSpan, ...]) -> list[ReadableSpan]:
    return [s for s in among if s.name == tracing.TURN]


def attribute_text(among: tuple[ReadableSpan, ...]) -> str:
    return repr([dict(s.attributes or {}) for s in among] + [[dict(e.attributes or {}) for e in s.events]
                                                                for s in among])


class TestTheTree:
    @LANGS
    def test_a_turn_is_a_span_with_its_parts_as_children(self, spans: InMemorySpanExporter,
                                                          bot: Callable[..., Bot], lang: str) -> None:
        b = bot()
        for text in SAY[lang]:
            b.handle("s1", text, user_id="u1")
        finished = spans.get_finished_spans()
        first, second, third = turns(finished)
        assert first.parent is None
        assert children(first, finished) == [tracing.LOAD, tracing.UNDERSTANDING, tracing.POLICY, tracing.COMMIT]
        [policy] = [s for s in finished if s.name == tracing.POLICY and s.parent.span_id == third.context.span_id]
        assert children(policy, finished) == [tracing.ACTION]
        [action] = [s for s in finished if s.name == tracing.ACTION]
        assert action.attributes == {"dialogkit.action": "create_ticket", "dialogkit.flow": "report_issue",
                                     "dialogkit.outcome": "ok"}
        assert len({s.context.trace_id for s in (first, second, third)}) == 3    # one trace per turn

    @LANGS
    def test_attributes_name_the_bot_flow_state_and_triggers(self, spans: InMemorySpanExporter,
                                                            bot: Callable[..., Bot], lang: str) -> None:
        b = bot()
        b.handle("s1", SAY[lang][0], user_id="u1")
        finished = spans.get_finished_spans()
        [turn] = turns(finished)
        assert turn.attributes["dialogkit.bot"] == "repairs"
        assert turn.attributes["dialogkit.flow"] == "report_issue"
        assert turn.attributes["dialogkit.state"] == "PARAM_COLLECT"
        assert turn.attributes["dialogkit.language"] == lang
        assert list(turn.attributes["dialogkit.transitions"]) == ["start_task", "collect"]
        [understanding] = [s for s in finished if s.name == tracing.UNDERSTANDING]
        assert understanding.attributes["dialogkit.intent"] == "report_issue"
        assert understanding.attributes["dialogkit.language"] == lang

    def test_a_failing_action_is_an_error_span_without_its_message(self, spans: InMemorySpanExporter,
                                                                   tmp_path: Path) -> None:
        def failing(ctx: ActionContext) -> dict[str, str]:
            raise RuntimeError(f"backend rejected {ctx.slots['phone']}")

        path = tmp_path / "repairs.yaml"
        path.write_text(BOT, encoding="utf-8")
        b = Bot.from_file(path, store="memory://", actions={"create_ticket": failing})
        for text in SAY["en"]:
            b.handle("s1", text, user_id="u1")
        b.close()
        finished = spans.get_finished_spans()
        [action] = [s for s in finished if s.name == tracing.ACTION]
        assert action.attributes["dialogkit.outcome"] == "error"
        assert action.attributes["error.type"] == "ActionError"
        assert PHONE not in attribute_text(finished) and "rejected" not in attribute_text(finished)


class TestNothingSensitive:
    @LANGS
    def test_no_attribute_holds_a_sensitive_value_or_the_users_words(self, spans: InMemorySpanExporter,
                                                                     bot: Callable[..., Bot], lang: str) -> None:
        b = bot()
        for text in SAY[lang]:
            b.handle("s1", text, user_id="u1")
        seen = attribute_text(spans.get_finished_spans())
        assert PHONE not in seen
        for text in SAY[lang][:2]:              # the last, a bare yes, is also the name of a cue
            assert text not in seen
        assert "u1" not in seen and "s1" not in seen


class TestLLMCalls:
    def test_each_llm_call_is_a_child_span_with_its_tokens(self, spans: InMemorySpanExporter,
                                                           bot: Callable[..., Bot]) -> None:
        with ScriptedLLMServer(lambda body: {"commands": []}) as server:
            client = LLMClient(LLMSpec(model="scripted-model", timeout_s=2, max_retries=0, use_for=["understanding"]),
                               api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
            b = bot(llm=client)
            b.handle("s1", f"my laptop is broken, call me on {PHONE}", user_id="u1")
            client.close()
        finished = spans.get_finished_spans()
        [turn] = turns(finished)
        calls = [s for s in finished if s.name == tracing.LLM_CALL]
        assert calls and all(s.context.trace_id == turn.context.trace_id for s in calls)
        assert calls[0].attributes["gen_ai.request.model"] == "scripted-model"
        assert calls[0].attributes["gen_ai.usage.input_tokens"] > 0
        assert PHONE not in attribute_text(finished)


class TestAsync:
    def test_ahandle_keeps_the_tree_across_its_thread(self, spans: InMemorySpanExporter,
                                                      bot: Callable[..., Bot]) -> None:
        b = bot()
        reply = asyncio.run(b.ahandle("s1", SAY["zh"][0], user_id="u1"))
        assert reply.state == "PARAM_COLLECT"
        finished = spans.get_finished_spans()
        [turn] = turns(finished)
        assert children(turn, finished) == [tracing.LOAD, tracing.UNDERSTANDING, tracing.POLICY, tracing.COMMIT]


class TestOff:
    def test_off_every_hook_is_the_shared_no_op(self) -> None:
        assert not tracing.enabled()
        assert tracing.turn("a") is tracing.turn("b") is tracing.span(tracing.POLICY) is tracing.action("x", "f")
        manager = contextlib.nullcontext()
        assert tracing.transaction(manager) is manager and tracing.atransaction(manager) is manager
        with tracing.turn("a") as current:
            assert current is None
            tracing.describe_turn(current, None)               # never reads what it is given

    def test_a_turn_makes_no_span_when_off(self, bot: Callable[..., Bot]) -> None:
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        b = bot()
        b.handle("s1", SAY["en"][0], user_id="u1")
        assert exporter.get_finished_spans() == ()
        provider.shutdown()


class TestConfiguration:
    def test_nothing_is_set_up_unless_asked(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
        assert tracing.configure_from_env() is False and not tracing.enabled()
        monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
        assert tracing.configure_from_env(force=True) is False and not tracing.enabled()

    def test_otel_variables_choose_the_otlp_exporter(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        installed: list[Any] = []
        monkeypatch.setattr(trace, "set_tracer_provider", installed.append)
        monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        monkeypatch.setenv("OTEL_SERVICE_NAME", "tickets-bot")
        try:
            assert tracing.configure_from_env(force=True) is True and tracing.enabled()
            [provider] = installed
            processors = provider._active_span_processor._span_processors
            assert [type(p.span_exporter) for p in processors] == [OTLPSpanExporter]
            assert provider.resource.attributes["service.name"] == "tickets-bot"
        finally:
            tracing.disable()
            for provider in installed:
                provider.shutdown()                 # nothing was traced: nothing is sent

    def test_an_unknown_exporter_is_a_clear_error(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
        with pytest.raises(RuntimeError, match="zipkin is not supported"):
            tracing.configure_from_env()
        assert not tracing.enabled()
