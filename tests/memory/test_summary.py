"""Incremental ticket summary (docs/behaviours.md item 12): three sections, updated per transition."""

from __future__ import annotations

import pytest

from dialogkit.memory import summary as summaries
from dialogkit.memory.summary import (
    EARLIER_GROUPS,
    EARLIER_KEY,
    RECENT_ITEMS,
    RECENT_TASKS,
    compacted,
    mentions,
    record_confirmed,
    record_facts,
    record_pending,
    remove_turn,
    render_summary,
    resolve_pending,
    snapshot,
    trim_for_window,
)
from dialogkit.model.session import SummaryState

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


STATUS = "查询订单状态 / Check an order's status"


def status_tasks(summary: SummaryState, count: int, first_turn: int = 1) -> list[str]:
    """``count`` status checks, one task each (facts keyed per task, as the memory action does)."""
    orders = [str(50000 + i) for i in range(count)]
    for i, order in enumerate(orders):
        record_facts(summary, flow=f"check_status#t{i}", flow_description=STATUS, turn=first_turn + i,
                     slots={"order_id": ("订单号", "order number", order, order)})
    return orders


class TestBounded:
    def test_zh_older_tasks_fold_into_one_earlier_item_with_their_values(self) -> None:
        summary = SummaryState()
        orders = status_tasks(summary, RECENT_TASKS + 3)
        headings = [i for i in summary.facts if "." not in i.key and i.key != EARLIER_KEY]
        assert len(headings) == RECENT_TASKS and summary.facts[0].key == EARLIER_KEY
        text = render_summary(summary, "zh")
        assert text.startswith("用户陈述：此前：订单号 50000；订单号 50001；订单号 50002；查询订单状态（订单号 50003）")
        assert all(order in text for order in orders)

    def test_en_older_tasks_fold_into_one_earlier_item_with_their_values(self) -> None:
        summary = SummaryState()
        orders = status_tasks(summary, RECENT_TASKS + 3)
        text = render_summary(summary, "en")
        assert text.startswith("User stated: earlier: order number 50000; order number 50001; order number 50002; "
                               "Check an order's status (order number 50003)")
        assert all(order in text for order in orders)

    def test_the_earlier_item_keeps_a_bounded_number_of_groups(self) -> None:
        summary = SummaryState()
        orders = status_tasks(summary, RECENT_TASKS + EARLIER_GROUPS + 5)
        text = render_summary(summary, "zh")
        assert orders[0] not in text and orders[5] in text and orders[-1] in text
        assert len(summary.facts) == 1 + 2 * RECENT_TASKS

    def test_zh_confirmed_and_pending_keep_the_latest_items_verbatim(self) -> None:
        summary = SummaryState()
        for i in range(RECENT_ITEMS + 4):
            record_confirmed(summary, key=f"t{i}:done", zh=f"订单 {60000 + i} 当前状态：已发货。", en=f"Order {60000 + i} is shipped.", turn=i)
            record_pending(summary, key=f"t{i}:follow_up", zh="等待工单处理", en="waiting for the ticket", turn=i)
        assert len(summary.confirmed) == RECENT_ITEMS + 1 and summary.confirmed[0].key == EARLIER_KEY
        text = render_summary(summary, "zh")
        assert "已确认：此前：订单 60000 当前状态：已发货；订单 60001" in text and "订单 60015 当前状态：已发货" in text
        assert text.endswith("待办：此前：等待工单处理，等待工单处理"), "the 12 identical to-dos are said once"

    def test_en_confirmed_and_pending_keep_the_latest_items_verbatim(self) -> None:
        summary = SummaryState()
        for i in range(RECENT_ITEMS + 4):
            record_confirmed(summary, key=f"t{i}:done", zh=f"订单 {60000 + i} 当前状态：已发货。", en=f"Order {60000 + i} is shipped.", turn=i)
        text = render_summary(summary, "en")
        assert "Confirmed: earlier: Order 60000 is shipped; Order 60001 is shipped" in text and "Order 60015 is shipped" in text

    def test_forgetting_the_last_turn_still_works_after_folding(self) -> None:
        summary = SummaryState()
        orders = status_tasks(summary, RECENT_TASKS + 3)
        assert remove_turn(summary, RECENT_TASKS + 3) == 2     # the fact and its now empty heading
        assert orders[-1] not in render_summary(summary, "zh")
        assert orders[0] in render_summary(summary, "en"), "the earlier item is never taken back"

    def test_zh_compacted_view_drops_labels_from_older_values(self) -> None:
        summary = SummaryState()
        status_tasks(summary, 4)
        view = compacted(summary, tasks=2, items=2, labels=["订单号", "order number"])
        assert render_summary(view, "zh").startswith("用户陈述：此前：50000；50001；查询订单状态（订单号 50002）")
        assert len(summary.facts) == 8, "the original is untouched"

    def test_en_compacted_view_drops_labels_from_older_values(self) -> None:
        summary = SummaryState()
        status_tasks(summary, 4)
        view = compacted(summary, tasks=2, items=2, labels=["订单号", "order number"])
        assert render_summary(view, "en").startswith("User stated: earlier: 50000; 50001; Check an order's status (order number 50002)")


def report_tasks(summary: SummaryState, tasks: list[tuple[str, str, str]]) -> None:
    """One report task per (order, product, issue), as the memory action records them."""
    for i, (order, product, issue) in enumerate(tasks):
        record_facts(summary, flow=f"report_issue#t{i}", flow_description="报告问题 / Report a problem", turn=i + 1,
                     slots={"order_id": ("订单号", "order number", order, order),
                            "product": ("商品", "product", product, product),
                            "issue_type": ("问题", "issue", issue, issue)})


def test_compacted_view_says_shared_values_once() -> None:
    """Older tasks that differ in one value only are listed under what they share; the rest stay as written."""
    summary = SummaryState()
    report_tasks(summary, [("10000", "手机", "损坏"), ("20000", "耳机", "损坏"), ("30000", "手机", "损坏"),
                           ("40000", "平板", "未收到"), ("50000", "手机", "损坏"), ("60000", "手机", "损坏")])
    view = compacted(summary, tasks=1, items=2, labels=["订单号", "order number", "商品", "product", "问题", "issue"])
    zh = render_summary(view, "zh")
    assert "此前：20000，耳机，损坏；40000，平板，未收到；手机，损坏：10000、30000、50000；报告问题（订单号 60000" in zh
    assert render_summary(view, "en").startswith("User stated: earlier: 20000, 耳机, 损坏; 40000, 平板, 未收到; "
                                                 "手机, 损坏: 10000, 30000, 50000; Report a problem (order number 60000")
    assert len(summary.facts) == 6 * 4, "the stored summary is untouched"


def test_compacted_view_takes_the_longest_label_and_keeps_values_with_spaces() -> None:
    summary = SummaryState()
    for i, city in enumerate(["New York", "Los Angeles", "San Jose"]):
        record_facts(summary, flow=f"trip#t{i}", flow_description="出行 / Trip", turn=i + 1,
                     slots={"order_id": ("订单号", "order number", str(70000 + i), str(70000 + i)),
                            "city": ("城市", "city", city, city)})
    view = compacted(summary, tasks=1, items=1, labels=["order", "order number", "city", "订单号", "城市"])
    assert render_summary(view, "en").startswith("User stated: earlier: 70000, New York; 70001, Los Angeles; Trip (")


LABELS = ["订单号", "order number", "商品", "product", "问题", "issue"]


def window_view(summary: SummaryState, **options: object) -> SummaryState:
    view = compacted(summary, tasks=2, items=2, labels=LABELS)
    trim_for_window(view, labels=LABELS, **options)  # type: ignore[arg-type]
    return view


class TestWindowView:
    """The window's summary says nothing twice that the flow state or a conclusion already says."""

    def test_the_running_tasks_values_are_left_to_the_flow_instructions(self) -> None:
        summary = SummaryState()
        status_tasks(summary, 1)
        report_tasks(summary, [("60000", "手机", "损坏")])
        view = window_view(summary, shown_task="report_issue#t0")
        assert render_summary(view, "zh") == "用户陈述：查询订单状态（订单号 50000）"
        assert render_summary(view, "en") == "User stated: Check an order's status (order number 50000)."
        assert len(summary.facts) == 6, "the stored summary is untouched"

    def test_a_task_asked_again_with_the_same_values_is_listed_once(self) -> None:
        summary = SummaryState()
        for i in range(2):
            record_facts(summary, flow=f"check_status#t{i}", flow_description=STATUS, turn=i + 1,
                         slots={"order_id": ("订单号", "order number", "50000", "50000")})
        assert render_summary(window_view(summary), "zh") == "用户陈述：查询订单状态（订单号 50000）"
        assert render_summary(window_view(summary), "en") == "User stated: Check an order's status (order number 50000)."

    def test_a_conclusion_that_names_every_value_stands_for_its_task(self) -> None:
        summary = SummaryState()
        status_tasks(summary, 2)
        record_confirmed(summary, key="t1:done", zh="订单 50001 当前状态：已发货。", en="Order 50001 is shipped.", turn=3)
        record_confirmed(summary, key="t0:done", zh="订单 150000 当前状态：已发货。", en="Order 150000 is shipped.", turn=4)
        view = window_view(summary)
        assert render_summary(view, "zh") == ("用户陈述：查询订单状态（订单号 50000）；"
                                              "已确认：订单 50001 当前状态：已发货，订单 150000 当前状态：已发货")
        assert render_summary(view, "en") == ("User stated: Check an order's status (order number 50000). "
                                              "Confirmed: Order 50001 is shipped, Order 150000 is shipped.")

    def test_a_done_task_is_no_longer_listed_as_only_confirmed(self) -> None:
        summary = SummaryState()
        record_confirmed(summary, key="t0:confirmed", zh="创建工单", en="open a ticket", turn=1)
        record_confirmed(summary, key="t0:done", zh="已创建工单 T-1", en="Ticket T-1 has been created.", turn=2)
        assert render_summary(window_view(summary), "zh") == "已确认：已创建工单 T-1"
        assert render_summary(window_view(summary), "en") == "Confirmed: Ticket T-1 has been created."

    def test_headings_become_flow_names_when_the_system_prompt_describes_the_flows(self) -> None:
        summary = SummaryState()
        report_tasks(summary, [("60000", "手机", "损坏")])
        assert render_summary(window_view(summary, flow_names=True), "zh") == \
            "用户陈述：report_issue（订单号 60000，商品 手机，问题 损坏）"
        assert render_summary(window_view(summary, flow_names=True), "en") == \
            "User stated: report_issue (order number 60000, product 手机, issue 损坏)."


def test_a_value_is_mentioned_only_as_a_whole() -> None:
    assert mentions("订单 510000 已发货", "510000") and not mentions("订单 510000 已发货", "10000")
    assert mentions("手机，损坏", "手机") and mentions("order 42, phone", "phone")
    assert not mentions("headphones", "phone") and not mentions("", "x") and not mentions("abc", "")


class TestRenderedSections:
    """A section is rendered again only when its items changed: a reply's summary is rendered every
    turn, and most turns change one section or none."""

    @pytest.mark.parametrize(("language", "before", "after"), [("zh", "商品 手机", "商品 笔记本电脑"),
                                                               ("en", "product phone", "product laptop")])
    def test_a_changed_slot_is_rendered_again(self, language: str, before: str, after: str) -> None:
        summary = SummaryState()
        reported(summary)
        assert before in render_summary(summary, language)
        record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=3,
                     slots={"product": ("商品", "product", "笔记本电脑", "laptop")})
        text = render_summary(summary, language)
        assert after in text and before not in text

    @pytest.mark.parametrize(("language", "expected"), [("zh", "已确认：创建工单"), ("en", "Confirmed: open a ticket")])
    def test_a_new_task_state_is_rendered_again(self, language: str, expected: str) -> None:
        summary = SummaryState()
        reported(summary)
        first = render_summary(summary, language)
        record_confirmed(summary, key="t1:confirmed", zh="创建工单", en="open a ticket", turn=3)
        assert render_summary(summary, language) == first.rstrip(".") + ("；" if language == "zh" else ". ") + \
            expected + ("" if language == "zh" else ".")

    def test_unchanged_sections_are_not_rendered_again(self, monkeypatch: pytest.MonkeyPatch) -> None:
        summary = SummaryState()
        reported(summary)
        record_confirmed(summary, key="t1:confirmed", zh="创建工单", en="open a ticket", turn=3)
        rendered: list[int] = []
        monkeypatch.setattr(summaries, "_RENDERED", {})        # nothing rendered before this test
        real = summaries._render_facts
        monkeypatch.setattr(summaries, "_render_facts",
                            lambda items, language, others=None: rendered.append(1) or real(items, language, others))
        first = [render_summary(summary, language) for language in ("zh", "en")]
        record_pending(summary, key="t1:follow", zh="等待工单处理", en="wait for the ticket to be handled", turn=3)
        again = [render_summary(summary, language) for language in ("zh", "en")]
        assert len(rendered) == 2                    # the facts once in each language, not again
        assert again[0] == first[0] + "；待办：等待工单处理"
        assert again[1] == first[1] + " Pending: wait for the ticket to be handled."

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_summary_read_back_from_the_store_is_not_rendered_again(self, language: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
        """Each turn decodes the session anew: the sections its last turn rendered are not rendered again."""
        summary = SummaryState()
        reported(summary)
        monkeypatch.setattr(summaries, "_RENDERED", {})
        first = render_summary(summary, language)
        rendered: list[int] = []
        real = summaries._render_facts
        monkeypatch.setattr(summaries, "_render_facts", lambda items, language, others=None: rendered.append(1) or real(items, language, others))
        decoded = SummaryState.model_validate_json(summary.model_dump_json())
        assert render_summary(decoded, language) == first and not rendered
        record_facts(decoded, flow="report_issue", flow_description=DESCRIPTION, turn=3,
                     slots={"order_id": ("订单号", "order number", "67890", "67890")})
        assert "67890" in render_summary(decoded, language) and rendered == [1]

    def test_a_snapshot_renders_the_summary_as_it_was(self) -> None:
        summary = SummaryState()
        reported(summary)
        before = {language: snapshot(summary, language) for language in ("zh", "en")}
        record_facts(summary, flow="report_issue", flow_description=DESCRIPTION, turn=3,
                     slots={"order_id": ("订单号", "order number", "67890", "67890")})
        assert "67890" in render_summary(summary, "zh")
        assert "12345" in before["zh"]() and "67890" not in before["zh"]()
        assert "order number 12345" in before["en"]()


class TestTheBotsOwnLanguage:
    """A Spanish bot keeps its items in Spanish beside zh and en; a session stored before reads
    its items in en."""

    HEADING = "Consultar el estado de un pedido"

    def spanish_tasks(self, summary: SummaryState, count: int) -> list[str]:
        orders = [str(70000 + i) for i in range(count)]
        for i, order in enumerate(orders):
            more = {"es": (self.HEADING, {"order_id": ("número de pedido", order)})}
            record_facts(summary, flow=f"check_status#t{i}", flow_description=STATUS, turn=i + 1,
                         slots={"order_id": ("订单号", "order number", order, order)}, more=more)
        return orders

    def test_es_three_sections_in_spanish(self) -> None:
        summary = SummaryState()
        self.spanish_tasks(summary, 1)
        record_confirmed(summary, key="t0:done", zh="订单 70000 已发货", en="Order 70000 is shipped", turn=2,
                         es="El pedido 70000 está enviado")
        record_pending(summary, key="t0:follow", zh="等待收货", en="wait for delivery", turn=2, es="esperar la entrega")
        assert render_summary(summary, "es") == (
            "El usuario indicó: Consultar el estado de un pedido (número de pedido 70000). "
            "Confirmado: El pedido 70000 está enviado. Pendiente: esperar la entrega.")
        assert render_summary(summary, "zh").startswith("用户陈述：查询订单状态（订单号 70000）")
        assert render_summary(summary, "en").startswith("User stated: Check an order's status (order number 70000)")

    def test_es_folded_tasks_stay_in_spanish(self) -> None:
        summary = SummaryState()
        orders = self.spanish_tasks(summary, RECENT_TASKS + 2)
        text = render_summary(summary, "es")
        assert text.startswith("El usuario indicó: antes: número de pedido 70000; número de pedido 70001; "
                               "Consultar el estado de un pedido (número de pedido 70002)")
        assert all(order in text for order in orders)
        view = compacted(summary, tasks=2, items=2, labels=["número de pedido", "订单号", "order number"])
        assert render_summary(view, "es").startswith("El usuario indicó: antes: 70000;")

    def test_es_a_correction_in_spanish_replaces_the_fact(self) -> None:
        summary = SummaryState()
        self.spanish_tasks(summary, 1)
        record_facts(summary, flow="check_status#t0", flow_description=STATUS, turn=2,
                     slots={"order_id": ("订单号", "order number", "70000", "70000")},
                     more={"es": (self.HEADING, {"order_id": ("nº de pedido", "70000")})})
        assert "nº de pedido 70000" in render_summary(summary, "es")

    def test_equal_items_with_other_spanish_words_render_their_own(self) -> None:
        """Sections are remembered across sessions by their items; a Spanish text kept beside
        them is part of what was rendered."""
        first, second = SummaryState(), SummaryState()
        self.spanish_tasks(first, 1)
        self.spanish_tasks(second, 1)
        assert second.others is not None
        second.others["es"] = {en: es.replace("número", "nº") for en, es in second.others["es"].items()}
        assert "número de pedido 70000" in render_summary(first, "es")
        assert "nº de pedido 70000" in render_summary(second, "es")

    def test_an_item_stored_before_reads_in_en(self) -> None:
        """A session saved by an earlier version holds items with only zh and en."""
        stored = SummaryState.model_validate({"facts": [
            {"key": "check_status#t0", "zh": "查询订单状态", "en": "Check an order's status", "turn": 1},
            {"key": "check_status#t0.order_id", "zh": "订单号 70000", "en": "order number 70000", "turn": 1}]})
        assert stored.others is None
        assert summaries.item_text(stored.facts[1], "es") == "order number 70000"
        assert render_summary(stored, "es") == "El usuario indicó: Check an order's status (order number 70000)."
        assert render_summary(stored, "zh") == "用户陈述：查询订单状态（订单号 70000）"
