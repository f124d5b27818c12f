"""bench/peer.py's peer answers the support conversation as the shipped bot does, turn for turn,
so the benchmark compares equal work at the level of the dialogue (LangGraph: the bench extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from peer_graph import PeerBot  # noqa: E402

CASES = {
    "zh": (["我上周买的手机屏幕碎了", "123456", "确认"],
           ["请提供您的订单号。", "将为订单 123456（手机，损坏）创建工单，确认吗？", "已创建工单 T-"]),
    "en": (["my laptop arrived broken", "order 67890", "yes"],
           ["What is your order number?", "I'll open a ticket for order 67890 (laptop, damaged). Shall I go ahead?",
            "Ticket T-"]),
}


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("durability", [None, "exit"], ids=["stock", "exit"])
def test_the_peer_runs_the_support_conversation(tmp_path: Path, language: str, durability: str | None) -> None:
    """Order id asked, the confirmation names what the rules read, yes opens a ticket; history kept."""
    peer = PeerBot(tmp_path / "peer.db", durability)
    try:
        lines, expected = CASES[language]
        replies = [peer.handle("s1", line) for line in lines]
        assert replies[:2] == expected[:2]
        assert replies[2].startswith(expected[2])
        assert peer.stored_messages("s1") == 6
        assert peer.handle("s1", lines[0]) == expected[0]     # a second ticket starts afresh
    finally:
        peer.close()


def test_a_filled_thread_holds_the_messages_it_was_given(tmp_path: Path) -> None:
    peer = PeerBot(tmp_path / "peer.db", "exit")
    try:
        peer.fill("long", [("user", "你好"), ("assistant", "您好")] * 10)
        assert peer.stored_messages("long") == 20
    finally:
        peer.close()
