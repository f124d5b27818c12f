"""Failure text with expected vs actual and the transcript; JUnit XML for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dialogkit.testing.report import format_failure, write_junit
from dialogkit.testing.runner import run_file
from tests.testing.conftest import WriteTests

pytestmark = pytest.mark.usefixtures("use_fake_bot")

FAILING = """
    bot: bot.yaml
    tests:
      - name: zh wrong slot
        steps:
          - user: 我的手机碎了
            expect: {state: PARAM_COLLECT}
          - user: 123456
            expect: {state: CONFIRMATION, slots: {product: laptop}, bot: "/^已创建/"}
      - name: en passes
        steps:
          - user: my phone is broken
            expect: {bot: order number}
"""


class TestFailureText:
    def test_shows_step_expected_actual_and_transcript(self, write_tests: WriteTests) -> None:
        """The reader sees the failing step, each broken key, and every turn so far (zh and en)."""
        result = run_file(write_tests(FAILING)).results[0]
        text = format_failure(result)
        assert text.splitlines()[0].endswith("::zh wrong slot (line 3)")
        assert "  step 2 (line 7): user: 123456" in text
        assert 'slots.product:\n      expected: "laptop"\n      actual:   "phone"' in text
        assert 'bot:\n      expected: "/^已创建/"' in text
        assert "note:     no match for the regular expression" in text
        assert "state:" not in text.split("transcript:")[0]     # only the keys that broke are listed
        transcript = text.split("transcript:")[1]
        assert "1. user: 我的手机碎了\n       bot:  请提供您的订单号。" in transcript
        assert "state: CONFIRMATION  flow: report_issue" in transcript
        assert '"order_id": "123456"' in transcript

    def test_session_and_restart_are_marked_in_the_transcript(self, write_tests: WriteTests) -> None:
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: restart marks
                steps:
                  - user: my phone is broken
                  - user: 我的笔记本坏了
                    session: other
                    restart: true
                    expect: {state: IDLE}
        """)
        text = format_failure(run_file(path).results[0])
        assert "2. [after restart, session other] user: 我的笔记本坏了" in text

    def test_passing_state_is_not_reported_as_a_mismatch(self, write_tests: WriteTests) -> None:
        """Keys that held are not listed among the mismatches of the failed step."""
        result = run_file(write_tests(FAILING)).results[0]
        assert [m.key for m in result.failure.mismatches] == ["slots.product", "bot"]


class TestJUnit:
    def test_junit_xml_lists_each_test_with_failures(self, write_tests: WriteTests, tmp_path: Path) -> None:
        results = [run_file(write_tests(FAILING))]
        broken = write_tests("bot: bot.yaml\ntests: [{name: t, steps: [{expect: {}}]}]\n", name="test_broken.yaml")
        results.append(run_file(broken))
        out = tmp_path / "reports" / "junit.xml"
        write_junit(results, out)
        root = ET.parse(out).getroot()
        assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
        cases = root.findall(".//testcase")
        assert [c.get("name") for c in cases] == ["zh wrong slot", "en passes", "(load)"]
        failure = cases[0].find("failure")
        assert failure is not None and failure.get("message") == "step 2: slots.product, bot"
        assert "transcript:" in (failure.text or "")
        assert cases[1].find("failure") is None
        error = cases[2].find("error")
        assert error is not None and "a step needs `user:`" in (error.text or "")
