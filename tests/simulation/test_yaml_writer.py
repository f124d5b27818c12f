"""A violation saved with ``--save`` is a conversation test that replays the same turns and
expects the correct behaviour at the step that broke."""

from __future__ import annotations

from pathlib import Path

from dialogkit.simulation.harness import Violation
from dialogkit.simulation.invariants import INVARIANTS
from dialogkit.simulation.invariants.base import Finding
from dialogkit.simulation.yaml_writer import conversation_test, write_conversation_test
from dialogkit.testing import load_test_file, run_file
from tests.simulation._records import SUPPORT, record, reply, utterance

STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "S-1001"}}


def _violation(expect: dict[str, object]) -> Violation:
    turns = (record(utterance("yes", "yes", "en"), reply("There is no task in progress.", language="en")),
             record(utterance("我的包裹没收到", "trigger", flow="report_issue"),
                    reply("请提供您的订单号。", state="PARAM_COLLECT", flow="report_issue"), index=1))
    return Violation(INVARIANTS[2], Finding("started_a_flow", "a made-up finding", expect), turns)


def test_the_file_holds_the_turns_the_stubs_and_the_bot_relative_to_the_folder(tmp_path: Path) -> None:
    text = conversation_test([_violation({"state": "IDLE"})], SUPPORT, tmp_path / "out", STUBS, "header")
    assert text.startswith("# header\n")
    assert '  - user: "yes"' in text.replace("      ", "  ")        # quoted: YAML reads it as the text "yes"
    assert 'expect: {state: "IDLE"}' in text
    path = write_conversation_test([_violation({"state": "IDLE"})], SUPPORT, tmp_path / "out", STUBS,
                                   "support", "header")
    loaded = load_test_file(path)
    assert loaded.bot == SUPPORT.resolve() and loaded.actions == STUBS
    case = loaded.tests[0]
    assert [s.user for s in case.steps] == ["yes", "我的包裹没收到"]
    assert case.steps[-1].expect == {"state": "IDLE"} and case.steps[0].expect == {}


def test_the_saved_test_fails_while_the_behaviour_is_broken_and_passes_when_it_holds(tmp_path: Path) -> None:
    broken = write_conversation_test([_violation({"state": "IDLE"})], SUPPORT, tmp_path, STUBS, "a", "h")
    assert run_file(broken).failed == 1                      # the bot does start the flow
    holds = write_conversation_test([_violation({"state": "PARAM_COLLECT", "bot": "订单号"})], SUPPORT, tmp_path,
                                    STUBS, "b", "h")
    assert run_file(holds).passed == 1


def test_nested_expectations_and_regular_expressions_survive_yaml(tmp_path: Path) -> None:
    expect: dict[str, object] = {"slots": {"order_id": None, "product": "phone"}, "bot": "/^(?![\\s\\S]*(?i:phone))/"}
    path = write_conversation_test([_violation(expect)], SUPPORT, tmp_path, STUBS, "c", "h")
    assert load_test_file(path).tests[0].steps[-1].expect == expect
