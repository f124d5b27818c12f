"""The harness driving the real ``dialogkit.Bot`` on the shipped support bot (no fakes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.testing import conversation, run_file
from tests.testing.conftest import WriteTests

SUPPORT_BOT = Path(__file__).parents[2] / "flows" / "support_ticket.yaml"


def write_support_tests(write_tests: WriteTests, body: str) -> Path:
    return write_tests(f"bot: {SUPPORT_BOT}\n" + body)


@pytest.mark.parametrize(("first", "yes", "apology"), [
    ("订单 123456 的手机屏幕碎了", "确认", "工单创建失败：服务不可用"),
    ("my phone arrived broken, order 123456", "yes", "could not be created: 服务不可用"),
])
def test_error_stub_takes_the_on_error_path(write_tests: WriteTests, first: str, yes: str, apology: str) -> None:
    """A stub `{error: ...}` reaches the real bot as a failing action: on_error is said, `fail` fires."""
    path = write_support_tests(write_tests, f"""
actions:
  create_ticket: {{error: 服务不可用}}
tests:
  - name: failing ticket
    steps:
      - user: {first}
        expect: {{state: CONFIRMATION}}
      - user: {yes}
        expect: {{state: IDLE, action: create_ticket, bot: "{apology}"}}
""")
    (test,) = run_file(path).results
    assert test.passed, test.failure
    last = test.transcript[-1].reply
    assert "fail" in last.transitions and "complete" not in last.transitions


@pytest.mark.parametrize(("first", "yes", "later"), [
    ("订单 123456 的手机屏幕碎了", "确认", "我的笔记本坏了"),
    ("my phone arrived broken, order 123456", "yes", "my laptop arrived broken"),
])
def test_user_scoped_slot_survives_a_real_restart(write_tests: WriteTests, first: str, yes: str, later: str) -> None:
    """`restart: true` rebuilds the bot on the same SQLite file; the user's order number comes back."""
    path = write_support_tests(write_tests, f"""
actions:
  create_ticket: {{ticket_id: T-1001}}
tests:
  - name: remembered order
    user_id: dave
    steps:
      - user: {first}
      - user: {yes}
        expect: {{state: IDLE, bot: T-1001}}
      - user: {later}
        session: second
        restart: true
        expect: {{state: CONFIRMATION, slots: {{order_id: "123456", product: laptop}}}}
  - name: a new test starts with an empty store
    user_id: dave
    steps:
      - user: {later}
        expect: {{slots: {{order_id: null}}}}
""")
    result = run_file(path)
    assert [r.passed for r in result.results] == [True, True], [r.failure for r in result.results]


@pytest.mark.parametrize("first", ["我的手机屏幕碎了", "my phone arrived broken"])
def test_wrong_expectation_fails_against_the_real_bot(write_tests: WriteTests, first: str) -> None:
    path = write_support_tests(write_tests, f"""
tests:
  - name: wrong
    steps:
      - user: {first}
        expect: {{state: CONFIRMATION, slots: {{product: laptop}}}}
""")
    (test,) = run_file(path).results
    assert [m.key for m in test.failure.mismatches] == ["state", "slots.product"]


def test_python_driver_on_the_real_bot() -> None:
    """conversation() builds the real Bot on a temporary SQLite store and restarts it."""
    with conversation(SUPPORT_BOT, actions={"create_ticket": {"ticket_id": "T-9"}}, user_id="erin") as convo:
        convo.say("我上周买的手机屏幕碎了").expect(flow="report_issue", state="PARAM_COLLECT",
                                                   slots={"product": "phone", "issue_type": "damaged"}, bot="订单号")
        convo.restart()
        convo.say("123456").expect(state="CONFIRMATION", slots={"order_id": 123456})
        convo.say("确认").expect(state="IDLE", action={"name": "create_ticket", "with": {"order_id": "123456"}},
                               bot="T-9")
