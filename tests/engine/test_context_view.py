"""The context window of a session: parts, redaction, folding, accounting (SPEC §6, §7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.context.parts import CURRENT, ENTITY_MEMORY, FLOW, SUMMARY, SYSTEM
from dialogkit.context.window import build_context
from dialogkit.engine import context_view
from dialogkit.model.session import Session, Task
from dialogkit.strings.redaction import MASK

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
REPORT = {"zh": ["我上周买的手机屏幕碎了", "123456"], "en": ["my phone arrived broken", "123456"]}
CHAT = {"zh": "谢谢你们，我周末再来看看。", "en": "thanks a lot, I will come back to this later on."}
STATUS = {"zh": "查看订单 654321 的状态，我明天再来", "en": "where is my order 654321, I will be back tomorrow"}

SECRET_BOT = (Path(__file__).parent / "bots" / "account.yaml").read_text(encoding="utf-8")
PHONE = "13812345678"
CHANGE = {"zh": ["修改手机号", PHONE], "en": ["change my phone number", PHONE]}


def support_bot() -> Bot:
    return Bot.from_file(SUPPORT, store="memory://", actions=STUBS)


def secret_bot(tmp_path: Path, keep: int = 10) -> Bot:
    path = tmp_path / "account.yaml"
    path.write_text(SECRET_BOT + f"context: {{keep_recent_rounds: {keep}}}\n", encoding="utf-8")
    return Bot.from_file(path, store="memory://")


class TestParts:
    @LANGS
    def test_a_running_task_shows_every_part_in_order(self, lang: str) -> None:
        """System prompt, flow state, summary, entity memory, the earlier rounds, the current message."""
        bot = support_bot()
        for text in [STATUS[lang], *REPORT[lang]]:
            bot.handle("s", text)
        messages = bot.context("s")
        parts = [m.part for m in messages]
        assert parts[:4] == [SYSTEM, FLOW, SUMMARY, ENTITY_MEMORY]
        assert parts[-1] == CURRENT and messages[-1].content == REPORT[lang][1]
        assert [m.content for m in messages if m.part == "recent" and m.role == "user"] == [STATUS[lang], REPORT[lang][0]]
        assert "report_issue" in messages[1].content and "CONFIRMATION" in messages[1].content
        assert "support" in messages[0].content

    @LANGS
    def test_the_reply_to_the_current_message_is_not_sent(self, lang: str) -> None:
        """The LLM writes that reply: the context ends with the user's message."""
        bot = support_bot()
        reply = bot.handle("s", REPORT[lang][0])
        assert all(m.content != reply.text for m in bot.context("s"))

    @LANGS
    def test_system_prompt_is_in_the_session_language(self, lang: str) -> None:
        bot = support_bot()
        bot.handle("s", REPORT[lang][0])
        system = bot.context("s")[0].content
        assert ("任务型助手" in system) == (lang == "zh")
        assert ("task-oriented assistant" in system) == (lang == "en")


class TestSensitive:
    @LANGS
    def test_a_sensitive_slot_value_is_in_no_part(self, lang: str, tmp_path: Path) -> None:
        bot = secret_bot(tmp_path)
        for text in CHANGE[lang]:
            reply = bot.handle("s", text)
        assert reply.state == "CONFIRMATION"
        bot.handle("s", CHAT[lang])
        contents = [m.content for m in bot.context("s")]
        assert not any(PHONE in c for c in contents)
        assert any(MASK in c for c in contents)
        assert PHONE not in bot.export_context("s")
        assert bot.stats("s")["slots"]["new_phone"] == MASK


class TestFolding:
    @LANGS
    def test_rounds_older_than_the_window_fold_into_summaries(self, lang: str, tmp_path: Path) -> None:
        """keep_recent_rounds 3: after 14 rounds, rounds 1-10 are summarised, only 11-14 are raw."""
        bot = secret_bot(tmp_path, keep=3)
        for i in range(14):
            bot.handle("s", f"{CHAT[lang]} {i}")
        state = bot.session("s").data.summary
        assert [(s["start_round"], s["end_round"]) for s in state.round_summaries] == [(1, 5), (6, 10)]
        inputs, _ = bot.view.inputs(bot._load("s"))
        assert [r.index for r in inputs.rounds] == [11, 12, 13]
        assert [(s.start_round, s.level) for s in inputs.round_summaries] == [(1, 1), (6, 1)]

    @LANGS
    def test_rule_summaries_keep_every_order_number(self, lang: str) -> None:
        """A value after the first clause survives the extractive summary."""
        bot = support_bot()
        texts = {"zh": ["你好，顺便说一下订单 24680 和 13579 都到了"], "en": ["hello there. By the way orders 24680 and 13579 arrived"]}
        summary = bot.view.rule_summary(texts[lang], lang)
        assert "24680" in summary and "13579" in summary

    def test_folding_is_incremental(self, tmp_path: Path) -> None:
        """Each block is summarised once, however many turns run after it."""
        bot = secret_bot(tmp_path, keep=3)
        for i in range(9):
            bot.handle("s", f"{CHAT['en']} {i}")
        first = bot.session("s").data.summary.round_summaries[0]
        for i in range(5):
            bot.handle("s", f"{CHAT['en']} again {i}")
        assert bot.session("s").data.summary.round_summaries[0] == first


class TestAccounting:
    @LANGS
    def test_full_tokens_match_the_windows_own_baseline(self, lang: str) -> None:
        """Before any folding, the running total equals what build_context counts itself."""
        bot = support_bot()
        for text in REPORT[lang]:
            bot.handle("s", text)
        session = bot._load("s")
        inputs, full = bot.view.inputs(session)
        own = build_context(inputs, budget=bot.spec.context.budget, keep_recent_rounds=10, counter=bot.view.counter)
        assert full == own.full_tokens

    @LANGS
    def test_stats_report_both_tracks_and_state(self, lang: str) -> None:
        bot = support_bot()
        for text in REPORT[lang]:
            bot.handle("s", text)
        stats = bot.stats("s")
        assert stats["messages"] == 4
        assert stats["state"] == "CONFIRMATION" and stats["flow"] == "report_issue"
        assert stats["saved_tokens"] == max(stats["full_tokens"] - stats["sent_tokens"], 0)
        assert stats["sent_tokens"] == sum(stats["breakdown"].values()) + 3
        assert stats["summary_chars"] > 0
        assert stats["llm"] == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "failures": 0, "mode": None}
        assert stats["slots"]["order_id"] == "123456"

    @LANGS
    def test_a_long_conversation_saves_tokens(self, lang: str) -> None:
        """40 rounds: the window sends a fraction of the full history."""
        bot = support_bot()
        for i in range(40):
            bot.handle("s", f"{CHAT[lang]} {i} " + CHAT[lang] * 4)
        stats = bot.stats("s")
        assert stats["messages"] == 80
        assert stats["saved_pct"] > 50
        assert stats["summary"]["round_summaries"] >= 1

    @LANGS
    def test_export_lists_messages_then_savings(self, lang: str) -> None:
        bot = support_bot()
        for text in REPORT[lang]:
            bot.handle("s", text)
        lines = bot.export_context("s").splitlines()
        assert lines[0].startswith("1, system, 100, ")
        assert lines[-1].startswith("Token saved: ") and lines[-1].endswith("%)")


class TestSecretsOfFinishedTasks:
    @LANGS
    def test_a_finished_tasks_sensitive_value_stays_redacted(self, lang: str, tmp_path: Path) -> None:
        """The task is gone from the stack, its rounds are still in the window: still redacted."""
        bot = secret_bot(tmp_path)
        for text in [*CHANGE[lang], "确认" if lang == "zh" else "yes"]:
            bot.handle("s", text)
        bot.handle("s", CHAT[lang])
        session = bot._load("s")
        assert session.task is None and session.secrets == [PHONE]
        contents = [m.content for m in bot.context("s")]
        assert not any(PHONE in c for c in contents) and any(MASK in c for c in contents)

    def test_the_remembered_secrets_are_capped(self, tmp_path: Path) -> None:
        """The newest MAX_SECRETS values are kept: a new one pushes the oldest out."""
        bot = secret_bot(tmp_path)
        session = Session(id="s", user_id="u", secrets=[str(13800000000 + i) for i in range(context_view.MAX_SECRETS)])
        session.stack.append(Task(flow="change_phone", state="CONFIRMATION", slots={"new_phone": PHONE}))
        bot.view.remember_secrets(session)
        assert len(session.secrets) == context_view.MAX_SECRETS and session.secrets[-1] == PHONE
        assert "13800000000" not in session.secrets


class TestProvisionalSummaries:
    @LANGS
    def test_rounds_out_of_the_window_are_summarised_before_their_block_completes(self, lang: str, tmp_path: Path) -> None:
        """keep_recent_rounds 3, 8 rounds: no block is complete, rounds 1-4 still leave the raw window."""
        bot = secret_bot(tmp_path, keep=3)
        for i in range(8):
            bot.handle("s", f"{CHAT[lang]} 订单 {24680 + i}" if lang == "zh" else f"{CHAT[lang]} order {24680 + i}")
        assert bot.session("s").data.summary.round_summaries == []
        inputs, _ = bot.view.inputs(bot._load("s"))
        assert [r.index for r in inputs.rounds] == [5, 6, 7]
        [provisional] = inputs.round_summaries
        assert (provisional.start_round, provisional.end_round) == (1, 4)
        assert all(str(24680 + i) in provisional.text for i in range(4))

    @LANGS
    def test_the_view_after_a_turn_keeps_the_same_raw_rounds(self, lang: str, tmp_path: Path) -> None:
        """Blocks fold one round behind the window: 11 rounds, keep 3 -> block 1-5 stored, 6-7 provisional."""
        bot = secret_bot(tmp_path, keep=3)
        for i in range(11):
            bot.handle("s", f"{CHAT[lang]} {i}")
        assert [(s["start_round"], s["end_round"]) for s in bot.session("s").data.summary.round_summaries] == [(1, 5)]
        inputs, _ = bot.view.inputs(bot._load("s"))
        assert [r.index for r in inputs.rounds] == [8, 9, 10]
        assert [(s.start_round, s.end_round) for s in inputs.round_summaries] == [(1, 5), (6, 7)]


class TestCompactParts:
    @LANGS
    def test_rule_summaries_drop_small_talk_and_keep_values(self, lang: str) -> None:
        bot = support_bot()
        texts = {"zh": ["用户：谢谢你们，我周末再来看看，助手：好的", "用户：订单号是24680，包装我都留着，助手：将为订单 24680 创建工单"],
                 "en": ["User: thanks a lot, see you later, Bot: sure", "User: the order number is 24680, I kept the box, Bot: I'll open a ticket for order 24680"]}
        summary = bot.view.rule_summary(texts[lang], lang)
        assert "24680" in summary
        assert ("周末" not in summary and "包装" not in summary) if lang == "zh" else ("thanks" not in summary and "box" not in summary)
        assert summary.count("24680") == 1, "the bot's echo of a value already kept is dropped"
        assert bot.view.rule_summary(texts[lang][:1], lang) == ("闲聊" if lang == "zh" else "small talk")

    @LANGS
    def test_entity_memory_lists_canonical_values_by_type(self, lang: str) -> None:
        bot = support_bot()
        for text in REPORT[lang]:
            bot.handle("s", text)
        memory = context_view.entity_memory(bot._load("s").entities, lang, bot.texts)
        head = "实体：" if lang == "zh" else "Entities: "
        assert memory.startswith(head) and "order_id" in memory and "123456" in memory and "phone" in memory
        assert "\n" not in memory

    @LANGS
    def test_entity_memory_leaves_out_what_the_state_and_summary_name(self, lang: str) -> None:
        """The running task's values are in the flow state: entity memory does not repeat them."""
        bot = support_bot()
        for text in [STATUS[lang], *REPORT[lang]]:
            bot.handle("s", text)
        entities = bot._load("s").entities
        named = "order_id=123456, product=手机 (phone) 654321"
        memory = context_view.entity_memory(entities, lang, bot.texts, named=named)
        assert "date" in memory and not any(v in memory for v in ("123456", "654321", "phone"))
        assert context_view.entity_memory(entities, lang, bot.texts, named=named.replace("654321", "1654321")).count(
            "654321") == 1, "a value inside a longer number is not named"
        [shown] = [m.content for m in bot.context("s") if m.part == ENTITY_MEMORY]
        assert "123456" not in shown and "654321" not in shown

    @LANGS
    def test_the_window_summary_lists_older_tasks_by_their_values(self, lang: str) -> None:
        """Past WINDOW_TASKS tasks, the window's summary names older ones by bare values."""
        bot = support_bot()
        status = {"zh": "查看订单 {} 的状态", "en": "where is my order {}"}
        orders = [str(50000 + i) for i in range(context_view.WINDOW_TASKS + 3)]
        for order in orders:
            bot.handle("s", status[lang].format(order))
        [summary] = [m.content for m in bot.context("s") if m.part == SUMMARY]
        assert all(order in summary for order in orders)
        label = "订单号 " if lang == "zh" else "order number "
        assert f"{label}{orders[0]}" not in summary
        assert summary.count(orders[-1]) == 1, "the last status is said once, by its conclusion"

    @LANGS
    def test_the_window_summary_follows_every_change_of_the_session_summary(self, lang: str) -> None:
        """Kept per summary content: a transition shows at once, in the turn's language."""
        bot = support_bot()
        bot.handle("s", STATUS[lang])
        first = [m.content for m in bot.context("s") if m.part == SUMMARY]
        assert first == [m.content for m in bot.context("s") if m.part == SUMMARY] and "654321" in first[0]
        bot.handle("s", STATUS[lang].replace("654321", "765432"))
        [second] = [m.content for m in bot.context("s") if m.part == SUMMARY]
        assert "765432" in second and "654321" in second

    def test_entities_beyond_the_cap_lose_the_least_salient(self) -> None:
        bot = support_bot()
        bot.handle("s", REPORT["en"][0])
        session = bot._load("s")
        template = session.entities[0]
        session.entities = [template.model_copy(update={"id": f"e{i}", "value": str(10000 + i), "last_turn": i,
                                                          "mentions": 1, "last_position": i})
                            for i in range(context_view.MAX_ENTITIES + 1)]
        context_view._decay_entities(session)
        assert len(session.entities) == context_view.ENTITIES_AFTER_DECAY
        assert session.entities[-1].value == str(10000 + context_view.MAX_ENTITIES)
