"""`make bench`: run every benchmark in this folder and write bench/RESULTS.md."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

BENCHES = ["turn", "peer", "savings", "scaling", "counting", "cold", "serve", "corpus", "vocab"]


def main() -> int:
    for name in BENCHES:
        if not (HERE / f"{name}.py").exists():
            continue
        print(f"== bench/{name}.py", flush=True)
        importlib.import_module(name).main([])
        print(flush=True)
    print(f"results written to {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
