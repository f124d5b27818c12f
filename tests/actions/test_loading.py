"""Loading a bot: the file's own problems and its code's problems, together, in file order."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from dialogkit.actions.loading import load_bot_file, parse_bot_text
from dialogkit.errors import FlowError, Problem

ROOT = Path(__file__).resolve().parents[2]
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "已发货"}}


def _problems(text: str, **kwargs: Any) -> list[Problem]:
    with pytest.raises(FlowError) as caught:
        parse_bot_text(textwrap.dedent(text), filename="bot.yaml", **kwargs)
    return caught.value.problems


class TestLoading:
    def test_the_shipped_bot_with_stubs(self) -> None:
        bot = load_bot_file(ROOT / "flows" / "support_ticket.yaml", actions=STUBS)
        assert bot.path == ROOT / "flows" / "support_ticket.yaml"
        assert {"create_ticket", "order_status"} <= set(bot.actions.names)

    def test_spec_and_code_problems_interleave_in_file_order(self) -> None:
        """An unknown action between two meaning problems: one list, top to bottom."""
        found = _problems("""\
            flows:
              pay:
                trigger: {keywords: [pay]}
                slots: [{name: amount, entity: nmber}]
                execute: {action: take_payment}
              refund:
                trigger: {keywords: [退款]}
                slots: [{name: amount, entity: numbr}]
            """)
        assert [(p.line, p.message) for p in found] == [
            (4, "slot 'amount' uses unknown entity type 'nmber'"),
            (5, "unknown action 'take_payment'"),
            (8, "slot 'amount' uses unknown entity type 'numbr'"),
        ]

    def test_a_file_with_no_usable_model_imports_no_code(self, tmp_path: Path) -> None:
        """Only the shape problems come back; bot.actions is not even imported."""
        marker = tmp_path / "imported.txt"
        (tmp_path / "loading_side_effect.py").write_text(
            f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
        found = _problems("bot: {actions: loading_side_effect}\nflows: [not, a, mapping]\n", base_dir=tmp_path)
        assert [p.line for p in found] == [2]
        assert not marker.exists()

    def test_parse_bot_text_takes_bytes_and_a_base_dir(self, tmp_path: Path) -> None:
        bot = parse_bot_text("flows:\n  hi:\n    trigger: {keywords: [你好, hello]}\n".encode(), base_dir=tmp_path)
        assert (bot.path, bot.base_dir, list(bot.spec.flows)) == (None, tmp_path.resolve(), ["hi"])
