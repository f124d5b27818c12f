"""The pytest plugin: test_*.yaml files become one item per test, with the harness's failure text."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.testing.conftest import BOT_FILE

CONFTEST = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from dialogkit.testing import runner
from tests.testing.fake_bot import FakeBot
runner.open_bot = FakeBot.from_file
"""

TESTS = f"""
bot: {BOT_FILE}
actions:
  create_ticket: {{ticket_id: T-1001}}
tests:
  - name: zh ticket
    tags: [smoke]
    steps:
      - user: 订单 123456 的手机碎了
        expect: {{state: CONFIRMATION}}
      - user: 确认
        expect: {{bot: T-1001}}
  - name: en wrong state
    steps:
      - user: my phone is broken
        expect: {{state: IDLE}}
"""


def pytest_run(tmp_path: Path, *args: str, tests: str = TESTS) -> subprocess.CompletedProcess[str]:
    """Run pytest in a fresh process, the way a user's CI would (the plugin loads by entry point)."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST), encoding="utf-8")
    (tmp_path / "convos").mkdir(exist_ok=True)
    (tmp_path / "convos" / "test_support.yaml").write_text(tests, encoding="utf-8")
    (tmp_path / "convos" / "bot.yaml").write_text("not: a test file\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(tmp_path), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def test_one_item_per_test_with_harness_failure_text(tmp_path: Path) -> None:
    result = pytest_run(tmp_path)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "PASSED convos/test_support.yaml::zh ticket" in out
    assert "FAILED convos/test_support.yaml::en wrong state" in out
    assert 'expected: "IDLE"' in out and 'actual:   "PARAM_COLLECT"' in out
    assert "1. user: my phone is broken" in out
    assert "1 failed, 1 passed" in out


def test_keyword_and_markers_select_items(tmp_path: Path) -> None:
    by_keyword = pytest_run(tmp_path, "-k", "zh")
    assert by_keyword.returncode == 0 and "1 passed, 1 deselected" in by_keyword.stdout
    by_marker = pytest_run(tmp_path, "-m", "not smoke")
    assert by_marker.returncode == 1 and "1 failed, 1 deselected" in by_marker.stdout


def test_invalid_file_is_a_collection_error_with_positions(tmp_path: Path) -> None:
    broken = f"bot: {BOT_FILE}\ntests:\n  - name: t\n    steps:\n      - expct: {{}}\n"
    result = pytest_run(tmp_path, tests=broken)
    assert result.returncode == 2, result.stdout
    assert "test_support.yaml:5:9: unknown key `expct` in a step" in result.stdout
