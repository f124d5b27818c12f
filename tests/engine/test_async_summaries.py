"""LLM round summaries in a native async turn (``Turns.ahandle``): awaited through the async client,
never the sync one, and the same summaries ``handle`` writes for the same scripted LLM, a summary of
summaries included; an LLM that fails leaves the rules' summary, as in ``handle``.

The bots talk to a ``ScriptedLLMServer`` through the real ``openai`` clients; the async one sits on
the memory store behind an awaited transaction (``AwaitedStore``), as it would on Redis.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.llm.client import LLMClient
from dialogkit.memory.hierarchy import ROUNDS_PER_SUMMARY
from dialogkit.model.session import SummaryState
from dialogkit.spec.loader import check_bot_file
from dialogkit.spec.schema import LLMSpec
from dialogkit.strings.redaction import MASK
from dialogkit.testing.llm_server import Delay, Reply, ScriptedLLMServer, Status, request_mode
from tests.engine.test_async_turns import AwaitedStore, max_loop_lag
from tests.engine.test_llm_layer import _fresh_process_memory  # noqa: F401  (autouse: no negotiated modes)
from tests.service.conftest import SUPPORT

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}


def support_keep() -> int:
    spec = check_bot_file(SUPPORT).spec
    assert spec is not None
    return spec.context.effective_keep_recent_rounds


TURNS = 3 * ROUNDS_PER_SUMMARY + support_keep() + 1
"""Enough small talk for three 5-round blocks to leave the window (folding stays one round behind
it), hence a level-2 summary too: the last turn folds the third block and then the three summaries."""
CHIT_CHAT = {"commands": [{"command": "chit_chat"}]}


def small_talk(lang: str) -> list[str]:
    return [f"今天天气不错，第{n}次说" if lang == "zh" else f"nice weather today, take {n}" for n in range(TURNS)]


def summary_of(body: dict[str, Any]) -> str:
    """A summary that depends on what was asked, so each block (and each level) gets its own."""
    asked = body["messages"][-1]["content"]
    chinese = any("\u4e00" <= char <= "\u9fff" for char in asked)
    return f"摘要{len(asked)}" if chinese else f"summary {len(asked)}"


def llm_answers(body: dict[str, Any]) -> Any:
    return CHIT_CHAT if request_mode(body) != "text" else summary_of(body)


class CountingClient(LLMClient):
    """The LLM client, counting the calls each of its SDK clients (sync, async) performed."""

    def __init__(self, server: ScriptedLLMServer, use_for: list[Any]) -> None:
        spec = LLMSpec(model="scripted-model", timeout_s=5.0, max_retries=0, use_for=use_for)
        super().__init__(spec, api_key="sk-test", base_url=server.base_url, backoff_s=0.01, max_backoff_s=0.05)
        self.sync_calls = 0
        self.async_calls = 0

    def run(self, steps: Any) -> Any:
        self.sync_calls += 1
        return super().run(steps)

    async def arun(self, steps: Any) -> Any:
        self.async_calls += 1
        return await super().arun(steps)


def converse(script: Any, lang: str, *, use_for: tuple[str, ...] = ("understanding", "summaries"),
             awaited: bool) -> tuple[SummaryState, CountingClient]:
    """The small talk through ``ahandle`` (``awaited``) or ``handle``; the session's summary state."""
    with ScriptedLLMServer(script) as server:
        client = CountingClient(server, list(use_for))
        store: Any = AwaitedStore() if awaited else "memory://"
        with Bot.from_file(SUPPORT, store=store, actions=STUBS, llm=client) as bot:
            if awaited:
                assert bot.turns.native_async

                async def run() -> None:
                    for text in small_talk(lang):
                        await bot.ahandle("s", text)
                    await client.aclose()

                asyncio.run(run())
            else:
                for text in small_talk(lang):
                    bot.handle("s", text)
            state = summary_state(bot)
        client.close()
    return state, client


def summary_state(bot: Bot) -> SummaryState:
    session = bot.session("s").data
    assert session is not None
    return session.summary


def folded(state: SummaryState) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return list(state.round_summaries), list(state.block_summaries)


@LANGS
def test_ahandle_writes_the_summaries_handle_writes_through_the_async_client(lang: str) -> None:
    awaited, async_client = converse(llm_answers, lang, awaited=True)
    handled, sync_client = converse(llm_answers, lang, awaited=False)
    assert folded(awaited) == folded(handled)
    assert awaited.block_summaries, "a summary of summaries was written"
    texts = json.dumps(folded(awaited), ensure_ascii=False)
    assert ("摘要" if lang == "zh" else "summary ") in texts and "天气" not in texts   # all the LLM's
    assert async_client.sync_calls == 0 and async_client.async_calls == sync_client.sync_calls
    assert sync_client.async_calls == 0


@LANGS
def test_a_failing_llm_leaves_the_rules_summary_in_ahandle_as_in_handle(lang: str) -> None:
    def summaries_fail(body: dict[str, Any]) -> Any:
        return CHIT_CHAT if request_mode(body) != "text" else Status(500, message="summaries are down")

    awaited, client = converse(summaries_fail, lang, awaited=True)
    handled, _ = converse(summaries_fail, lang, awaited=False)
    rules, _ = converse(llm_answers, lang, use_for=("understanding",), awaited=True)
    assert folded(awaited) == folded(handled) == folded(rules)
    assert awaited.block_summaries and client.sync_calls == 0


def test_a_slow_summary_never_blocks_the_loop() -> None:
    """The last turn waits twice on the LLM's summaries (a block, then the summary of three); the
    loop keeps serving meanwhile. The turn runs with no thread to offload to, so only awaiting
    the summaries keeps the loop free."""

    def slow_summaries(body: dict[str, Any]) -> Any:
        return CHIT_CHAT if request_mode(body) != "text" else Delay(0.3, Reply(summary_of(body)))

    with ScriptedLLMServer(slow_summaries) as server:
        client = CountingClient(server, ["understanding", "summaries"])
        with Bot.from_file(SUPPORT, store=AwaitedStore(), actions=STUBS, llm=client) as bot:
            async def run() -> float:
                for text in small_talk("en")[:-1]:
                    await bot.ahandle("s", text)
                before = client.async_calls
                lag = await max_loop_lag(bot.turns.ahandle("s", small_talk("en")[-1]))
                assert client.async_calls - before == 3      # understanding, then two summaries
                await client.aclose()
                return lag

            lag = asyncio.run(run())
            assert summary_state(bot).block_summaries
        client.close()
    assert client.sync_calls == 0
    assert lag < 0.2



ACCOUNT_BOT = (Path(__file__).parent / "bots" / "account.yaml").read_text(encoding="utf-8")
PHONE = "13812345678"
CHANGE = {"zh": ["修改手机号", f"新号码是 {PHONE}"], "en": ["change my phone number", f"the new one is {PHONE}"]}


@pytest.mark.parametrize("summaries", ["written", "failing"])
@LANGS
def test_a_sensitive_value_reaches_no_summary_in_ahandle(lang: str, summaries: str, tmp_path: Path) -> None:
    """A ``sensitive: true`` slot's value said in the first rounds is masked in what the async client
    is asked to summarise and in every summary kept, the rules' fallback's included."""
    asked: list[str] = []

    def answer(body: dict[str, Any]) -> Any:
        if request_mode(body) != "text":
            return {"commands": []}               # the rules fill the slot (an LLM never does)
        asked.append(json.dumps(body["messages"], ensure_ascii=False))
        return summary_of(body) if summaries == "written" else Status(500, message="summaries are down")

    path = tmp_path / "account.yaml"
    path.write_text(ACCOUNT_BOT + "context: {keep_recent_rounds: 1}\n", encoding="utf-8")
    with ScriptedLLMServer(answer) as server:
        client = CountingClient(server, ["understanding", "summaries"])
        with Bot.from_file(path, store=AwaitedStore(), llm=client) as bot:
            async def run() -> None:
                for text in [*CHANGE[lang], *small_talk(lang)[2:]]:
                    await bot.ahandle("s", text)
                await client.aclose()

            asyncio.run(run())
            session = bot.session("s").data
        client.close()
    assert session is not None and PHONE in session.secrets     # the rules took it as the slot's value
    assert len(asked) == 4 and any(MASK in request for request in asked)
    assert not any(PHONE in request for request in asked)
    assert session.summary.block_summaries and PHONE not in json.dumps(folded(session.summary), ensure_ascii=False)
    assert client.sync_calls == 0
