"""``Bot.from_file(clock=...)`` and ``bot.timezone``: one clock decides when a session expires, how
history is stamped, and what "明天" / "tomorrow" / "in two hours" mean (docs/lifecycle.md, "Clock
and timezone"). The machine's own date plays no part: the clocks here are years from it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from dialogkit import Bot
from dialogkit.errors import FlowError

ROOT = Path(__file__).resolve().parent.parent
MEETING = ROOT / "flows" / "meeting.yaml"
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
CLINIC = ROOT / "examples" / "clinic" / "clinic.yaml"
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


class FakeClock:
    """Seconds since the epoch, like ``time.time``, moved only by the test."""

    def __init__(self, moment: str) -> None:
        self.seconds = datetime.fromisoformat(moment).timestamp()

    def __call__(self) -> float:
        return self.seconds

    def advance(self, **delta: float) -> None:
        self.seconds += timedelta(**delta).total_seconds()


def meeting_bot(clock: FakeClock, path: Path = MEETING) -> Bot:
    return Bot.from_file(path, store="memory://", actions={"book_meeting": {"meeting_id": "M-1"}}, clock=clock)


def in_zone(tmp_path: Path, zone: str) -> Path:
    """The meeting bot, living in ``zone``."""
    text = MEETING.read_text(encoding="utf-8").replace("  name: meetings\n", f"  name: meetings\n  timezone: {zone}\n")
    path = tmp_path / "meeting.yaml"
    path.write_text(text, encoding="utf-8")
    return path


MEET_TOMORROW = {"zh": "明天下午三点在大会议室开会", "en": "schedule a meeting tomorrow at 3pm in the big room"}
MEET_IN_TWO_HOURS = {"zh": "明天两小时后在大会议室开会", "en": "schedule a meeting tomorrow in two hours in the big room"}


class TestTomorrowIsTheClocks:
    @LANGS
    def test_tomorrow_follows_the_fake_clock(self, lang: str) -> None:
        clock = FakeClock("2031-06-15T09:00:00+00:00")
        bot = meeting_bot(clock)
        assert bot.handle("a", MEET_TOMORROW[lang]).slots["date"] == "2031-06-16"
        clock.advance(days=200)
        assert bot.handle("b", MEET_TOMORROW[lang]).slots["date"] == "2032-01-02"

    @LANGS
    @pytest.mark.parametrize(("zone", "tomorrow", "in_two_hours"), [
        ("UTC", "2026-12-02", "01:30"),              # still Dec 1, 23:30 in UTC
        ("Asia/Shanghai", "2026-12-03", "09:30"),    # already Dec 2, 07:30 in Shanghai
    ])
    def test_the_day_boundary_is_the_bots_zone(self, tmp_path: Path, lang: str, zone: str, tomorrow: str,
                                               in_two_hours: str) -> None:
        clock = FakeClock("2026-12-01T23:30:00+00:00")
        bot = meeting_bot(clock, in_zone(tmp_path, zone))
        assert bot.handle("a", MEET_TOMORROW[lang]).slots["date"] == tomorrow
        assert bot.handle("b", MEET_IN_TWO_HOURS[lang]).slots["time"] == in_two_hours

    @LANGS
    def test_a_reference_replayed_after_a_clarification_reads_the_turns_time(self, lang: str) -> None:
        """The look-ahead reads the clarified request again: "明天" is still the clock's tomorrow."""
        clock = FakeClock("2031-06-15T09:00:00+00:00")
        bot = Bot.from_file(CLINIC, store="memory://", actions={"book_appointment": {"appointment_id": "A1"}},
                            clock=clock)
        said = {"zh": ["我认识王医生和李医生", "帮我约他明天的号", "第二个"],
                "en": ["I know Dr. Wang and Dr. Li", "book me an appointment with him tomorrow", "the second one"]}
        for text in said[lang]:
            reply = bot.handle("s", text)
        assert reply.slots["doctor"] == "李医生" and reply.slots["date"] == "2031-06-16"


class TestExpiryAndStamps:
    @LANGS
    @pytest.mark.parametrize(("idle", "continues"), [(29, True), (31, False)])
    def test_the_session_expires_by_the_clock(self, lang: str, idle: int, continues: bool) -> None:
        clock = FakeClock("2031-06-15T09:00:00+00:00")
        bot = Bot.from_file(SUPPORT, store="memory://", actions={"create_ticket": {"ticket_id": "T-1"}}, clock=clock)
        first = {"zh": "我的手机屏幕碎了", "en": "my phone arrived broken"}[lang]
        assert bot.handle("s", first).state == "PARAM_COLLECT"
        clock.advance(minutes=idle)
        reply = bot.handle("s", "12345")
        assert (reply.state == "CONFIRMATION") is continues
        assert (reply.flow == "report_issue") is continues

    def test_history_is_stamped_with_the_clock(self) -> None:
        clock = FakeClock("2031-06-15T09:00:00+00:00")
        bot = meeting_bot(clock)
        bot.handle("s", MEET_TOMORROW["zh"])
        clock.advance(minutes=5)
        bot.handle("s", "确认")
        stamps = [message.at for message in bot.session("s").history]
        start = datetime(2031, 6, 15, 9, tzinfo=UTC).timestamp()
        assert stamps == [start, start, start + 300, start + 300]
        assert bot.session("s").data is not None and bot.session("s").data.updated_at == start + 300


class TestUnderstandingOnItsOwn:
    def test_the_understanding_reads_the_bots_zone(self, tmp_path: Path) -> None:
        bot = meeting_bot(FakeClock("2026-12-01T23:30:00+00:00"), in_zone(tmp_path, "Asia/Shanghai"))
        understanding = bot.understanding
        assert understanding.zone == ZoneInfo("Asia/Shanghai")
        at = understanding.local_time(datetime(2026, 12, 1, 23, 30, tzinfo=UTC).timestamp())
        assert at.isoformat() == "2026-12-02T07:30:00+08:00"
        dates = [m.value for m in understanding.interpret("明天", "zh", now=at).mentions]
        assert dates == ["2026-12-03"]


class TestTheTimezoneSetting:
    @pytest.mark.parametrize(("written", "hint"), [
        ("Asia/Shangai", "did you mean 'Asia/Shanghai'?"),
        ("europe/berlin", "did you mean 'Europe/Berlin'?"),
        ("Mars/Olympus", "write an IANA name"),
        ("../etc", "write an IANA name"),
        ("Asia", "did you mean 'Asia/"),                # a folder of zones, not one
    ])
    def test_an_unknown_zone_is_a_problem_with_its_position(self, tmp_path: Path, written: str, hint: str) -> None:
        path = in_zone(tmp_path, written)
        with pytest.raises(FlowError) as caught:
            Bot.from_file(path, store="memory://", actions={"book_meeting": {}})
        (problem,) = caught.value.problems
        line = next(i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                    if text.startswith("  timezone:"))
        assert (problem.line, problem.col) == (line, 13)
        assert f"unknown time zone '{written}'" in problem.message and hint in problem.hint

    def test_the_default_is_utc(self) -> None:
        bot: Any = meeting_bot(FakeClock("2026-12-01T23:30:00+00:00"))
        assert bot.spec.bot.timezone == "UTC" and bot.understanding.zone == ZoneInfo("UTC")
