"""The test clock: every test starts at the same local time, a step moves it a second, `now:` and
`wait:` move it as written, and the bot is built on it (docs/testing.md, "Time")."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import pytest

from dialogkit.errors import FlowError
from dialogkit.testing import Conversation, TestClock
from dialogkit.testing.cases import load_test_file
from dialogkit.testing.clock import START, parse_moment, zone_of
from dialogkit.testing.protocols import Clock
from dialogkit.testing.results import FileResult
from dialogkit.testing.runner import run_file
from tests.testing.conftest import BOT_FILE, WriteTests
from tests.testing.fake_bot import FakeBot
from tests.testing.test_runner import only

SHANGHAI = ZoneInfo("Asia/Shanghai")


class ClockedBot(FakeBot):
    """The fake bot, noting the clock's local time at every turn."""

    seen: ClassVar[list[datetime]] = []

    def __init__(self, path: Path, store: str, actions: Mapping[str, Any], clock: Clock | None = None) -> None:
        super().__init__(path, store, actions, clock)
        self.zone = zone_of(self)

    def handle(self, session_id: str, text: str, user_id: str | None = None) -> Any:
        assert self.clock is not None
        ClockedBot.seen.append(datetime.fromtimestamp(self.clock(), self.zone))
        return super().handle(session_id, text, user_id)


@pytest.fixture
def clocked(monkeypatch: pytest.MonkeyPatch) -> list[datetime]:
    from dialogkit.testing import runner

    ClockedBot.seen.clear()
    monkeypatch.setattr(runner, "open_bot", ClockedBot)
    return ClockedBot.seen


def run(write_tests: WriteTests, steps: str, *, zone: str | None = None) -> FileResult:
    if zone is not None:
        bot = (BOT_FILE.parent / "support.yaml").read_text(encoding="utf-8")
        write_tests(bot.replace("  name: fake-support\n", f"  name: fake-support\n  timezone: {zone}\n"), "bot.yaml")
    return run_file(write_tests(f"""
        bot: bot.yaml
        actions:
          create_ticket: {{ticket_id: T-1001}}
        tests:
          - name: timed
            steps:
{steps}
    """))


class TestTheClock:
    def test_it_starts_at_the_same_local_time_in_any_zone(self) -> None:
        for zone in (UTC, SHANGHAI, ZoneInfo("America/New_York")):
            clock = TestClock(zone)
            assert clock.now() == datetime(2026, 12, 1, 9, 0, tzinfo=zone)
            assert clock() == clock.now().timestamp()

    def test_a_step_is_a_second_after_the_last_and_wait_replaces_that_second(self) -> None:
        clock = TestClock()
        start = clock()
        clock.before_step()
        assert clock() == start                      # the first step happens at START
        clock.before_step()
        assert clock() == start + 1
        clock.before_step(wait=1860)
        assert clock() == start + 1 + 1860

    def test_now_sets_the_local_time_and_wait_adds_to_it(self) -> None:
        clock = TestClock(SHANGHAI)
        clock.before_step(now="2026-12-01T23:50")
        assert clock.now() == datetime(2026, 12, 1, 23, 50, tzinfo=SHANGHAI)
        clock.before_step(now="2026-12-01T23:30Z", wait=60)
        assert clock.now() == datetime(2026, 12, 2, 7, 31, tzinfo=SHANGHAI)
        clock.before_step(now=datetime(2026, 12, 24, 10, 0, tzinfo=timezone(timedelta(hours=-5))))
        assert clock.now() == datetime(2026, 12, 24, 23, 0, tzinfo=SHANGHAI)      # 15:00Z

    def test_start_puts_it_back_in_the_bots_zone(self) -> None:
        clock = TestClock()
        clock.before_step(wait=99)
        clock.start(SHANGHAI)
        assert clock.now().isoformat() == "2026-12-01T09:00:00+08:00" and START == "2026-12-01T09:00"
        clock.before_step()
        assert clock.now().isoformat() == "2026-12-01T09:00:00+08:00"

    def test_a_bot_without_a_zone_is_utc(self) -> None:
        assert zone_of(object()) == UTC
        assert zone_of(FakeBot(BOT_FILE, "sqlite:///:memory:", {})) == ZoneInfo("UTC")


class TestReadingNowAndWait:
    def test_now_and_wait_are_read_as_written(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: timed
                steps:
                  - user: 我的手机碎了
                    now: "2026-12-01T23:50"
                  - user: 12345
                    now: 2026-12-02T07:30+08:00
                    wait: 31m
                  - user: 确认
                    wait: 90
        """)
        first, second, third = load_test_file(path).tests[0].steps
        assert first.now == datetime(2026, 12, 1, 23, 50) and first.wait is None
        assert second.now == parse_moment("2026-12-02T07:30+08:00") and second.wait == 1860
        assert third.now is None and third.wait == 90

    def test_a_bad_now_or_wait_is_a_problem_at_its_position(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: timed
                steps:
                  - user: 我的手机碎了
                    now: tomorrow morning
                  - user: 12345
                    wait: half an hour
        """)
        with pytest.raises(FlowError) as caught:
            load_test_file(path)
        now, wait = caught.value.problems
        assert (now.line, now.col) == (6, 14) and "`now` is not a date and time" in now.message
        assert "2026-12-01T09:00" in now.hint
        assert (wait.line, wait.col) == (8, 15) and "`wait` is not a duration" in wait.message
        assert "half an hour" in wait.message and "31m" in wait.hint


class TestTheRunnerRunsOnTheClock:
    def test_every_test_starts_at_nine_and_moves_a_second_per_step(self, write_tests: WriteTests,
                                                                   clocked: list[datetime]) -> None:
        result = run(write_tests, """
              - user: 我的手机碎了
              - user: 12345
              - user: 确认
        """)
        assert only(result).passed
        assert [t.isoformat() for t in clocked] == [
            "2026-12-01T09:00:00+00:00", "2026-12-01T09:00:01+00:00", "2026-12-01T09:00:02+00:00"]

    def test_now_wait_and_a_restart_keep_one_clock(self, write_tests: WriteTests, clocked: list[datetime]) -> None:
        result = run(write_tests, """
              - user: my phone arrived broken
                now: "2026-12-01T23:59:30"
              - user: "12345"
                wait: 31m
              - user: "yes"
                restart: true
              - user: hello
                now: "2026-12-01T23:30Z"
        """, zone="Asia/Shanghai")
        assert only(result).passed
        assert [t.isoformat() for t in clocked] == [
            "2026-12-01T23:59:30+08:00", "2026-12-02T00:30:30+08:00", "2026-12-02T00:30:31+08:00",
            "2026-12-02T07:30:00+08:00"]

    def test_the_bot_is_built_on_the_tests_clock(self, write_tests: WriteTests,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        from dialogkit.testing import runner

        clocks: list[Clock] = []

        def factory(path: Path, store: str, actions: Any, clock: Clock) -> FakeBot:
            clocks.append(clock)
            return FakeBot(path, store, actions, clock)

        monkeypatch.setattr(runner, "open_bot", factory)
        assert only(run(write_tests, """
              - user: 我的手机碎了
              - user: 12345
                restart: true
        """)).passed
        first, again = clocks
        assert first is again and isinstance(first, TestClock)


class TestConversation:
    def test_from_file_runs_on_a_test_clock(self) -> None:
        with Conversation.from_file(BOT_FILE, factory=ClockedBot) as convo:
            ClockedBot.seen.clear()
            convo.say("我的手机碎了").say("12345", wait=1860).say("确认", now="2026-12-24T10:00")
            assert isinstance(convo.clock, TestClock)
            assert [t.isoformat() for t in ClockedBot.seen] == [
                "2026-12-01T09:00:00+00:00", "2026-12-01T09:31:00+00:00", "2026-12-24T10:00:00+00:00"]

    def test_moving_time_needs_a_clock(self) -> None:
        bot = FakeBot(BOT_FILE, "sqlite:///:memory:", {})
        convo = Conversation(bot)
        with pytest.raises(RuntimeError, match="no test clock"):
            convo.say("hello", wait=60)
        convo.say("hello")
        assert convo.reply.text
