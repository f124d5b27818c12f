"""Incremental ticket summary (SPEC §3 item 12): three sections, updated per transition."""

from __future__ import annotations

from dialogkit.memory.summary import (record_confirmed, record_facts, record_pending, remove_turn, render_summary,
                                      resolve_pending)
from dialogkit.runtime.session import SummaryState

DESCRIPTION = "报告订单问题并创建工单 / Report a problem with an order and open a ticket"


def reported(summary: SummaryState) -> None:
    """"我上周买的手机屏幕碎了" (turn 1) then "12345" (turn 2)."""
    record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=1,
                 slots={"product": ("商品", "product", "手机", "phone"),
                        "issue_type": ("问题", "issue", "损坏", "damaged")})
    record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=2,
                 slots={"order_id": ("订单号", "order number", "12345", "12345")})


def test_zh_three_sections_kept_apart() -> None:
    summary = SummaryState()
    reported(summary)
    record_confirmed(summary, key="t1:confirmed", zh="创建工单", en="open a ticket", turn=3)
    record_pending(summary, key="t1:follow", zh="等待工单处理", en="wait for the ticket to be handled", turn=3)
    assert render_summary(summary, "zh") == (
        "用户陈述：报告订单问题并创建工单（商品 手机，问题 损坏，订单号 12345）；已确认：创建工单；待办：等待工单处理")


def test_en_three_sections_kept_apart() -> None:
    summary = SummaryState()
    reported(summary)
    record_confirmed(summary, key="t1:confirmed", zh="创建工单", en="open a ticket", turn=3)
    record_pending(summary, key="t1:follow", zh="等待工单处理", en="wait for the ticket to be handled", turn=3)
    assert render_summary(summary, "en") == (
        "User stated: Report a problem with an order and open a ticket (product phone, issue damaged, "
        "order number 12345). Confirmed: open a ticket. Pending: wait for the ticket to be handled.")


def test_a_correction_replaces_the_fact_in_place() -> None:
    """"不对，订单号是67890": the item is updated, not appended, and keeps its place."""
    summary = SummaryState()
    reported(summary)
    record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=3,
                 slots={"product": ("商品", "product", "笔记本电脑", "laptop")})
    assert [i.key for i in summary.facts] == ["report_issue", "report_issue.product", "report_issue.issue_type",
                                              "report_issue.order_id"]
    assert "商品 笔记本电脑" in render_summary(summary, "zh") and "手机" not in render_summary(summary, "zh")
    assert "product laptop" in render_summary(summary, "en")


def test_repeating_a_value_keeps_the_turn_it_was_first_stated() -> None:
    summary = SummaryState()
    reported(summary)
    record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=5,
                 slots={"order_id": ("订单号", "order number", "12345", "12345")})
    assert next(i for i in summary.facts if i.key == "report_issue.order_id").turn == 2


def test_pending_is_resolved_when_it_happened() -> None:
    summary = SummaryState()
    record_pending(summary, key="t1:run", zh="执行创建工单", en="run: open a ticket", turn=3)
    assert resolve_pending(summary, "t1:run") is True
    assert resolve_pending(summary, "t1:run") is False
    assert render_summary(summary, "zh") == "" and render_summary(summary, "en") == ""


def test_single_language_description_stands_for_both() -> None:
    summary = SummaryState()
    record_facts(summary, flow="check_status", flow_description="查询订单状态", turn=1,
                 slots={"order_id": ("订单号", "order number", "12345", "12345")})
    assert render_summary(summary, "zh") == "用户陈述：查询订单状态（订单号 12345）"
    assert render_summary(summary, "en") == "User stated: check status (order number 12345)."


def test_remove_turn_takes_back_that_turns_items_only() -> None:
    summary = SummaryState()
    reported(summary)
    assert remove_turn(summary, 2) == 1
    assert "12345" not in render_summary(summary, "zh") and "手机" in render_summary(summary, "zh")
    assert "12345" not in render_summary(summary, "en") and "phone" in render_summary(summary, "en")


def test_remove_turn_drops_a_heading_left_without_facts() -> None:
    summary = SummaryState()
    record_facts(summary, flow="check_status", flow_description="查询订单状态 / Check an order's status", turn=4,
                 slots={"order_id": ("订单号", "order number", "12345", "12345")})
    remove_turn(summary, 4)
    assert summary.facts == [] and render_summary(summary, "en") == ""


def test_items_that_are_sentences_join_without_doubled_stops() -> None:
    summary = SummaryState()
    record_confirmed(summary, key="a", zh="订单 12345 当前状态：已发货。", en="Order 12345 is shipped.", turn=1)
    record_confirmed(summary, key="b", zh="已创建工单 T-1。", en="Ticket T-1 has been created.", turn=2)
    assert render_summary(summary, "zh") == "已确认：订单 12345 当前状态：已发货，已创建工单 T-1"
    assert render_summary(summary, "en") == "Confirmed: Order 12345 is shipped, Ticket T-1 has been created."
