"""Running test files: fresh stores, stubs, restarts that go through the store, failures that stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dialogkit.testing.results import FileResult
from dialogkit.testing.runner import run_file
from tests.testing.conftest import WriteTests
from tests.testing.fake_bot import FakeBot

pytestmark = pytest.mark.usefixtures("use_fake_bot")


def only(result: FileResult) -> Any:
    assert not result.problems, result.problems
    (test,) = result.results
    return test


class TestHappyPath:
    @pytest.mark.parametrize(("first", "yes", "done"), [
        ("我上周买的手机屏幕碎了", "确认", "已创建工单 T-1001"),
        ("my phone arrived broken", "yes", "Ticket T-1001 has been created"),
    ])
    def test_spec_style_conversation_passes(self, write_tests: WriteTests, first: str, yes: str, done: str) -> None:
        """A three-step ticket conversation with stubs passes in either language."""
        path = write_tests(f"""
            bot: bot.yaml
            actions:
              create_ticket: {{ticket_id: T-1001}}
            tests:
              - name: happy path
                user_id: alice
                steps:
                  - user: {first}
                    expect: {{flow: report_issue, state: PARAM_COLLECT, slots: {{product: phone, issue_type: damaged}}}}
                  - user: 123456
                    expect: {{state: CONFIRMATION, slots: {{order_id: "123456"}}}}
                  - user: {yes}
                    expect: {{state: IDLE, flow: null, action: create_ticket, bot: "{done}"}}
        """)
        test = only(run_file(path))
        assert test.passed, test.failure
        assert [t.state for t in test.transcript] == ["PARAM_COLLECT", "CONFIRMATION", "IDLE"]

    def test_numbers_reach_the_bot_as_written(self, write_tests: WriteTests) -> None:
        """`user: 0123456` arrives as the text "0123456", not as an integer."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: leading zero
                steps:
                  - user: 我的手机碎了
                  - user: 0123456
                    expect: {slots: {order_id: "0123456"}}
        """)
        test = only(run_file(path))
        assert test.passed, test.failure
        assert test.transcript[1].user == "0123456"


class TestStubs:
    @pytest.mark.parametrize(("yes", "apology"), [("确认", "抱歉，工单创建失败：服务不可用"),
                                                  ("yes", "Sorry, the ticket could not be created: 服务不可用")])
    def test_error_stub_takes_the_on_error_path(self, write_tests: WriteTests, yes: str, apology: str) -> None:
        """`{error: ...}` makes the action fail: the bot says on_error and the task ends by `fail`."""
        path = write_tests(f"""
            bot: bot.yaml
            actions:
              create_ticket: {{error: 服务不可用}}
            tests:
              - name: failing action
                steps:
                  - user: 订单 123456 的手机碎了
                    expect: {{state: CONFIRMATION}}
                  - user: {yes}
                    expect: {{state: IDLE, action: create_ticket, bot: "{apology}"}}
        """)
        test = only(run_file(path))
        assert test.passed, test.failure
        reply = test.transcript[-1].reply
        assert reply.transitions == ["confirm", "fail"]
        assert reply.actions[0].error == "服务不可用"


class TestIsolationAndRestart:
    RESTART = """
        bot: bot.yaml
        actions:
          create_ticket: {ticket_id: T-1}
        tests:
          - name: a ticket remembers the order
            user_id: bob
            steps:
              - user: 订单 123456 的手机碎了
              - user: 确认
                expect: {state: IDLE}
              - user: my laptop is broken
                session: second
                restart: true
                expect: {state: CONFIRMATION, slots: {order_id: "123456", product: laptop}}
          - name: the next test starts empty
            user_id: bob
            steps:
              - user: my laptop is broken
                expect: {state: PARAM_COLLECT, slots: {order_id: null}}
    """

    def test_user_value_survives_restart_and_new_session(self, write_tests: WriteTests) -> None:
        """A `persist: user` value prefilled after a restart in another session; the next test sees none."""
        result = run_file(write_tests(self.RESTART))
        assert [r.passed for r in result.results] == [True, True], [r.failure for r in result.results]
        first = result.results[0].transcript
        assert (first[2].session, first[2].restarted) == ("second", True)

    def test_restart_builds_a_new_bot_on_the_same_store(self, write_tests: WriteTests,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
        """The bot object is closed and rebuilt, with the same store URL: nothing survives in memory."""
        built: list[tuple[FakeBot, str]] = []

        def factory(path: Path, store: str, actions: Any, clock: Any) -> FakeBot:
            bot = FakeBot(path, store, actions, clock)
            built.append((bot, store))
            return bot

        from dialogkit.testing import runner

        monkeypatch.setattr(runner, "open_bot", factory)
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: mid-task restart
                steps:
                  - user: 订单 123456 的手机碎了
                    expect: {state: CONFIRMATION}
                  - user: 确认
                    restart: true
                    expect: {state: IDLE}
        """)
        assert only(run_file(path)).passed
        (old, store_a), (new, store_b) = built
        assert old is not new and old.closed and store_a == store_b
        assert store_a.startswith("sqlite:///") and store_a.endswith("sessions.db")

    def test_session_switch_stays_until_the_next_switch(self, write_tests: WriteTests) -> None:
        """Steps after `session: NAME` continue there; `session: default` returns to the test's own."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: two sessions
                steps:
                  - user: my phone is broken
                    expect: {state: PARAM_COLLECT}
                  - user: 我的笔记本坏了
                    session: other
                  - user: 654321
                    expect: {slots: {product: laptop, order_id: "654321"}}
                  - user: 123456
                    session: default
                    expect: {slots: {product: phone, order_id: "123456"}}
        """)
        test = only(run_file(path))
        assert test.passed, test.failure
        assert [t.session for t in test.transcript] == ["default", "other", "other", "default"]


class TestFailures:
    @pytest.mark.parametrize("user", ["我的手机碎了", "my phone is broken"])
    def test_wrong_expectation_stops_at_that_step(self, write_tests: WriteTests, user: str) -> None:
        """The first step whose expectation fails ends the test; later steps do not run."""
        path = write_tests(f"""
            bot: bot.yaml
            tests:
              - name: wrong state
                steps:
                  - user: {user}
                    expect: {{state: PARAM_COLLECT}}
                  - user: 123456
                    expect: {{state: IDLE}}
                  - user: never sent
        """)
        test = only(run_file(path))
        assert not test.passed
        assert (test.failure.step, test.failure.line, test.failure.user) == (2, 7, "123456")
        assert [(m.key, m.expected, m.actual) for m in test.failure.mismatches] == [("state", "IDLE", "CONFIRMATION")]
        assert len(test.transcript) == 2

    def test_bot_exception_fails_the_step_with_its_traceback(self, write_tests: WriteTests,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
        """A crash inside the bot is this step's failure, with the error shown; the run goes on."""

        def explode(self: FakeBot, session_id: str, text: str, user_id: str | None = None) -> Any:
            raise ValueError(f"cannot handle {text}")

        monkeypatch.setattr(FakeBot, "handle", explode)
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: crash
                steps: [{user: 你好}]
              - name: crash again
                steps: [{user: hello}]
        """)
        result = run_file(path)
        assert [r.passed for r in result.results] == [False, False]
        assert "ValueError: cannot handle 你好" in (result.results[0].failure.error or "")

    def test_bot_that_does_not_load_fails_each_test(self, write_tests: WriteTests) -> None:
        """A broken bot file is reported as the failure of every test, with its reason."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: t
                steps: [{user: hi}]
        """)
        (path.parent / "bot.yaml").write_text("flows: {x: {slots: nope}}\n", encoding="utf-8")
        test = only(run_file(path))
        assert test.failure.step == 0
        assert "could not be built" in (test.failure.error or "")

    def test_invalid_test_file_is_one_failure_with_problems(self, write_tests: WriteTests) -> None:
        path = write_tests("bot: bot.yaml\ntests:\n  - name: t\n    steps: [{expect: {}}]\n")
        result = run_file(path)
        assert result.failed == 1 and result.results == []
        assert result.problems[0].message == "a step needs `user:`"


class TestSelection:
    def test_keyword_selects_by_name(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            tests:
              - {name: 中文 happy path, steps: [{user: 我的手机碎了}]}
              - {name: english happy path, steps: [{user: my phone is broken}]}
              - {name: english cancel, steps: [{user: cancel}]}
        """)
        names = [r.name for r in run_file(path, keyword="english and not cancel").results]
        assert names == ["english happy path"]
        assert [r.name for r in run_file(path, keyword="中文 or cancel").results] == ["中文 happy path", "english cancel"]
