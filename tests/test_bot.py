"""``Bot``, the facade: how it wires its parts, what ``from_file`` accepts, closing, and the
inspection API (``session``, ``context``, ``build_context``, ``stats``, ``export_context``)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.errors import DialogkitError, FlowError, StoreError
from dialogkit.llm.client import LLMClient
from dialogkit.model.session import (
    Candidate,
    Message,
    PendingClarification,
    PersistedValue,
    Session,
    SummaryItem,
    SummaryState,
    Task,
)
from dialogkit.spec.schema import LLMSpec
from dialogkit.store import DEFAULT_STORE_URL, MemoryStore, SqliteStore
from tests.engine._parts import STUBS, SUPPORT, Recorder

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"zh": "我的手机碎了，订单号 12345", "en": "my phone arrived broken, order 12345"}
YES = {"zh": "确认", "en": "yes"}
INSPECTIONS = ["session", "context", "build_context", "stats", "export_context"]


class ClosingStore(MemoryStore):
    """A memory store that counts its closes, and can fail to close."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__()
        self.closed = 0
        self.error = error

    def close(self) -> None:
        self.closed += 1
        if self.error is not None:
            raise self.error


def support(store: Any = "memory://", **options: Any) -> Bot:
    return Bot.from_file(SUPPORT, store=store, actions=options.pop("actions", STUBS), **options)


def offline_client() -> LLMClient:
    """A client that is never called: these tests only wire and close it."""
    return LLMClient(LLMSpec(model="scripted-model"), api_key="sk-test", base_url="http://127.0.0.1:9/v1")


def save(store: MemoryStore, session: Session, **user_slots: Any) -> None:
    """Put a session (and its user's persisted values) in the store, as earlier turns would have."""
    with store.transaction(session.id) as txn:
        for name, value in user_slots.items():
            txn.set_user_slot(session.user_id, name, PersistedValue(value=value))
        txn.save(session)


class TestWiring:
    def test_the_parts_share_one_of_each(self) -> None:
        """One set of flows, texts, understanding, actions, memory actions and look-ahead serves every part."""
        bot = support()
        policy, turns = bot.policy, bot.turns
        assert policy.flows is bot.flows and turns.flows is bot.flows
        assert policy.texts is bot.texts and bot.view.texts is bot.texts
        assert policy.understanding is bot.understanding is turns.understanding is bot.view.understanding
        assert policy.actions is bot.actions is bot.loaded.actions
        assert policy.lookahead is turns.lookahead and policy.lookahead.flows is bot.flows
        assert turns.policy is policy and turns.memory is bot.memory and turns.view is bot.view
        assert turns.store is bot.store and turns.spec is bot.spec

    def test_a_rule_based_bot_has_no_llm(self) -> None:
        """Without llm= and without an llm: section, nothing of the LLM stack is built."""
        bot = support()
        assert bot.llm is None and bot.llm_layer is None and bot.turns.llm is None

    def test_a_given_llm_client_is_the_bots(self) -> None:
        """llm=LLMClient(...) is used as given, by the turn as well."""
        client = offline_client()
        with support(llm=client) as bot:
            assert bot.llm is client
            assert bot.llm_layer is not None and bot.turns.llm is bot.llm_layer

    def test_an_llm_of_the_wrong_type_is_refused(self) -> None:
        """llm= takes a client, a spec or its dict; anything else is a DialogkitError."""
        with pytest.raises(DialogkitError, match="llm="):
            support(llm=42)

    def test_an_llm_spec_without_a_key_leaves_the_bot_rule_based(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """No API key anywhere: the bot runs on its rules instead of failing."""
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        assert support(llm={"model": "gpt-4o-mini"}).llm is None


class TestFromFile:
    def test_a_store_url_opens_that_store(self, tmp_path: Path) -> None:
        """store= as a URL: memory:// or a SQLite file."""
        assert isinstance(support("memory://").store, MemoryStore)
        url = f"sqlite:///{tmp_path / 'sessions.db'}"
        with support(url) as bot:
            assert isinstance(bot.store, SqliteStore)
            bot.handle("s", "hello")
        assert (tmp_path / "sessions.db").exists()

    def test_a_store_object_is_used_as_given(self) -> None:
        """store= as a store: the bot keeps that very object."""
        store = MemoryStore()
        bot = support(store)
        bot.handle("s", "hello")
        assert bot.store is store and store.load("s") is not None

    def test_no_store_opens_the_default_sqlite_file_in_the_working_directory(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """store=None: sessions go to ./.dialogkit/sessions.db."""
        monkeypatch.chdir(tmp_path)
        with support(None) as bot:
            assert bot.store.url == DEFAULT_STORE_URL
            bot.handle("s", "hello")
        assert (tmp_path / ".dialogkit" / "sessions.db").exists()

    @LANGS
    def test_actions_replace_the_bot_files_own(self, lang: str) -> None:
        """actions= overrides an action of the file's module: the override runs, once."""
        ticket = Recorder({"ticket_id": "T-42"})
        bot = support(actions={**STUBS, "create_ticket": ticket})
        bot.handle("s", REPORT[lang])
        reply = bot.handle("s", YES[lang])
        assert len(ticket.calls) == 1 and "T-42" in reply.text

    def test_without_actions_the_bot_files_module_is_used(self) -> None:
        """The file's bot.actions module supplies create_ticket and order_status."""
        bot = Bot.from_file(SUPPORT, store="memory://")
        bot.handle("s", REPORT["en"])
        [run] = bot.handle("s", "yes").actions
        assert run.error is None and re.fullmatch(r"T-\d{6}", str((run.result or {})["ticket_id"]))

    def test_the_clock_is_the_bots(self) -> None:
        """clock= is the time sessions are stamped with."""
        bot = support(clock=lambda: 1234.5)
        bot.handle("s", "hello")
        data = bot.session("s").data
        assert data is not None and data.updated_at == 1234.5

    def test_the_path_is_kept(self) -> None:
        """bot.path names the file the bot came from."""
        assert support().path == SUPPORT

    def test_a_broken_bot_file_is_a_flow_error(self, tmp_path: Path) -> None:
        """Loading checks the file; a mistake is a FlowError, not a half-built bot."""
        path = tmp_path / "broken.yaml"
        path.write_text("bot: {name: broken}\nflows:\n  f:\n    slots: [{name: x, entity: nowhere}]\n", encoding="utf-8")
        with pytest.raises(FlowError, match="nowhere"):
            Bot.from_file(path, store="memory://")


class TestMemoryActionsOfTheFile:
    """A bot file's memory actions are built-ins or functions registered with @memory_action: a
    bad one stops the load with its position, never the first turn (nor the process)."""

    @pytest.mark.parametrize("name", ["sys:exit", "os:system", "builtins:print"])
    def test_an_unregistered_function_is_a_flow_error_at_load(self, tmp_path: Path, name: str) -> None:
        path = tmp_path / "bot.yaml"
        path.write_text(f"bot:\n  memory: {{every_turn: [track_entities, '{name}']}}\n"
                        "flows:\n  f:\n    trigger: {keywords: [go]}\n", encoding="utf-8")
        with pytest.raises(FlowError) as caught:
            Bot.from_file(path, store="memory://")
        (problem,) = caught.value.problems
        assert (problem.line, problem.message) == (
            2, f"cannot use memory action '{name}': it is not registered with @memory_action")

    def test_an_actions_module_that_exits_while_imported_is_a_flow_error(self, tmp_path: Path) -> None:
        (tmp_path / "exiting_actions_probe.py").write_text("import sys\nsys.exit(2)\n", encoding="utf-8")
        path = tmp_path / "bot.yaml"
        path.write_text("bot: {actions: exiting_actions_probe}\n"
                        "flows:\n  f:\n    trigger: {keywords: [go]}\n    execute: {action: go}\n", encoding="utf-8")
        with pytest.raises(FlowError, match=r"cannot import the actions module 'exiting_actions_probe'.*SystemExit"):
            Bot.from_file(path, store="memory://")

    @LANGS
    def test_a_registered_one_runs_on_every_turn(self, tmp_path: Path, lang: str) -> None:
        module = f"noting_memory_probe_{lang}"
        (tmp_path / f"{module}.py").write_text(
            "from dialogkit import memory_action\n\nSEEN = []\n\n"
            "@memory_action\ndef note(ctx):\n    SEEN.append((ctx.language, ctx.interp.text))\n", encoding="utf-8")
        path = tmp_path / "bot.yaml"
        path.write_text(SUPPORT.read_text(encoding="utf-8").replace(
            "every_turn: [track_entities]", f"every_turn: [track_entities, '{module}:note']"), encoding="utf-8")
        bot = Bot.from_file(path, store="memory://", actions=STUBS)
        reply = bot.handle("s", REPORT[lang])
        seen = importlib.import_module(module).SEEN
        assert seen == [(lang, REPORT[lang])]
        assert f"{module}:note" in reply.memory_actions

class TestClose:
    def test_close_closes_the_store(self) -> None:
        """The store's connections are released with the bot."""
        store = ClosingStore()
        support(store).close()
        assert store.closed == 1

    def test_a_with_block_gives_the_bot_and_closes_it(self) -> None:
        """``with Bot.from_file(...) as bot`` closes the bot when the block ends."""
        store = ClosingStore()
        with support(store) as bot:
            assert isinstance(bot, Bot)
            assert store.closed == 0
        assert store.closed == 1

    def test_a_with_block_closes_the_bot_when_it_raises(self) -> None:
        """An exception inside the block still closes the bot, and is not swallowed."""
        store = ClosingStore()
        with pytest.raises(RuntimeError), support(store):
            raise RuntimeError("inside")
        assert store.closed == 1

    def test_the_llm_client_is_closed_even_when_the_store_fails_to_close(self,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """Both are released: a store that fails to close does not leave the HTTP pool open."""
        client = offline_client()
        closed: list[bool] = []
        monkeypatch.setattr(client, "close", lambda: closed.append(True))
        bot = support(ClosingStore(StoreError("disk gone")), llm=client)
        with pytest.raises(StoreError):
            bot.close()
        assert closed == [True]


class TestInspection:
    def test_session_slots_merge_user_session_and_task_values(self) -> None:
        """bot.session(id).slots: user-scoped values, then session-scoped, then the active task's."""
        store = MemoryStore()
        session = Session(id="s", user_id="u", session_slots={"order_id": PersistedValue(value="22222")},
                          stack=[Task(flow="report_issue", state="PARAM_COLLECT", slots={"issue_type": "damaged"})])
        save(store, session, order_id="11111", product="phone")
        view = support(store).session("s")
        assert view.slots == {"order_id": "22222", "product": "phone", "issue_type": "damaged"}
        assert (view.state, view.flow, view.stack) == ("PARAM_COLLECT", "report_issue", ["report_issue"])

    def test_the_active_tasks_value_wins(self) -> None:
        """A value the current task holds is what the session shows, whatever was persisted."""
        store = MemoryStore()
        session = Session(id="s", user_id="u", session_slots={"order_id": PersistedValue(value="22222")},
                          stack=[Task(flow="report_issue", state="PARAM_COLLECT", slots={"order_id": "33333"})])
        save(store, session, order_id="11111")
        assert support(store).session("s").slots == {"order_id": "33333"}

    @LANGS
    def test_session_shows_the_pending_question_and_the_summary_in_the_sessions_language(self, lang: str) -> None:
        """The clarification's candidate values, and the summary rendered in the session's language."""
        store = MemoryStore()
        pending = PendingClarification(kind="reference", original_text="它还没到", candidates=[
            Candidate(value="12345", type="order_id", label="12345"),
            Candidate(value="67890", type="order_id", label="67890")])
        summary = SummaryState(pending=[SummaryItem(key="t:follow_up", zh="等待工单处理",
                                                    en="waiting for the ticket to be handled", turn=1)])
        save(store, Session(id="s", user_id="u", language=lang, pending=pending, summary=summary))
        view = support(store).session("s")
        assert view.pending == ["12345", "67890"] and view.language == lang
        assert {"zh": "待办：等待工单处理", "en": "Pending: waiting for the ticket to be handled."}[lang] == view.summary

    def test_session_shows_the_whole_history(self) -> None:
        """Not only the tail a turn loads: every message of the session."""
        store = MemoryStore()
        bot = support(store)
        history = [Message(role="user" if i % 2 == 0 else "assistant", content=f"m{i}", turn=i // 2 + 1)
                   for i in range(bot.view.history_tail + 10)]
        save(store, Session(id="s", user_id="u", history=history))
        assert [m.content for m in bot.session("s").history] == [m.content for m in history]

    @LANGS
    def test_context_is_what_an_llm_would_receive_now(self, lang: str) -> None:
        """context() lists the built context's messages, ending with the user's last message."""
        bot = support()
        bot.handle("s", REPORT[lang])
        messages = bot.context("s")
        assert messages == list(bot.build_context("s").messages)
        assert messages[-1].role == "user" and messages[-1].content == REPORT[lang]

    @LANGS
    def test_stats_count_the_session(self, lang: str) -> None:
        """stats(): messages on both tracks, the state, and the savings of the window."""
        bot = support()
        bot.handle("s", REPORT[lang])
        bot.handle("s", YES[lang])
        stats = bot.stats("s")
        assert stats["messages"] == 4 and (stats["state"], stats["flow"], stats["stack"]) == ("IDLE", None, [])
        assert stats["full_tokens"] > 0 and stats["sent_tokens"] > 0
        assert stats["saved_tokens"] == max(stats["full_tokens"] - stats["sent_tokens"], 0)
        assert stats["llm"]["calls"] == 0
        assert stats["llm"]["mode"] is None          # a rule-based bot negotiates nothing

    @LANGS
    def test_export_ends_with_the_tokens_saved(self, lang: str) -> None:
        """export_context() is what /export writes: the messages, then ``Token saved: N (P%)``."""
        bot = support()
        bot.handle("s", REPORT[lang])
        stats, text = bot.stats("s"), bot.export_context("s")
        saved = stats["full_tokens"] - stats["sent_tokens"]       # signed, as the percentage is
        assert text.splitlines()[-1] == f"Token saved: {saved} ({stats['saved_pct']:.1f}%)"
        assert REPORT[lang] in text

    @pytest.mark.parametrize("method", INSPECTIONS)
    def test_an_unknown_session_is_an_error_naming_it(self, method: str) -> None:
        """Inspecting a session that never spoke raises, naming the id and the store."""
        bot = support()
        with pytest.raises(DialogkitError, match=r"no session 'never-seen' in memory://"):
            getattr(bot, method)("never-seen")

    def test_session_ids_are_strings(self) -> None:
        """An int id is the same session as its string form."""
        bot = support()
        assert bot.handle(42, "hello").session_id == "42"             # type: ignore[arg-type]
        assert bot.session(42).id == bot.session("42").id == "42"   # type: ignore[arg-type]
