"""execute.then in the graph and in coverage: the follow-up flow is a transition of the finished one."""

from __future__ import annotations

from pathlib import Path

from dialogkit import Bot
from dialogkit.spec.graph import render_graph
from dialogkit.testing.coverage import CoverageTracker

BOT = Path(__file__).parents[1] / "conversations" / "bots" / "flow_language.yaml"


def test_the_graph_draws_then_from_execution() -> None:
    bot = Bot.from_file(BOT, store="memory://")
    text = render_graph(bot.spec, flow="report")
    assert isinstance(text, str)
    assert "EXECUTION --> start_notify: then (when)" in text
    bot.close()


def test_coverage_counts_then_when_the_follow_up_starts() -> None:
    bot = Bot.from_file(BOT, store="memory://")
    tracker = CoverageTracker()
    observe = tracker.observer(BOT)
    before: tuple[str | None, str | None] = (None, None)
    for text in ["I want to report a problem", "12345, it is missing", "yes"]:
        reply = bot.handle("s", text)
        observe(before[0], before[1], reply, bot)
        before = (reply.flow, reply.state)
    report = tracker.reports()[0].flows["report"]
    assert "then" in report.all_triggers and "then" in report.triggers
    assert "report: then never fired" not in report.never_reached()
    bot.close()
