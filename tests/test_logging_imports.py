"""structlog is imported in one place, without the optional extras dialogkit never uses."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dialogkit"
TEST_HELPERS = {PACKAGE / "testing" / "logs.py"}
"""Captures events for tests through ``structlog.testing``; a test process loads rich anyway."""

TURN = """
import sys, tempfile
from pathlib import Path
from dialogkit import Bot
bot = Bot.from_file({bot!r}, store="sqlite:///" + str(Path(tempfile.mkdtemp()) / "s.db"))
for text in ("我上周买的手机屏幕碎了", "123456", "确认", "my laptop arrived broken", "order 67890", "yes"):
    bot.handle("s", text)
print(sorted(name for name in ("rich", "pygments", "greenlet") if name in sys.modules))
import rich.console
print("rich", rich.console.Console is not None)
"""


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return out.stdout.splitlines()


def _imports_structlog(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "structlog" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "structlog":
            return True
    return False


class TestOnePlaceImportsStructlog:
    def test_no_module_but_dialogkit_logging_imports_structlog(self) -> None:
        offenders = [str(p.relative_to(ROOT)) for p in sorted(PACKAGE.rglob("*.py"))
                     if p != PACKAGE / "logging.py" and p not in TEST_HELPERS and _imports_structlog(p)]
        assert offenders == [], "use dialogkit.logging.get_logger instead"


class TestExtrasStayOut:
    def test_turns_in_both_languages_load_neither_rich_nor_greenlet(self) -> None:
        lines = _run(TURN.format(bot=str(ROOT / "flows" / "support_ticket.yaml")))
        assert lines == ["[]", "rich True"]

    def test_a_process_that_already_has_rich_keeps_rich_tracebacks_in_structlog(self) -> None:
        lines = _run("import rich\nimport dialogkit.logging, structlog.dev\nprint(structlog.dev.rich is not None)")
        assert lines == ["True"]
