"""The rule summary reads stored user text in time linear in its length, whatever the text.

A child process summarises 64 KB of each character class, and of the separators the summary
splits on followed by long runs, as folding would after a hostile turn. The bound is a generous
timeout on the child, not a timed assertion here: a quadratic pattern takes minutes on 64 KB.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120

CHILD = r'''
from dialogkit.engine.rule_summary import rule_summary

def values_in(text):
    return [("phone", "手机")] if "手机" in text else []

units = ["a", "1", " ", "-", "a1-", "，", ",", ", ", "， ", "；", "; ", "用户：", "Bot: ", ", Bot", "订", "😀", "\n", "()"]
size = 65536
for unit in units:
    for text in (unit * (size // len(unit)), "，" + unit * (size // len(unit)), "用户：" + unit * (size // len(unit))):
        for lang in ("zh", "en"):
            rule_summary(values_in, [text, "用户：手机 12345；助手：好的"], lang)
print("done", len(units))
'''


def test_64_kb_of_any_class_is_summarised_in_bounded_time() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("done")
