"""The built-in date and time types, relative to a fixed clock: Monday 2026-11-30 10:00."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from dialogkit.understanding import datetimes
from dialogkit.understanding.datetimes import Impossible, find_dates, find_times, read_dates, read_times
from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import NOW, bot_from_yaml, fixed_clock


def dates(text: str) -> list[str]:
    return [f.value for f in sorted(find_dates(text, NOW))]


def times(text: str) -> list[str]:
    return [f.value for f in sorted(find_times(text, NOW))]


class TestChineseDates:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("今天", "2026-11-30"),
            ("明天", "2026-12-01"),
            ("后天", "2026-12-02"),
            ("昨天", "2026-11-29"),
            ("大后天", "2026-12-03"),
            ("下周一", "2026-12-07"),
            ("周五", "2026-12-04"),
            ("星期五", "2026-12-04"),
            ("下星期五", "2026-12-11"),
            ("上周五", "2026-11-27"),
            ("这周日", "2026-12-06"),
            ("12月3日", "2026-12-03"),
            ("12月3号", "2026-12-03"),
            ("十二月三日", "2026-12-03"),
            ("2026-12-03", "2026-12-03"),
            ("2026年12月3日", "2026-12-03"),
            ("12/3", "2026-12-03"),
            ("3天后", "2026-12-03"),
            ("3月5日", "2027-03-05"),
        ],
    )
    def test_dates(self, text: str, expected: str) -> None:
        """Relative days, weekdays, month/day and ISO forms; a date without a year is the
        closest one, so in late November "3月5日" is next March."""
        assert dates(f"我想{text}去") == [expected]


class TestEnglishDates:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("today", "2026-11-30"),
            ("tomorrow", "2026-12-01"),
            ("yesterday", "2026-11-29"),
            ("the day after tomorrow", "2026-12-02"),
            ("next monday", "2026-12-07"),
            ("friday", "2026-12-04"),
            ("on Friday", "2026-12-04"),
            ("next friday", "2026-12-11"),
            ("last friday", "2026-11-27"),
            ("Dec 3", "2026-12-03"),
            ("December 3rd", "2026-12-03"),
            ("3 December", "2026-12-03"),
            ("3rd of December 2027", "2027-12-03"),
            ("2026-12-03", "2026-12-03"),
            ("12/3", "2026-12-03"),
            ("in 3 days", "2026-12-03"),
            ("March 5", "2027-03-05"),
        ],
    )
    def test_dates(self, text: str, expected: str) -> None:
        """The same meanings as the Chinese forms: "next friday" is 下周五."""
        assert dates(f"let's meet {text} please") == [expected]

    def test_impossible_dates_are_no_dates(self) -> None:
        """Impossible dates such as "2月30日" / "Feb 30" are no value of the date type."""
        assert dates("2月30日") == []
        assert dates("Feb 30") == []


class TestChineseTimes:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("下午三点", "15:00"),
            ("下午3点半", "15:30"),
            ("上午十点一刻", "10:15"),
            ("晚上8点", "20:00"),
            ("15:30", "15:30"),
            ("15：30", "15:30"),
            ("三点", "15:00"),
            ("两点半", "14:30"),
            ("七点", "07:00"),
            ("上午三点", "03:00"),
            ("早上6点", "06:00"),
            ("下午三点四十五分", "15:45"),
            ("早上7点05", "07:05"),
            ("中午12点", "12:00"),
            ("中午", "12:00"),
            ("晚上12点", "00:00"),
            ("凌晨两点", "02:00"),
            ("三点三刻", "15:45"),
            ("3:30", "15:30"),
            ("03:30", "03:30"),
        ],
    )
    def test_times(self, text: str, expected: str) -> None:
        """Day periods, 半/一刻, minutes in digits or numerals; a bare hour from 1 to 6 is the
        afternoon, a marker keeps the morning, other bare hours and "03:30" are literal."""
        assert times(f"改到{text}吧") == [expected]

    @pytest.mark.parametrize("text", ["快一点", "有一点问题", "三点建议"])
    def test_dian_in_words_is_not_a_time(self, text: str) -> None:
        """The words "快一点" (a bit faster) and "三点建议" (three points) are not clock times."""
        assert times(text) == []

    @pytest.mark.parametrize(("text", "expected"), [("明天10点在上海取车", "10:00"), ("下周三三点在大会议室开会", "15:00"),
                                                    ("不对，11点取车", "11:00"), ("七点出发", "07:00")])
    def test_a_bare_hour_before_what_is_done_then_is_a_time(self, text: str, expected: str) -> None:
        """"10点在上海取车": the hour is followed by what happens at it, not by the thing it counts."""
        assert times(text) == [expected]


class TestEnglishTimes:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("3pm", "15:00"),
            ("3:30 pm", "15:30"),
            ("3 p.m.", "15:00"),
            ("15:30", "15:30"),
            ("noon", "12:00"),
            ("midnight", "00:00"),
            ("at 3", "15:00"),
            ("at 3 in the morning", "03:00"),
            ("at 3 in the afternoon", "15:00"),
            ("8 o'clock in the evening", "20:00"),
            ("half past 3", "15:30"),
            ("half past two", "14:30"),
            ("quarter to four", "15:45"),
            ("3am", "03:00"),
            ("at 7", "07:00"),
            ("3:30", "15:30"),
            ("12am", "00:00"),
            ("at three pm", "15:00"),
        ],
    )
    def test_times(self, text: str, expected: str) -> None:
        """A bare hour from 1 to 6 is the afternoon, as in Chinese: "at 3" is 15:00 like 三点;
        "am" or "in the morning" keeps the morning."""
        assert times(f"move it to {text} ok") == [expected]

    def test_at_one_point_is_not_a_time(self) -> None:
        """An hour word needs o'clock, am/pm or a day period to be a time."""
        assert times("at one point it broke") == []


class TestSpansFromNow:
    """"in two hours" / "两小时后": the time of day the span comes to from NOW (Monday 10:00)."""

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("两小时后", "12:00"), ("2小时以后", "12:00"), ("三个小时之后", "13:00"), ("半小时后", "10:30"),
            ("半个小时以后", "10:30"), ("一个半小时后", "11:30"), ("两个半钟头后", "12:30"), ("十分钟后", "10:10"),
            ("45分钟后", "10:45"), ("十五个小时后", "01:00"),
        ],
    )
    def test_chinese(self, text: str, expected: str) -> None:
        assert times(f"请{text}提醒我") == [expected]

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("in two hours", "12:00"), ("in 2 hours", "12:00"), ("in an hour", "11:00"), ("in half an hour", "10:30"),
            ("in 45 minutes", "10:45"), ("in twenty mins", "10:20"), ("in 5 min", "10:05"), ("in 3 hrs", "13:00"),
            ("two hours from now", "12:00"), ("90 minutes later", "11:30"), ("in fifteen hours", "01:00"),
        ],
    )
    def test_english(self, text: str, expected: str) -> None:
        assert times(f"remind me {text} please") == [expected]

    @pytest.mark.parametrize(
        "text",
        ["三小时", "开了两小时的会", "十分好", "一个半分钟后", "in a minute", "just a minute", "in 3 days",
         "in 30 hours", "48小时后", "for two hours"],
    )
    def test_durations_and_far_spans_are_no_time(self, text: str) -> None:
        """A duration said without 后/in, a half minute, "in a minute" (soon), a day or more ahead."""
        assert times(text) == []

    def test_the_span_counts_from_the_given_now_across_midnight(self) -> None:
        late = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
        assert [f.value for f in find_times("in two hours", late)] == ["01:30"]
        shanghai = late.astimezone(ZoneInfo("Asia/Shanghai"))
        assert [f.value for f in find_times("两小时后", shanghai)] == ["09:30"]

    def test_a_span_across_a_change_of_summer_time_is_as_long_as_it_says(self) -> None:
        """Berlin puts its clocks back at 03:00 on 2026-10-25: two hours after 01:30 is 02:30."""
        berlin = datetime(2026, 10, 25, 1, 30, tzinfo=ZoneInfo("Europe/Berlin"))
        assert [f.value for f in find_times("in two hours", berlin)] == ["02:30"]


class TestTheDateIsNowsLocalDate:
    @pytest.mark.parametrize(
        ("zone", "today", "tomorrow", "next_friday"),
        [
            ("UTC", "2026-12-01", "2026-12-02", "2026-12-11"),
            ("Asia/Shanghai", "2026-12-02", "2026-12-03", "2026-12-11"),
            ("America/Los_Angeles", "2026-12-01", "2026-12-02", "2026-12-11"),
        ],
    )
    def test_relative_dates_at_a_day_boundary(self, zone: str, today: str, tomorrow: str, next_friday: str) -> None:
        """2026-12-01T23:30Z is Tuesday Dec 1 in UTC and Los Angeles, already Wednesday Dec 2 in Shanghai."""
        now = datetime(2026, 12, 1, 23, 30, tzinfo=UTC).astimezone(ZoneInfo(zone))
        for zh, en, expected in (("今天", "today", today), ("明天", "tomorrow", tomorrow),
                                 ("下周五", "next friday", next_friday)):
            assert [f.value for f in find_dates(zh, now)] == [expected]
            assert [f.value for f in find_dates(en, now)] == [expected]


class TestAfternoonHours:
    @pytest.mark.parametrize(
        ("text", "date", "time"),
        [
            ("明天两点半", "2026-12-01", "14:30"),
            ("tomorrow at half past two", "2026-12-01", "14:30"),
            ("下周三三点", "2026-12-09", "15:00"),
            ("next wednesday at 3", "2026-12-09", "15:00"),
            ("星期五6点", "2026-12-04", "18:00"),
            ("friday at 6 o'clock", "2026-12-04", "18:00"),
        ],
    )
    def test_a_day_and_a_bare_hour(self, text: str, date: str, time: str) -> None:
        """The weekday's numeral is not the hour's: "下周三三点" is Wednesday at 15:00."""
        assert (dates(text), times(text)) == ([date], [time])


class TestImpossibleValues:
    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("2025-13-45", "month"), ("13月5日", "month"), ("2月30日", "day"), ("2026-02-29", "day"),
            ("Feb 30", "day"), ("December 45", "day"), ("2/30", "day"),
        ],
    )
    def test_dates_say_which_part_is_impossible(self, text: str, reason: str) -> None:
        (found,) = read_dates(f"改到 {text} 吧", NOW)
        assert found.value == Impossible(reason)

    @pytest.mark.parametrize(
        ("text", "reason"),
        [("25:00", "hour"), ("13:75", "minute"), ("3点75分", "minute"), ("晚上25点", "hour"), ("at 3:75", "minute"),
         ("25 o'clock", "hour")],
    )
    def test_times_say_which_part_is_impossible(self, text: str, reason: str) -> None:
        (found,) = read_times(f"改到 {text} 吧", NOW)
        assert found.value == Impossible(reason)

    @pytest.mark.parametrize("text", ["30/2", "5/35", "积分25点", "还差25点", "at 25 degrees", "16:9"])
    def test_ratios_scores_and_counts_are_not_reported(self, text: str) -> None:
        """Only what is unmistakably a date or time is reported impossible."""
        assert read_dates(text, NOW) == [] and read_times(text, NOW) == []

    @pytest.mark.parametrize(
        ("text", "rejected"),
        [
            ("改到2月30日下午三点", [("date", "2月30日", "day")]),
            ("move it to Feb 30 at 25:00", [("date", "Feb 30", "day"), ("time", "at 25:00", "hour")]),
            ("约 2025-13-45 的号", [("date", "2025-13-45", "month")]),
            ("13:75 works for me", [("time", "13:75", "minute")]),
        ],
    )
    def test_interpret_reports_them(self, rules: RuleUnderstanding, text: str,
                                    rejected: list[tuple[str, str, str]]) -> None:
        """The interpretation lists them, so the user hears why nothing was filled."""
        found = rules.interpret(text, "zh")
        assert [(r.type, r.text, r.reason) for r in found.rejected] == rejected
        assert all(text[r.start : r.end] == r.text for r in found.rejected)
        assert not [m for m in found.mentions if m.type == "date" and m.text in {r.text for r in found.rejected}]

    @pytest.mark.parametrize(("text", "language"), [("2月30日", "zh"), ("改成25:00", "zh"), ("2025-13-45", "zh"),
                                                    ("Feb 30", "en"), ("make it 25:00", "en"), ("at 13:75", "en")])
    def test_the_numbers_of_an_impossible_date_or_time_are_no_values(self, language: str, text: str) -> None:
        """The 2 and the 30 of "2月30日" are no party size: the reply can say there is no such date."""
        rules = RuleUnderstanding(bot_from_yaml("""
            bot: {name: tables}
            flows:
              book:
                description: 订位 / Book a table
                trigger: {keywords: [订位, book]}
                slots:
                  - {name: party_size, entity: integer}
                  - {name: date, entity: date}
                  - {name: time, entity: time}
        """), clock=fixed_clock)
        found = rules.interpret(text, language)
        assert found.rejected and found.mentions == []


class TestCheapFirstLook:
    """The finders skip text that cannot hold a date or time; the skip must never lose one."""

    HOLDING = (
        "我想今天去", "下周一", "星期五", "十二月三日", "2026年12月3日", "12/3", "3天后", "2026-12-03",
        "the day after tomorrow", "next monday", "Dec 3", "3rd of December 2027", "in 3 days", "2 days ago",
        "下午三点", "早上7点05", "15：30", "中午", "凌晨两点", "三点三刻", "下午3點半",
        "3pm", "3 p.m.", "3:30 pm", "at 3", "8 o'clock in the evening", "half past 3", "quarter to four",
        "noon", "at three pm",
        "两小时后", "半个小时以后", "十分钟后", "in two hours", "in 5 min", "in twenty mins", "90 minutes later",
        "in half an hour", "5 min later",
    )
    WITHOUT = ("order 24680", "我的订单号是 12345", "my phone arrived broken", "someone took it", "电话 13812345678",
               "never mind", "a minimum of 5")

    @pytest.mark.parametrize("text", HOLDING)
    def test_the_skip_loses_nothing(self, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
        gated = (dates(text), times(text))
        monkeypatch.setattr(datetimes, "_DATE_HINT", re.compile(""))
        monkeypatch.setattr(datetimes, "_TIME_HINT", re.compile(""))
        assert (dates(text), times(text)) == gated
        assert gated != ([], [])

    @pytest.mark.parametrize("text", WITHOUT)
    def test_numbers_and_words_alone_are_skipped(self, text: str) -> None:
        """An order number or "phone" (which holds "one") is no reason to run a dozen regexes."""
        assert datetimes._DATE_HINT.search(text) is None
        assert datetimes._TIME_HINT.search(text) is None


class TestLettersACaseBlindPatternFolds:
    """"ſ", "ı", "İ" and the Kelvin sign "K" match ASCII letters in a case-blind pattern, so the word
    read must be looked up as that ASCII word: "ſunday" raised a KeyError instead of being read."""

    @pytest.mark.parametrize("folded, plain", [
        ("next \u017funday", "next sunday"), ("\u017fept 3", "sept 3"), ("three days ago", "three days ago"),
        ("\u017fix pm", "six pm"), ("half pa\u017ft \u017fix", "half past six"), ("mıdnight", "midnight"),
        ("\u0130N TWO WEEKS", "in two weeks"),
    ])
    def test_the_folded_word_reads_as_the_plain_one(self, folded: str, plain: str) -> None:
        assert (dates(folded), times(folded)) == (dates(plain), times(plain))

    @pytest.mark.parametrize("text, plain", [
        ("下周\u017funday开会", "下周sunday开会"), ("明天下午\u017fix pm", "明天下午six pm"),
    ])
    def test_a_chinese_turn_holding_one_reads_as_with_the_plain_letter(self, text: str, plain: str) -> None:
        assert (dates(text), times(text)) == (dates(plain), times(plain))
