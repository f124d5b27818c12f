"""No regular expression run on user text backtracks catastrophically (issue 15, item 2).

A child process feeds 64 KB of each character class to every module-level pattern of
understanding/, memory/, engine/ (the rule summary, the context view), context/, strings/ (the
e-mail and phone detectors that mask logs), text/ and llm/ (the rephrasing check), then to the shipped bots (one long turn,
then five short ones, so a summary is folded over the stored text). The work is bounded by a
generous timeout on the child, never by a timed assertion in this process: a quadratic pattern
takes minutes on 64 KB, a linear one a fraction of a second.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120

CHILD = r'''
import importlib, pkgutil, re
import dialogkit.context, dialogkit.engine, dialogkit.llm, dialogkit.memory, dialogkit.strings, dialogkit.text
import dialogkit.understanding
from dialogkit.bot import Bot

packages = (dialogkit.understanding, dialogkit.memory, dialogkit.engine, dialogkit.context, dialogkit.strings,
            dialogkit.text, dialogkit.llm)
modules = [importlib.import_module(f"{pkg.__name__}.{info.name}")
           for pkg in packages for info in pkgutil.iter_modules(pkg.__path__)]
patterns = [value for module in modules for value in vars(module).values() if isinstance(value, re.Pattern)]
units = ["a", "Z", "1", "１", " ", "-", ".", "订", "@", "a1-", "\n", "😀", "é", "_", "that ", "那个", "三", "http://x/",
         "a@", "1.", "www."]
for unit in units:
    text = unit * (65536 // len(unit))
    for pattern in patterns:
        pattern.findall(text)
        pattern.match(text)
for path in ["flows/support_ticket.yaml", "flows/meeting.yaml"]:
    bot = Bot.from_file(path, store="memory://")
    for unit in units:
        session = "budget-" + unit
        bot.handle(session, "我的手机屏幕碎了")
        bot.handle(session, unit * (65536 // len(unit)))
        for short in ["好的", "12345", "ok", "嗯", "yes"]:
            bot.handle(session, short)
print(f"{len(patterns)} patterns, {len(units)} classes")
'''


def test_64_kb_of_each_character_class_is_read_in_bounded_time() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "patterns" in done.stdout
