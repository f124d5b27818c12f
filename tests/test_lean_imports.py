"""A serving process imports only what its bot file uses: memory is the cost of every worker.

A bot file the fast reader reads never needs ruamel.yaml (kept for positioning problems and for
conversation test files), and a bot with no type that reads typos (``fuzzy: N``) never needs
rapidfuzz. Turns in both languages keep it that way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ruamel", "rapidfuzz")

TURNS = """
import sys, tempfile
from pathlib import Path
from dialogkit import Bot
bot = Bot.from_file({bot!r}, store="sqlite:///" + str(Path(tempfile.mkdtemp()) / "s.db"))
for text in ("我上周买的手机屏幕碎了", "123456", "确认", "my laptop arrived broken", "order 67890", "yes"):
    bot.handle("s", text)
print(sorted({{name.split(".")[0] for name in sys.modules}} & set({heavy!r})))
"""


def _loaded(bot: Path) -> str:
    code = TURNS.format(bot=str(bot), heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return out.stdout.strip().splitlines()[-1]


def test_a_clean_bot_file_without_typo_reading_loads_neither_ruamel_nor_rapidfuzz() -> None:
    assert _loaded(ROOT / "flows" / "support_ticket.yaml") == "[]"


def test_a_type_that_reads_typos_loads_rapidfuzz(tmp_path: Path) -> None:
    text = (ROOT / "flows" / "support_ticket.yaml").read_text(encoding="utf-8")
    fuzzy = text.replace("entities:\n", "entities:\n  drink:\n    fuzzy: 1\n    values:\n      latte: [latte]\n", 1)
    assert fuzzy != text
    bot = tmp_path / "fuzzy.yaml"
    bot.write_text(fuzzy, encoding="utf-8")
    assert _loaded(bot) == "['rapidfuzz']"
