"""Reading and validating conversation test files (the format docs/testing.md describes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.errors import FlowError, Problem
from dialogkit.testing.cases import iter_test_files, load_test_file
from tests.testing.conftest import WriteTests


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(FlowError) as caught:
        load_test_file(path)
    return caught.value.problems


class TestReading:
    def test_documented_example_loads(self, write_tests: WriteTests) -> None:
        """The example test file of docs/testing.md reads into cases with the bot path made absolute."""
        path = write_tests("""
            bot: bot.yaml
            actions:
              create_ticket: {ticket_id: T-1001}
              order_status: {status: 已发货}
            tests:
              - name: damaged phone, zh happy path
                user_id: alice
                steps:
                  - user: 我上周买的手机屏幕碎了
                    expect: {flow: report_issue, state: PARAM_COLLECT, bot: 订单号}
                  - user: 123456
                    expect: {state: CONFIRMATION, slots: {order_id: "123456"}}
        """)
        test_file = load_test_file(path)
        assert test_file.bot == (path.parent / "bot.yaml").resolve()
        assert test_file.actions == {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "已发货"}}
        case = test_file.tests[0]
        assert (case.name, case.user_id, case.line) == ("damaged phone, zh happy path", "alice", 6)
        assert case.steps[0].expect == {"flow": "report_issue", "state": "PARAM_COLLECT", "bot": "订单号"}

    @pytest.mark.parametrize(("written", "text"), [
        ("123456", "123456"), ("0123", "0123"), ("1.50", "1.50"), ("yes", "yes"), ("no", "no"),
        ("on", "on"), ("off", "off"), ("确认", "确认"), ("'007'", "007"),
    ])
    def test_user_text_is_kept_as_written(self, write_tests: WriteTests, written: str, text: str) -> None:
        """YAML 1.2, and numbers in their written form: `user: 0123` says "0123", `yes` says "yes"."""
        path = write_tests(f"""
            bot: bot.yaml
            tests:
              - name: t
                steps:
                  - user: {written}
        """)
        assert load_test_file(path).tests[0].steps[0].user == text

    def test_session_and_restart_steps(self, write_tests: WriteTests) -> None:
        """`session: NAME` and `restart: true` are read per step; restart defaults to false."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: persistence across a restart
                steps:
                  - user: 我的手机碎了
                  - user: my phone is broken
                    session: second
                    restart: true
        """)
        first, second = load_test_file(path).tests[0].steps
        assert (first.session, first.restart) == (None, False)
        assert (second.session, second.restart) == ("second", True)

    def test_expected_slot_values_keep_their_written_form(self, write_tests: WriteTests) -> None:
        """Numbers in `slots` stay as written so "0123" is never read as 123; null means unset."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: t
                steps:
                  - user: 订单 0123
                    expect: {slots: {order_id: 0123, amount: 150, note: null, urgent: true}}
        """)
        slots = load_test_file(path).tests[0].steps[0].expect["slots"]
        assert slots == {"order_id": "0123", "amount": "150", "note": None, "urgent": True}

    def test_directories_are_searched_recursively(self, tmp_path: Path) -> None:
        """A directory yields every test_*.yaml below it, sorted; other YAML files are left alone."""
        for name in ("a/test_one.yaml", "a/b/test_two.yaml", "a/bot.yaml", "a/.hidden/test_x.yaml"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text("", encoding="utf-8")
        found = [p.relative_to(tmp_path).as_posix() for p in iter_test_files([tmp_path / "a"])]
        assert found == ["a/b/test_two.yaml", "a/test_one.yaml"]


class TestValidation:
    def test_unknown_keys_are_reported_with_position_and_suggestion(self, write_tests: WriteTests) -> None:
        """Misspelt keys at every level come back as file:line:col with a "did you mean"."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: t
                stpes: []
              - name: u
                steps:
                  - user: hello
                    expcet: {state: IDLE}
                  - user: 你好
                    expect: {stat: IDLE}
        """)
        found = {(p.line, p.col, p.message, p.hint) for p in problems_of(path)}
        assert (4, 5, "unknown key `stpes` in a test", "did you mean `steps`?") in found
        assert (8, 9, "unknown key `expcet` in a step", "did you mean `expect`?") in found
        assert (10, 18, "unknown key `stat` in `expect`", "did you mean `state`?") in found
        assert any(p.message == "a test needs `steps`" for p in problems_of(path))

    def test_step_without_user_is_reported(self, write_tests: WriteTests) -> None:
        """A step must say something: a missing `user:` is a positioned problem, zh or en alike."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: zh
                steps:
                  - expect: {state: IDLE}
              - name: en
                steps:
                  - user:
        """)
        problems = problems_of(path)
        assert str(problems[0]).startswith(f"{path}:5:9: a step needs `user:`")
        assert (problems[1].line, problems[1].message) == (8, "`user` must be text")

    def test_every_problem_is_listed_at_once(self, write_tests: WriteTests) -> None:
        """Bad values of several keys are all reported in one FlowError, not one at a time."""
        path = write_tests("""
            bot: missing.yaml
            tests:
              - name: t
                steps:
                  - user: hi
                    restart: maybe
                    expect:
                      state: PARAM_COLECT
                      bot: "/([unclosed/"
                      clarify: perhaps
                      max_context_tokens: -1
              - name: t
                steps: []
        """)
        messages = [p.message for p in problems_of(path)]
        assert messages[0].startswith("bot file not found")
        assert "`restart` must be true or false" in messages
        assert "unknown state `PARAM_COLECT`" in messages
        assert any(m.startswith("bad regular expression in `bot`") for m in messages)
        assert "`clarify` must be true, false, or the list of candidates" in messages
        assert "`max_context_tokens` must be a whole number of tokens" in messages
        assert "a test needs at least one step" in messages
        assert "duplicate test name `t`" in messages

    def test_options_are_a_list_of_texts_or_regular_expressions(self, write_tests: WriteTests) -> None:
        """`options:` lists the quick replies; a single text or a bad /regex/ in it is a problem."""
        path = write_tests("""
            bot: bot.yaml
            tests:
              - name: t
                steps:
                  - user: hi
                    expect: {options: 确认}
                  - user: hi
                    expect: {options: [确认, "/([unclosed/"]}
        """)
        messages = [p.message for p in problems_of(path)]
        assert messages[0] == "`options` must be a list: the quick replies offered, in order"
        assert messages[1].startswith("bad regular expression in `options`")

    def test_bad_stub_is_reported(self, write_tests: WriteTests) -> None:
        """A stub is a mapping of returned values or {error: message}; anything else is a problem."""
        path = write_tests("""
            bot: bot.yaml
            actions:
              create_ticket: T-1001
              order_status: {error: [not, text]}
            tests:
              - name: t
                steps: [{user: hi}]
        """)
        messages = [p.message for p in problems_of(path)]
        assert messages == ["the stub of `create_ticket` must be a mapping of the values it returns",
                            "the `error` of stub `order_status` must be text"]

    def test_invalid_yaml_has_a_position(self, write_tests: WriteTests) -> None:
        """A syntax error is reported where the parser found it, not as a traceback."""
        path = write_tests("bot: bot.yaml\ntests:\n  - name: [unclosed\n")
        (problem,) = problems_of(path)
        assert problem.message.startswith("invalid YAML")
        assert problem.line == 4

    def test_missing_top_level_keys(self, write_tests: WriteTests) -> None:
        """`bot:` and `tests:` are required."""
        path = write_tests("actions: {}\n")
        assert [p.message for p in problems_of(path)] == ["missing `bot:`", "missing `tests:`"]
