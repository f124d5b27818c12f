"""The crash harness: ``kill -9`` a bot process at random points, then check what it left.

A forked child confirms one support ticket after another on a real store (SQLite, and Redis when
``DIALOGKIT_TEST_REDIS_URL`` is set), its action sleeping a moment so kills often land between
the action and the turn's commit. Each run of the action appends its idempotency key to a file
(one ``O_APPEND`` write: it survives the kill). After every kill a new child goes on where the
last one stopped, first saying "yes" again to the session it was in. At the end:

- every session loads;
- no key of a plain action ran twice (docs/bot-file.md, "Actions run at most once");
- an ``idempotent=True`` action ran again only under the same key, and its task completed.

``DIALOGKIT_CRASH_KILLS`` sets the number of kills (50 by default; ``make`` targets may ask for
more). The counts are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import LoadedBot, load_bot_file
from dialogkit.actions.registry import ActionContext, action
from dialogkit.engine.execution import OUTCOME_UNKNOWN
from dialogkit.logging import configure_logging
from dialogkit.store import SessionStore, open_store
from tests.store.factories import REDIS_URL, needs_redis

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
KILLS = int(os.environ.get("DIALOGKIT_CRASH_KILLS", "50"))
START = {"zh": "我的手机碎了，订单号 {n}", "en": "my phone arrived broken, order {n}"}
YES = {"zh": "确认", "en": "yes"}

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks its children")


def _record_run(ctx: ActionContext) -> dict[str, Any]:
    fd = os.open(os.environ["DK_CRASH_RUNS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"{ctx.idempotency_key}\n".encode())
    finally:
        os.close(fd)
    time.sleep(0.003)                      # the window between the run and the commit, widened
    return {"ticket_id": f"T-{ctx.session_id}"}


def plain_action(ctx: ActionContext) -> dict[str, Any]:
    return _record_run(ctx)


@action("create_ticket_crash_harness", idempotent=True)
def idempotent_action(ctx: ActionContext) -> dict[str, Any]:
    return _record_run(ctx)


Opener = Callable[[], SessionStore]


def _child(loaded: LoadedBot, opener: Opener, progress: Path, ready: Any) -> None:
    """Confirm tickets forever: resume the last session, then one new session after another."""
    configure_logging(level="error", force=True)          # the expected warnings, unprinted
    bot = Bot(loaded, opener())
    lines = progress.read_text().split() if progress.exists() else []
    n = int(lines[-1]) if lines else 0
    lang = "zh" if n % 2 else "en"
    bot.handle(f"s{n}", YES[lang], user_id="u")            # the session a kill may have cut short
    ready.set()
    while True:
        n += 1
        with progress.open("a") as handle:
            handle.write(f"{n}\n")
        lang = "zh" if n % 2 else "en"
        bot.handle(f"s{n}", START[lang].format(n=10000 + n), user_id="u")
        bot.handle(f"s{n}", YES[lang], user_id="u")
        bot.handle(f"s{n}", YES[lang], user_id="u")      # a repeated "yes" never runs it again


def _warm_up(loaded: LoadedBot) -> None:
    """One conversation in this process first, so each child starts with the modules imported and
    the caches filled, and spends its short life on turns."""
    bot = Bot(loaded, open_store("memory://"))
    for lang in ("zh", "en"):
        bot.handle(f"warm-{lang}", START[lang].format(n=99999), user_id="u")
        bot.handle(f"warm-{lang}", YES[lang], user_id="u")
    bot.close()


def _kill_many(loaded: LoadedBot, opener: Opener, tmp: Path, kills: int) -> int:
    """Fork, let it work a random moment, SIGKILL, reap; ``kills`` times. The sessions made."""
    fork = multiprocessing.get_context("fork")
    _warm_up(loaded)
    progress = tmp / "progress"
    rng = random.Random(15)
    for _ in range(kills):
        ready = fork.Event()
        child = fork.Process(target=_child, args=(loaded, opener, progress, ready), daemon=True)
        child.start()
        assert ready.wait(30), "the child never started"
        time.sleep(rng.uniform(0.005, 0.08))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
    lines = progress.read_text().split() if progress.exists() else ["0"]
    return int(lines[-1])


def _check(loaded: LoadedBot, opener: Opener, tmp: Path, sessions: int) -> tuple[Counter[str], int]:
    """Every session loads; the runs per key and how many tasks ended with an unknown outcome."""
    runs = Counter((tmp / "runs").read_text().split()) if (tmp / "runs").exists() else Counter()
    bot = Bot(loaded, opener())
    unknown = 0
    try:
        for n in range(sessions + 1):
            session = bot.store.load(f"s{n}", history_tail=None)      # raises on a corrupt session
            if session is None:
                continue
            unknown += sum(1 for r in session.executed.values() if r.get("error") in OUTCOME_UNKNOWN.values())
    finally:
        bot.close()
    return runs, unknown


def _opener(kind: str, tmp: Path) -> Opener:
    """Opens the store each process uses: one SQLite file, or one fresh Redis key prefix."""
    if kind == "sqlite":
        return lambda: open_store(f"sqlite:///{tmp / 'sessions.db'}")
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    url, prefix = REDIS_URL, f"dkcrash:{uuid.uuid4().hex[:8]}:"
    return lambda: RedisStore(url, prefix=prefix)


STORES = pytest.mark.parametrize("kind", ["sqlite", pytest.param("redis", marks=needs_redis)])


@STORES
def test_no_plain_action_runs_twice_over_many_kills(kind: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DK_CRASH_RUNS", str(tmp_path / "runs"))
    loaded = load_bot_file(SUPPORT, actions={"create_ticket": plain_action})
    opener = _opener(kind, tmp_path)
    sessions = _kill_many(loaded, opener, tmp_path, KILLS)
    runs, unknown = _check(loaded, opener, tmp_path, sessions)
    doubles = sum(1 for count in runs.values() if count > 1)
    print(f"\ncrash harness ({kind}, plain action): {KILLS} kills, {sessions} sessions, "
          f"{sum(runs.values())} runs, {unknown} outcomes unknown after a kill, {doubles} double runs")
    assert doubles == 0
    assert sessions > KILLS // 2                     # the children did real work between kills


@STORES
def test_an_idempotent_action_is_rerun_only_under_its_key(kind: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DK_CRASH_RUNS", str(tmp_path / "runs"))
    loaded = load_bot_file(SUPPORT, actions={"create_ticket": idempotent_action})
    opener = _opener(kind, tmp_path)
    sessions = _kill_many(loaded, opener, tmp_path, max(10, KILLS // 5))
    runs, unknown = _check(loaded, opener, tmp_path, sessions)
    reruns = sum(count - 1 for count in runs.values())
    print(f"\ncrash harness ({kind}, idempotent action): {sessions} sessions, {reruns} re-runs under the same key")
    assert unknown == 0                              # never "being checked": it was simply run again
