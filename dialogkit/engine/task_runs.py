"""Running a confirmed task's action: at most once, with its result on record in the session.

A task whose run is on record (a retry, a replayed turn) is not run again: its recorded result
or error stands. A result lacking what ``execute.returns`` promises is an error for a test's
stub and a warning for a real action.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.table import ActionTable
from dialogkit.engine.execution import run_at_most_once
from dialogkit.engine.turn import TurnContext
from dialogkit.errors import ActionError
from dialogkit.logging import get_logger
from dialogkit.model.reply import ActionRun

__all__ = ["MAX_EXECUTED_RECORDS", "run_task_action"]

log = get_logger("dialogkit.policy")

MAX_EXECUTED_RECORDS = 32
"""Idempotency records kept per session: enough for any retry, without growing the session row forever."""


def run_task_action(actions: ActionTable, ctx: TurnContext) -> tuple[dict[str, Any], str | None]:
    """(result, error) of the task's action; a task whose run is on record is not run again."""
    task, flow = ctx.task, ctx.flow
    assert task is not None and flow is not None
    action = flow.spec.execute.action
    key = f"{ctx.session.id}:{task.id}"
    record = ctx.session.executed.get(key)
    if record is not None:
        return dict(record.get("result") or {}), record.get("error")
    if not action:
        return {}, None
    action_ctx = ActionContext(
        slots=dict(task.slots), session_id=ctx.session.id, user_id=ctx.session.user_id or "",
        flow=flow.name, language=ctx.language, idempotency_key=key, session=ctx.session,
    )
    result: dict[str, Any] = {}
    error: str | None = None
    try:
        result = run_at_most_once(ctx.txn, actions, action, action_ctx, ctx.now)
    except ActionError as exc:
        error = str(exc) or type(exc.original).__name__
        log.warning("action_failed", action=action, session_id=ctx.session.id, error=error)
    if error is None and flow.spec.execute.returns:
        _check_returns(actions, ctx, action, flow.spec.execute.returns, result)
    executed = ctx.session.executed
    executed[key] = {"result": result, "error": error, "at": ctx.now}
    while len(executed) > MAX_EXECUTED_RECORDS:      # oldest first: dicts keep insertion order
        del executed[next(iter(executed))]
    ctx.action_runs.append(ActionRun(action, dict(task.slots), None if error else dict(result), error))
    return result, error


def _check_returns(actions: ActionTable, ctx: TurnContext, action: str, promised: list[str],
                   result: Mapping[str, Any]) -> None:
    """A result lacking a key ``execute.returns`` promises: an error for a stub of values (a
    test's stand-in must keep the promise; an empty stub only says the action ran), a warning
    for a real action (the reply shows a gap)."""
    missing = [key for key in promised if key not in result]
    if not missing:
        return
    message = f"action '{action}' returned no {', '.join(missing)} (promised by execute.returns)"
    if result and getattr(actions.get(action), "__name__", "").startswith("stub_"):
        raise ActionError(message)
    log.warning("action_result_incomplete", action=action, session_id=ctx.session.id, missing=missing)
