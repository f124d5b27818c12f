"""Coverage: states, transitions, slots and memory actions exercised per flow, and the gaps."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.model.reply import ActionRun, Reply
from dialogkit.spec.schema import BotFile
from dialogkit.testing.coverage import CoverageTracker, FlowCoverage
from dialogkit.testing.report import format_coverage
from dialogkit.testing.runner import run_file
from tests.testing.conftest import BOT_FILE, WriteTests
from tests.testing.fake_bot import FakeBot


def spec() -> BotFile:
    bot = FakeBot(BOT_FILE, "sqlite:///:memory:", {})
    bot.close()
    return bot.spec


def reply(state: str, flow: str | None, transitions: list[str], slots: dict[str, str] | None = None,
          memory: list[str] | None = None, actions: list[ActionRun] | None = None) -> Reply:
    return Reply(text="", state=state, flow=flow, slots=slots or {}, session_id="s", language="zh",
                 transitions=transitions, memory_actions=memory or [], actions=actions or [])


class TestReplay:
    def test_states_passed_through_are_inferred_from_the_table(self) -> None:
        """confirm + complete in one turn passes through EXECUTION without stopping there."""
        tracker = CoverageTracker()
        bot_spec = spec()
        done = reply("IDLE", None, ["confirm", "complete"], {"order_id": "1"},
                     ["summarize", "persist_slots", "forget"], [ActionRun("create_ticket", {})])
        tracker.record(BOT_FILE, bot_spec, "report_issue", "CONFIRMATION", done)
        flow = tracker.reports()[0].flows["report_issue"]
        assert flow.states == {"CONFIRMATION", "EXECUTION", "IDLE"}
        assert flow.triggers == {"confirm", "complete"}
        assert flow.slots == {"order_id"}                       # the ended task's slots count
        assert ("complete", "forget") in flow.memory and ("confirm", "summarize") in flow.memory

    def test_task_started_and_finished_in_one_turn_is_found_by_its_action(self) -> None:
        """A flow without confirm can run start to end in one turn; its action names it."""
        tracker = CoverageTracker()
        turn = reply("IDLE", None, ["start_task", "collect", "execute", "complete"], {"order_id": "123456"},
                     actions=[ActionRun("order_status", {"order_id": "123456"})])
        tracker.record(BOT_FILE, spec(), None, "IDLE", turn)
        flow = tracker.reports()[0].flows["check_status"]
        assert flow.states == {"IDLE", "TASK_INIT", "PARAM_COLLECT", "EXECUTION"}
        gaps = flow.never_reached()
        assert "check_status: provide_param never fired" in gaps
        assert "check_status: execute never fired" not in gaps
        assert tracker.reports()[0].flows["report_issue"].never_reached() == ["report_issue: never started by any test"]

    def test_flow_without_confirm_has_no_confirmation_state(self) -> None:
        flow = FlowCoverage.of("check_status", spec().flows["check_status"])
        assert "CONFIRMATION" not in flow.all_states and "confirm" not in flow.all_triggers

    def test_bot_without_spec_is_reported_unavailable(self) -> None:
        tracker = CoverageTracker()
        tracker.record(Path("bot.yaml"), None, None, "IDLE", reply("IDLE", None, []))
        assert "not available" in format_coverage(tracker.reports())


@pytest.mark.usefixtures("use_fake_bot")
class TestFromConversations:
    @pytest.mark.parametrize("yes", ["确认", "yes"])
    def test_gaps_name_what_no_test_reached(self, write_tests: WriteTests, yes: str) -> None:
        """A happy path leaves deny/cancel/fail unfired and the optional slot unfilled."""
        path = write_tests(f"""
            bot: bot.yaml
            tests:
              - name: happy
                steps:
                  - user: 订单 123456 的手机碎了
                  - user: {yes}
        """)
        tracker = CoverageTracker()
        assert run_file(path, coverage=tracker).results[0].passed
        text = format_coverage(tracker.reports())
        assert "report_issue: deny never fired" in text
        assert "report_issue: cancel never fired" in text
        assert "report_issue: slot note never filled" in text
        assert "report_issue: memory action summarize on deny never ran" in text
        assert "check_status: never started by any test" in text
        assert "report_issue: confirm never fired" not in text
        assert "    states         5/5" in text

    def test_deny_is_covered_once_a_test_says_no(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: deny then cancel
                steps:
                  - user: order 123456, my phone is broken
                  - user: no
                    expect: {state: PARAM_COLLECT}
                  - user: 取消
                    expect: {state: IDLE}
        """)
        tracker = CoverageTracker()
        assert run_file(path, coverage=tracker).results[0].passed
        text = format_coverage(tracker.reports())
        assert "deny never fired" not in text and "cancel never fired" not in text.split("check_status")[0]
