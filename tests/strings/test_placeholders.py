"""The one placeholder parser: the names a ``{name}`` template refers to."""

from __future__ import annotations

import pytest

from dialogkit.strings.placeholders import placeholders


class TestPlaceholders:
    @pytest.mark.parametrize(("template", "names"), [
        ("将为订单 {order_id}（{product}）创建工单", ["order_id", "product"]),
        ("I'll open a ticket for order {order_id} ({product}).", ["order_id", "product"]),
    ], ids=["zh", "en"])
    def test_names_in_order(self, template: str, names: list[str]) -> None:
        assert placeholders(template) == names

    def test_attributes_indexes_conversions_and_formats_name_the_base(self) -> None:
        """{b.label}, {d[0]}, {e!r} and {f:>5} refer to b, d, e and f."""
        assert placeholders("{a} {b.label} {d[0]} {e!r} {f:>5}") == ["a", "b", "d", "e", "f"]

    def test_doubled_braces_are_literal(self) -> None:
        assert placeholders("{{not_a_name}} {real}") == ["real"]

    def test_repeats_are_kept(self) -> None:
        """A checker decides whether repeats matter; the parser reports what is written."""
        assert placeholders("{x}{x}") == ["x", "x"]

    def test_empty_braces_name_nothing(self) -> None:
        assert placeholders("{}") == [""]

    def test_no_placeholders(self) -> None:
        assert placeholders("已创建。") == []

    @pytest.mark.parametrize("template", ["{order_id", "order_id}", "订单 {order_id"])
    def test_unbalanced_braces_raise(self, template: str) -> None:
        """The bot-file check reports them, so the parser must not hide them."""
        with pytest.raises(ValueError):
            placeholders(template)
