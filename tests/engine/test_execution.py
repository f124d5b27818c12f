"""Actions run at most once per confirmed task, across a crash (docs/bot-file.md, "Actions run at
most once").

A crash between the action and the turn's commit is played in-process: the action raises a
``BaseException`` the runtime does not catch, so the turn commits nothing, exactly as when the
process dies there; only the "about to run" record, written before the call, survives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.actions.registry import ActionContext, action
from dialogkit.engine.execution import OUTCOME_UNKNOWN
from dialogkit.store import open_store
from dialogkit.store.memory import MemoryStore

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
SAY = {"zh": ("我的手机碎了，订单号 12345", "确认"), "en": ("my phone arrived broken, order 12345", "yes")}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


class Crash(BaseException):
    """The process dying: nothing in the runtime catches it."""


class Runs:
    """Counts calls per idempotency key; crashes on the calls listed in ``crash_on``."""

    def __init__(self, crash_on: tuple[int, ...] = ()) -> None:
        self.keys: list[str] = []
        self.crash_on = crash_on

    def __call__(self, ctx: ActionContext) -> dict[str, Any]:
        self.keys.append(ctx.idempotency_key)
        if len(self.keys) in self.crash_on:
            raise Crash
        return {"ticket_id": f"T-{len(self.keys)}"}


@pytest.fixture(params=["memory", "sqlite"])
def make_bot(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[Callable[..., Any]], Bot]]:
    made: list[Bot] = []
    memory = MemoryStore()

    def make(func: Callable[..., Any]) -> Bot:
        store = memory if request.param == "memory" else open_store(f"sqlite:///{tmp_path / 's.db'}")
        bot = Bot.from_file(SUPPORT, actions={"create_ticket": func}, store=store)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()


def crash_then_yes(bot: Bot, lang: str) -> Any:
    start, yes = SAY[lang]
    bot.handle("s1", start, user_id="alice")
    with pytest.raises(Crash):
        bot.handle("s1", yes, user_id="alice")
    assert bot.session("s1").state == "CONFIRMATION"          # the crashed turn left nothing behind
    return bot.handle("s1", yes, user_id="alice")


@LANGS
def test_a_plain_action_is_not_run_again_and_the_user_is_told(make_bot: Callable[..., Bot], lang: str) -> None:
    runs = Runs(crash_on=(1,))
    reply = crash_then_yes(make_bot(runs), lang)
    assert len(runs.keys) == 1
    assert OUTCOME_UNKNOWN[lang] in reply.text
    assert reply.actions[0].error == OUTCOME_UNKNOWN[lang]


@LANGS
def test_an_idempotent_action_runs_again_with_the_same_key(make_bot: Callable[..., Bot], lang: str) -> None:
    runs = Runs(crash_on=(1,))

    @action("create_ticket_idempotent_test", idempotent=True)
    def create(ctx: ActionContext) -> dict[str, Any]:
        return runs(ctx)

    reply = crash_then_yes(make_bot(create), lang)
    assert len(runs.keys) == 2 and runs.keys[0] == runs.keys[1]
    assert "T-2" in reply.text


@LANGS
@pytest.mark.parametrize(("found", "expected_runs", "ticket"), [({"ticket_id": "T-9"}, 1, "T-9"), (None, 2, "T-2")])
def test_reconcile_is_asked(make_bot: Callable[..., Bot], lang: str, found: dict[str, Any] | None,
                            expected_runs: int, ticket: str) -> None:
    """It returns the result when the run happened (not run again), None when it did not (run now)."""
    runs = Runs(crash_on=(1,))
    asked: list[str] = []

    def reconcile(ctx: ActionContext) -> dict[str, Any] | None:
        asked.append(ctx.idempotency_key)
        return found

    @action("create_ticket_reconciled_test", reconcile=reconcile)
    def create(ctx: ActionContext) -> dict[str, Any]:
        return runs(ctx)

    reply = crash_then_yes(make_bot(create), lang)
    assert asked == runs.keys[:1] and len(runs.keys) == expected_runs
    assert ticket in reply.text


def test_without_a_crash_nothing_changes(make_bot: Callable[..., Bot]) -> None:
    runs = Runs()
    bot = make_bot(runs)
    for lang in ("en", "zh"):
        start, yes = SAY[lang]
        bot.handle(f"s-{lang}", start, user_id="alice")
        assert "T-" in bot.handle(f"s-{lang}", yes, user_id="alice").text
        bot.handle(f"s-{lang}", yes, user_id="alice")
    assert len(runs.keys) == len(set(runs.keys)) == 2


def test_the_record_goes_with_the_session(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    with store.transaction("s1") as txn:
        assert txn.mark_running("s1:t1", 1.0) is None
        assert txn.mark_running("s1:t1", 2.0) == 1.0
    store.delete_session("s1")
    with store.transaction("s1") as txn:
        assert txn.mark_running("s1:t1", 3.0) is None
    store.close()


def test_reconcile_must_be_a_function() -> None:
    with pytest.raises(ValueError, match="reconcile"):
        action("x", reconcile="not a function")  # type: ignore[arg-type]
