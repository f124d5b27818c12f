"""The context window: budget, priorities, summaries before dropping, truncation, redaction."""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.context.parts import (
    CURRENT,
    ENTITY_MEMORY,
    FLOW,
    OLDER,
    PINNED,
    RECENT,
    ROUND_SUMMARY,
    SUMMARY,
    SYSTEM,
    BuiltContext,
    ContextInputs,
    Round,
    RoundSummary,
)
from dialogkit.context.tokens import TokenCounter
from dialogkit.context.window import build_context, export_text
from dialogkit.spec.schema import ContextSpec
from dialogkit.strings.redaction import MASK

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])

TEXT = {
    "zh": {
        "system": "你是订单售后客服。",
        "flow": "当前流程：report_issue；已填：product=phone；待填：order_id",
        "summary": "事实：手机屏幕碎了。",
        "memory": "实体：手机（product）",
        "user": "我的订单{i}还没到，单号是10000{i}，请帮我查一下。",
        "bot": "订单10000{i}已查询，预计明天送达。",
        "current": "那它现在到哪了？",
        "summary_l1": "用户询问了订单{s}到{e}的物流。",
        "summary_l2": "用户询问了订单{s}到{e}，都已延迟。",
        "secret": "13812345678",
        "with_secret": "我的手机号是13812345678，请回电。",
        "pinned": "请始终用中文回答。",
    },
    "en": {
        "system": "You are an order support assistant.",
        "flow": "Active flow: report_issue; filled: product=phone; pending: order_id",
        "summary": "Facts: the phone screen is cracked.",
        "memory": "Entities: phone (product)",
        "user": "My order {i} has not arrived, number 10000{i}, please check it.",
        "bot": "Order 10000{i} checked, it should arrive tomorrow.",
        "current": "So where is it now?",
        "summary_l1": "The user asked about the delivery of orders {s} to {e}.",
        "summary_l2": "The user asked about orders {s} to {e}, all delayed.",
        "secret": "4111111111111111",
        "with_secret": "My card is 4111111111111111, charge it.",
        "pinned": "Always answer in English.",
    },
}


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter("gpt-4o-mini")


def rounds(lang: str, count: int, first: int = 1) -> list[Round]:
    t = TEXT[lang]
    return [
        Round(i, [("user", t["user"].format(i=i)), ("assistant", t["bot"].format(i=i))])
        for i in range(first, first + count)
    ]


def summaries(lang: str, upto: int) -> list[RoundSummary]:
    t = TEXT[lang]
    level1 = [RoundSummary(s, s + 4, t["summary_l1"].format(s=s, e=s + 4), 1) for s in range(1, upto, 5)]
    level2 = [RoundSummary(s, s + 14, t["summary_l2"].format(s=s, e=s + 14), 2) for s in range(1, upto - 14, 15)]
    return level1 + level2


def inputs(lang: str, count: int = 20, **overrides: Any) -> ContextInputs:
    t = TEXT[lang]
    values: dict[str, Any] = {
        "system_prompt": t["system"],
        "flow_instructions": t["flow"],
        "summary": t["summary"],
        "pinned": [("user", t["pinned"])],
        "entity_memory": t["memory"],
        "rounds": rounds(lang, count),
        "round_summaries": summaries(lang, count),
        "current_user_message": t["current"],
    }
    values.update(overrides)
    return ContextInputs(**values)


def parts(built: BuiltContext) -> list[str]:
    return [m.part for m in built.messages]


class TestWithinBudget:
    @LANGS
    def test_everything_fits_in_chronological_order(self, lang: str, counter: TokenCounter) -> None:
        """With room to spare nothing is dropped and the parts come in their fixed order."""
        built = build_context(inputs(lang, 4, round_summaries=[]), budget=4000, keep_recent_rounds=2, counter=counter)
        assert parts(built) == [SYSTEM, FLOW, SUMMARY, ENTITY_MEMORY, PINNED] + [OLDER] * 4 + [RECENT] * 4 + [CURRENT]
        assert built.dropped == [] and built.summarized == [] and built.truncated == []
        assert built.messages[0].role == "system" and built.messages[-1].content == TEXT[lang]["current"]
        assert built.used == counter.count_messages((m.role, m.content) for m in built.messages)

    @LANGS
    def test_rounds_keep_their_order(self, lang: str, counter: TokenCounter) -> None:
        """Rounds passed out of order are sent in round order, each user message before its reply."""
        shuffled = list(reversed(rounds(lang, 3)))
        built = build_context(inputs(lang, rounds=shuffled, round_summaries=[]), budget=4000, keep_recent_rounds=3, counter=counter)
        history = [m.content for m in built.messages if m.part in (OLDER, RECENT)]
        expected = [c for r in rounds(lang, 3) for _, c in r.messages]
        assert history == expected


class TestOverBudget:
    @LANGS
    @pytest.mark.parametrize("budget", [900, 500, 300, 200, 120])
    def test_budget_is_respected(self, lang: str, budget: int, counter: TokenCounter) -> None:
        """Whatever the budget, the built context never exceeds it."""
        built = build_context(inputs(lang, 30), budget=budget, keep_recent_rounds=3, counter=counter)
        assert built.used <= budget
        assert built.sent_tokens == built.used

    @LANGS
    def test_summaries_replace_older_rounds_before_anything_is_dropped(self, lang: str, counter: TokenCounter) -> None:
        """Older rounds give way to their level-1 summaries; recent rounds stay raw; nothing dropped."""
        full = build_context(inputs(lang, 20), budget=100_000, keep_recent_rounds=3, counter=counter)
        built = build_context(inputs(lang, 20), budget=full.used - 50, keep_recent_rounds=3, counter=counter)
        assert built.dropped == []
        assert "round:1" in built.summarized
        assert any(m.part == ROUND_SUMMARY and "[rounds 1-5]" in m.content for m in built.messages)
        assert [m.part for m in built.messages].count(RECENT) == 6

    @LANGS
    def test_a_summary_of_one_round_is_headed_by_that_round(self, lang: str, counter: TokenCounter) -> None:
        """"[round 6]", not "[rounds 6-6]": the header is paid on every request."""
        one = RoundSummary(6, 6, TEXT[lang]["summary_l1"].format(s=6, e=6), 1)
        built = build_context(inputs(lang, 9, rounds=rounds(lang, 3, first=7), round_summaries=[one]),
                              budget=100_000, keep_recent_rounds=3, counter=counter)
        [content] = [m.content for m in built.messages if m.part == ROUND_SUMMARY]
        assert content.startswith("[round 6] ")

    @LANGS
    def test_level_two_summary_replaces_level_one(self, lang: str, counter: TokenCounter) -> None:
        """Tighter still, one level-2 summary stands in for the level-1 summaries it covers."""
        level2 = [s for s in summaries(lang, 20) if s.level == 2]
        floor = build_context(inputs(lang, 20, rounds=rounds(lang, 5, first=16), round_summaries=level2), budget=100_000, keep_recent_rounds=3, counter=counter)
        built = build_context(inputs(lang, 20), budget=floor.used + 5, keep_recent_rounds=3, counter=counter)
        contents = [m.content for m in built.messages if m.part == ROUND_SUMMARY]
        assert built.dropped == []
        assert "summary:L1:1-5" in built.summarized
        assert any(c.startswith("[rounds 1-15]") for c in contents)
        assert not any(c.startswith("[rounds 1-5]") for c in contents)

    @LANGS
    def test_lowest_priority_oldest_parts_are_dropped_first(self, lang: str, counter: TokenCounter) -> None:
        """When summaries are not enough, older rounds go first, then summaries, then recent rounds."""
        built = build_context(inputs(lang, 20), budget=150, keep_recent_rounds=3, counter=counter)
        assert built.dropped[:2] == ["round:16", "round:17"]
        kinds = [label.split(":")[0] for label in built.dropped]
        assert kinds.index("summary") < kinds.index("round", 2)
        assert SUMMARY in parts(built) and FLOW in parts(built)

    @LANGS
    def test_pinned_parts_are_never_dropped(self, lang: str, counter: TokenCounter) -> None:
        """At a tiny budget the system prompt, pinned messages and current message remain."""
        only_pinned = inputs(lang, 0, flow_instructions="", summary="", entity_memory="", round_summaries=[])
        floor = build_context(only_pinned, budget=100_000, keep_recent_rounds=3, counter=counter).used
        built = build_context(inputs(lang, 20), budget=floor, keep_recent_rounds=3, counter=counter)
        assert parts(built) == [SYSTEM, PINNED, CURRENT]
        assert {FLOW, SUMMARY, ENTITY_MEMORY} <= set(built.dropped)
        assert built.used == floor


class TestTruncation:
    @LANGS
    def test_oversize_current_message_is_truncated_with_a_marker(self, lang: str, counter: TokenCounter) -> None:
        """A pinned part larger than the budget is cut, marked, and never raises."""
        huge = TEXT[lang]["with_secret"] * 200
        built = build_context(inputs(lang, 2, current_user_message=huge), budget=200, keep_recent_rounds=2, counter=counter)
        current = built.messages[-1]
        assert current.part == CURRENT and "…[truncated " in current.content
        assert CURRENT in built.truncated
        assert built.used <= 200

    @LANGS
    def test_oversize_flow_instructions_are_truncated_not_dropped(self, lang: str, counter: TokenCounter) -> None:
        """A non-pinned part bigger than the room left is cut to fit instead of vanishing."""
        built = build_context(inputs(lang, 0, flow_instructions=TEXT[lang]["flow"] * 300), budget=300, keep_recent_rounds=2, counter=counter)
        flow = next(m for m in built.messages if m.part == FLOW)
        assert flow.content.endswith(" tokens]") and "…[truncated" in flow.content
        assert built.used <= 300

    @LANGS
    def test_impossible_budget_does_not_raise(self, lang: str, counter: TokenCounter) -> None:
        """A budget below the pinned minimum still returns a context, flagged over budget."""
        built = build_context(inputs(lang, 5), budget=1, keep_recent_rounds=2, counter=counter)
        assert parts(built)[0] == SYSTEM and built.over_budget


class TestRedaction:
    @LANGS
    def test_sensitive_values_never_reach_any_part(self, lang: str, counter: TokenCounter) -> None:
        """A sensitive value is replaced by the placeholder in every part built."""
        t = TEXT[lang]
        secret_rounds = [Round(1, [("user", t["with_secret"]), ("assistant", t["secret"])])]
        built = build_context(
            inputs(
                lang, 0,
                flow_instructions=f"{t['flow']} phone={t['secret']}",
                summary=f"{t['summary']} {t['secret']}",
                entity_memory=t["secret"],
                pinned=[("user", t["with_secret"])],
                rounds=secret_rounds,
                current_user_message=t["with_secret"],
                sensitive_values=[t["secret"]],
            ),
            budget=4000, keep_recent_rounds=2, counter=counter,
        )
        assert all(t["secret"] not in m.content for m in built.messages)
        assert sum(MASK in m.content for m in built.messages) == len(built.messages) - 1
        assert t["secret"] not in export_text(built)


class TestAccounting:
    @LANGS
    def test_savings_compare_full_history_with_what_is_sent(self, lang: str, counter: TokenCounter) -> None:
        """full_tokens covers system + every round + current; saved = full - sent."""
        data = inputs(lang, 30)
        built = build_context(data, budget=400, keep_recent_rounds=3, counter=counter)
        expected_full = counter.count_messages(
            [("system", data.system_prompt)] + [m for r in data.rounds for m in r.messages] + [("user", data.current_user_message)]
        )
        assert built.full_tokens == expected_full
        assert built.saved_tokens == expected_full - built.sent_tokens > 0
        assert built.saved_pct == round(100 * built.saved_tokens / expected_full, 1)
        assert sum(built.breakdown.values()) + 3 == built.used

    @LANGS
    def test_running_total_is_used_as_given(self, lang: str, counter: TokenCounter) -> None:
        """A caller's running full-history total is taken as is (no re-count of old history)."""
        built = build_context(inputs(lang, 3), budget=4000, keep_recent_rounds=3, counter=counter, full_tokens=10_000)
        assert built.full_tokens == 10_000 and built.saved_tokens == 10_000 - built.used

    @LANGS
    def test_a_new_turn_counts_only_new_text(self, lang: str) -> None:
        """Building again after one more round encodes only that round and the new message."""
        fresh = TokenCounter("gpt-4o-mini")
        build_context(inputs(lang, 10), budget=4000, keep_recent_rounds=3, counter=fresh)
        before = fresh.misses
        build_context(inputs(lang, 11, current_user_message="?"), budget=4000, keep_recent_rounds=3, counter=fresh)
        assert fresh.misses - before <= 3 + 1  # the round's two messages, the new current one, a summary

    @LANGS
    def test_export_lists_messages_then_savings(self, lang: str, counter: TokenCounter) -> None:
        """/export: "number, role, priority, tokens, content" per message, then the savings line."""
        built = build_context(inputs(lang, 12), budget=300, keep_recent_rounds=3, counter=counter)
        lines = export_text(built).splitlines()
        first = built.messages[0]
        assert lines[0] == f"1, system, {first.priority}, {first.tokens}, {first.content}"
        assert lines[-1] == f"Token saved: {built.net_saved_tokens} ({built.saved_pct:.1f}%)"
        assert len(lines) == len(built.messages) + 1

    @LANGS
    def test_a_negative_saving_is_signed_in_both_figures(self, lang: str, counter: TokenCounter) -> None:
        """One round against a system prompt: more is sent than the history holds. The count and the
        percentage agree (the count used to stop at 0 beside a negative percentage)."""
        built = build_context(inputs(lang, 1), budget=4000, keep_recent_rounds=3, counter=counter)
        assert built.net_saved_tokens == built.full_tokens - built.sent_tokens < 0 and built.saved_pct < 0
        assert export_text(built).splitlines()[-1] == f"Token saved: {built.net_saved_tokens} ({built.saved_pct:.1f}%)"


class TestPresets:
    @LANGS
    @pytest.mark.parametrize(
        ("preset", "budget", "recent"),
        [("economy", 1500, 3), ("standard", 7000, 10), ("long", 15000, 20), ("analysis", 31000, 5)],
    )
    def test_presets_set_budget_and_recent_rounds(self, lang: str, preset: str, budget: int, recent: int, counter: TokenCounter) -> None:
        """Each preset's budget (max - reserve) and recent-round count drive the window."""
        spec = ContextSpec.model_validate({"preset": preset})
        assert (spec.budget, spec.effective_keep_recent_rounds) == (budget, recent)
        built = build_context(inputs(lang, 25), budget=spec.budget, keep_recent_rounds=spec.effective_keep_recent_rounds, counter=counter)
        assert parts(built).count(RECENT) == 2 * recent
        assert built.used <= spec.budget
