"""A failing conversation test prints why the bot answered each turn so, beside the transcript:
in ``dialogkit test``, under pytest (the plugin) and from Python (``ConversationFailure``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dialogkit.testing import conversation

ROOT = Path(__file__).parents[2]
SUPPORT_BOT = ROOT / "flows" / "support_ticket.yaml"
DIALOGKIT = ROOT / ".venv" / "bin" / "dialogkit"
CASES = pytest.mark.parametrize(("first", "correction", "why"), [
    ("我的手机坏了", "不对，是耳机", "why:  correction → corrected product: phone → headphones (耳机)"),
    ("my phone arrived broken", "no, it was the headphones",
     "why:  correction → corrected product: phone → headphones (headphones)"),
])


def failing_file(tmp_path: Path, first: str, correction: str) -> Path:
    path = tmp_path / "test_why.yaml"
    path.write_text(f"""bot: {SUPPORT_BOT}
actions:
  create_ticket: {{ticket_id: T-1001}}
tests:
  - name: wrong product
    steps:
      - user: {first}
      - user: "12345"
      - user: {correction}
        expect: {{slots: {{product: phone}}}}
""", encoding="utf-8")
    return path


@CASES
def test_dialogkit_test_prints_why_under_each_turn(tmp_path: Path, first: str, correction: str, why: str) -> None:
    result = subprocess.run([str(DIALOGKIT), "test", str(failing_file(tmp_path, first, correction))], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert why in out
    assert "why:  intent_keyword → started report_issue" in out      # the first turn's, in its place
    assert out.index("1. user:") < out.index("why:  intent_keyword") < out.index("2. user:")


@CASES
def test_the_pytest_plugin_prints_why_under_each_turn(tmp_path: Path, first: str, correction: str, why: str) -> None:
    failing_file(tmp_path, first, correction)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert why in result.stdout


@CASES
def test_a_failed_expectation_in_python_prints_why(first: str, correction: str, why: str) -> None:
    with conversation(SUPPORT_BOT, actions={"create_ticket": {"ticket_id": "T-1001"}}) as talk:
        talk.say(first)
        talk.say("12345")
        talk.say(correction)
        with pytest.raises(AssertionError) as failure:
            talk.expect(slots={"product": "phone"})
    assert why in str(failure.value)
