"""The concurrency harness: several bot processes on one SQLite file, and on one Redis, at once.

Each of ``PROCESSES`` forked workers is its own user, with an order number of its own, and talks
on its own sessions and on one session all of them share (the shared one under one user, so no
ownership error interferes). Afterwards:

- no turn is lost: every session holds two messages per turn sent to it;
- nothing leaks: each user's sessions and persisted values hold that user's order number only.

``DIALOGKIT_CONCURRENCY_TURNS`` sets the turns per worker (40 by default).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import LoadedBot, load_bot_file
from dialogkit.logging import configure_logging
from dialogkit.model.session import user_scope
from dialogkit.store import SessionStore, open_store
from tests.store.factories import REDIS_URL, needs_redis

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
PROCESSES = 4
TURNS = int(os.environ.get("DIALOGKIT_CONCURRENCY_TURNS", "40"))
SAY = {"zh": ("我的手机碎了，订单号 {order}", "确认"), "en": ("my phone arrived broken, order {order}", "yes")}

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks its workers")

Opener = Callable[[], SessionStore]


def order_of(worker: int) -> str:
    return f"{worker + 1}{worker + 1}{worker + 1}{worker + 1}{worker + 1}"


def _worker(loaded: LoadedBot, opener: Opener, worker: int) -> None:
    configure_logging(level="error", force=True)
    bot = Bot(loaded, opener())
    user, order = f"user{worker}", order_of(worker)
    for turn in range(TURNS):
        lang = "zh" if turn % 2 else "en"
        start, yes = SAY[lang]
        session = f"{user}-{turn // 2}"
        bot.handle(session, start.format(order=order) if turn % 2 == 0 else yes, user_id=user)
        bot.handle("shared", f"w{worker} t{turn}", user_id="everyone")
    bot.close()


def _opener(kind: str, tmp: Path) -> Opener:
    if kind == "sqlite":
        return lambda: open_store(f"sqlite:///{tmp / 'sessions.db'}")
    from dialogkit.store.redis import RedisStore

    assert REDIS_URL is not None
    url, prefix = REDIS_URL, f"dkconc:{uuid.uuid4().hex[:8]}:"
    return lambda: RedisStore(url, prefix=prefix)


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("redis", marks=needs_redis)])
def test_no_lost_turn_and_no_leak_across_processes(kind: str, tmp_path: Path) -> None:
    loaded = load_bot_file(SUPPORT, actions={"create_ticket": {"ticket_id": "T-1"}})
    opener = _opener(kind, tmp_path)
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=_worker, args=(loaded, opener, w)) for w in range(PROCESSES)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
        assert process.exitcode == 0
    store = opener()
    try:
        shared = store.load("shared", history_tail=None)
        assert shared is not None and len(shared.history) == 2 * PROCESSES * TURNS     # no lost turn
        said = [m.content for m in shared.history if m.role == "user"]
        for worker in range(PROCESSES):
            assert [s for s in said if s.startswith(f"w{worker} ")] == [f"w{worker} t{t}" for t in range(TURNS)]
        for worker in range(PROCESSES):
            _assert_only_own_values(store, loaded, worker)
    finally:
        store.close()


def _assert_only_own_values(store: SessionStore, loaded: LoadedBot, worker: int) -> None:
    user, others = f"user{worker}", {order_of(w) for w in range(PROCESSES) if w != worker}
    ids = store.sessions_of(user)
    assert len(ids) == (TURNS + 1) // 2
    for sid in ids:
        session = store.load(sid, history_tail=None)
        assert session is not None and len(session.history) in (2, 4)     # a report, then its "yes"
        text = session.model_dump_json()
        # Standalone numbers only: a timestamp such as 1764528322222.5 holds "22222" by chance.
        assert not any(re.search(rf"(?<!\d){order}(?!\d)", text) for order in others), \
            f"{sid} holds another user's order number"
    persisted = store.user_slots(user_scope(loaded.spec.bot.name, user))
    assert {p.value for p in persisted.values()} & others == set()
