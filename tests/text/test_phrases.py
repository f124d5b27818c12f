"""Reply templates: numbers without ".0", missing placeholders render empty, Chinese pieces joined."""

from __future__ import annotations

import pytest

from dialogkit.testing.logs import capture_turn_logs
from dialogkit.text import phrases as R


class TestValues:
    @pytest.mark.parametrize("value, shown", [(150.0, "150"), (1.5, "1.5"), (3000, "3000"), (None, ""), ("12345", "12345")])
    def test_numbers_render_without_a_trailing_zero(self, value: object, shown: str) -> None:
        assert R.format_value(value) == shown


class TestTemplates:
    def test_a_placeholder_without_value_renders_empty_and_warns(self) -> None:
        with capture_turn_logs() as events:
            text = R.render("订单 {order_id}：{status}", {"order_id": "12345"})
        assert text == "订单 12345："
        assert any(e.get("event") == "placeholder_without_value" and e.get("placeholder") == "status" for e in events)

    def test_braces_that_name_nothing_are_left_alone(self) -> None:
        assert R.render("use {} or {x}", {"x": "y"}) == "use {} or y"

    def test_chinese_pieces_join_without_spaces_after_full_stops(self) -> None:
        assert R.join(["好的，已取消。", "回到刚才的任务：", "请提供订单号。"], "zh") == "好的，已取消。回到刚才的任务：请提供订单号。"
        assert R.join(["OK.", "Back to it:", "Which order?"], "en") == "OK. Back to it: Which order?"
