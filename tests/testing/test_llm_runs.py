"""k-of-n runs of an LLM path (docs/testing.md): a seeded, deliberately unreliable scripted server.

``Unreliable`` answers 40% of the requests wrongly (the model "hears" chit-chat), drawn from a
seeded generator, so every outcome below is fixed: seed 54 draws ``.F...`` for the first test,
``F..F.`` for the second and ``..F..`` for the third (one LLM call per run).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from dialogkit.cli import app
from dialogkit.cli.test_cmd import test_command
from dialogkit.logging import configure_logging
from dialogkit.testing.factory import LLMOptions
from dialogkit.testing.llm_server import ScriptedLLMServer, Unreliable
from dialogkit.testing.runner import run_file

ROOT = Path(__file__).parents[2]
ORDERS = Path(__file__).parent / "llm_runs" / "orders_news.yaml"
SEED = 54
RIGHT = {"commands": [{"command": "start_flow", "flow": "check_status"},
                      {"command": "set_slot", "slot": "order_id", "value": "67890"}]}
WRONG = {"commands": [{"command": "chit_chat"}]}
RUNS = {
    "any news, en": (True, False, True, True, True),       # 4/5, 3 needed: passes, flaky
    "any news, zh": (False, True, True, False, True),      # 3/5, 3 needed: passes at min_pass, flaky
    "every run must pass": (True, True, False, True, True),  # 4/5, 5 needed: fails, flaky
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLMServer]:
    """The unreliable server, with a key in the environment and the bot's actions module importable."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with ScriptedLLMServer(Unreliable(lambda body: RIGHT, wrong=WRONG, rate=0.4, seed=SEED)) as running:
        yield running


def draws(server: ScriptedLLMServer) -> list[bool]:
    script = server._script
    assert isinstance(script, Unreliable)
    return script.draws


def test_each_test_passes_when_min_pass_of_its_runs_pass(server: ScriptedLLMServer) -> None:
    result = run_file(ORDERS, llm=LLMOptions(base_url=server.base_url))
    assert not result.problems
    assert {r.name: r.runs for r in result.results} == RUNS
    assert [(r.passes, r.min_pass, r.passed, r.flaky) for r in result.results] == [
        (4, 3, True, True), (3, 3, True, True), (4, 5, False, True)]
    assert (result.passed, result.failed, result.flaky) == (2, 1, 3)
    # One understanding call per run, and each run's outcome is its draw: the LLM decided it.
    assert draws(server) == [ok for runs in RUNS.values() for ok in runs]
    failed = result.results[2].failure
    assert failed is not None and failed.step == 1 and [m.key for m in failed.mismatches] == ["action"]


def test_without_llm_the_rules_answer_and_the_server_is_never_asked(server: ScriptedLLMServer) -> None:
    result = run_file(ORDERS)
    assert [r.runs for r in result.results] == [(False,) * 5] * 3
    assert not any(r.flaky for r in result.results) and result.failed == 3
    assert server.requests == []


@pytest.fixture
def quiet_logs() -> Iterator[None]:
    """Logging as `dialogkit test` sets it (errors only, so the bots' warnings stay off stdout), then as it was."""
    saved = structlog.get_config()
    configure_logging(level="error", force=True)
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("quiet_logs")
def test_the_command_prints_pass_counts_and_flags_flaky_tests(server: ScriptedLLMServer, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "report.xml"
    code = test_command([ORDERS], junit, None, False, llm=True, base_url=server.base_url)
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    assert code == 1
    assert lines[0].endswith("orders_news.yaml ..F 2 passed, 1 failed")
    assert lines[1:4] == [
        "  any news, en: 4/5 passed, 3 needed [.F...]  flaky",
        "  any news, zh: 3/5 passed, 3 needed [F..F.]  flaky",
        "  every run must pass: 4/5 passed, 5 needed [..F..]  FAILED, flaky",
    ]
    assert any(line.endswith("::every run must pass (line 20): 4/5 runs passed, 5 needed") for line in lines)
    assert "  run 3 of 5:" in lines
    assert lines[-1] == "2 passed, 1 failed, 3 flaky"
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    properties = {name: {p.get("name"): p.get("value") for p in case.iter("property")} for name, case in cases.items()}
    assert properties["any news, zh"] == {"passes": "3/5", "min_pass": "3", "flaky": "true"}
    assert cases["any news, zh"].find("failure") is None
    failure = cases["every run must pass"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("4/5 runs passed, 5 needed; step 1: action")


@pytest.mark.usefixtures("quiet_logs")
def test_command_line_repeat_applies_where_no_test_or_file_sets_one(
        server: ScriptedLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file and the test keep their own pairs; --repeat reaches only a file that sets none."""
    plain = tmp_path / "plain.yaml"
    text = ORDERS.read_text(encoding="utf-8").replace("bot: ../../../", f"bot: {ROOT}/")
    plain.write_text(text.replace("repeat: 5                  #", "#").replace("min_pass: 3                #", "#"),
                     encoding="utf-8")
    code = test_command([plain], None, "zh", False, llm=True, base_url=server.base_url, repeat=4, min_pass=2)
    out = capsys.readouterr().out
    assert code == 0 and "any news, zh: 3/4 passed, 2 needed [.F..]  flaky" in out


def test_llm_without_a_key_fails_each_test_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = run_file(ORDERS, llm=LLMOptions(base_url="http://127.0.0.1:9/v1"), keyword="en")
    failure = result.results[0].failure
    assert failure is not None and failure.step == 0 and "--llm: the bot has no LLM" in (failure.error or "")


def test_the_bot_files_llm_block_is_used_with_llm_only(server: ScriptedLLMServer, tmp_path: Path) -> None:
    """A bot file's own llm: block: the tests stay on the rules without --llm, and use it with."""
    bot = tmp_path / "bot.yaml"
    bot.write_text((ROOT / "flows" / "support_ticket.yaml").read_text(encoding="utf-8")
                   + f"\nllm:\n  base_url: {server.base_url}\n  use_for: [understanding]\n", encoding="utf-8")
    tests = tmp_path / "news.yaml"
    tests.write_text(ORDERS.read_text(encoding="utf-8").replace("../../../flows/support_ticket.yaml", str(bot)),
                     encoding="utf-8")
    assert run_file(tests, keyword="en").failed == 1 and server.requests == []
    assert run_file(tests, keyword="en", llm=LLMOptions()).results[0].runs == RUNS["any news, en"]


@pytest.mark.parametrize(("options", "message"), [
    ({"repeat": 3, "min_pass": 4}, "--min-pass (4) is more than --repeat (3)"),
    ({"min_pass": 2}, "--min-pass needs --repeat beside it"),
    ({"repeat": 0}, "--repeat must be from 1 to 1000, not 0"),
    ({"base_url": "http://localhost:8000/v1"}, "--base-url and --model choose the LLM of --llm"),
])
def test_wrong_options_exit_2(options: dict[str, Any], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert test_command([ORDERS], None, None, False, **options) == 2
    assert message in capsys.readouterr().err



@pytest.mark.usefixtures("quiet_logs")
def test_the_dialogkit_command_takes_llm_repeat_and_min_pass(server: ScriptedLLMServer) -> None:
    """The options reach the runner through the real command line, not only through test_command."""
    argv = ["test", str(ORDERS), "-k", "zh", "--llm", "--base-url", server.base_url, "--repeat", "4", "--min-pass", "2"]
    ran = CliRunner().invoke(app, argv)
    assert ran.exit_code == 0, ran.output
    # the file's own pair (5, 3) wins over the options; the seeded draws start afresh: .F...
    assert "any news, zh: 4/5 passed, 3 needed [.F...]  flaky" in ran.output


def test_the_dialogkit_command_refuses_min_pass_over_repeat() -> None:
    ran = CliRunner().invoke(app, ["test", str(ORDERS), "--repeat", "3", "--min-pass", "4"])
    assert ran.exit_code == 2 and "--min-pass (4) is more than --repeat (3)" in ran.output
