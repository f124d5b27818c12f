"""An action runs at most once per confirmed task, even when the process dies mid-turn.

The turn's own writes are committed only when it ends, so a crash after the action ran but
before that commit would leave no trace of the run, and the next "yes" would run it again. So
before calling the action the runtime records "about to run" durably, in its own write, under
the idempotency key (session id + task id). Finding that record on a later try means the
outcome is unknown: an ``idempotent=True`` action is run again with the same key (the receiving
system deduplicates); one with a ``reconcile`` function asks it; any other is not run again and
the task fails with a message that its outcome is being checked (the flow's ``on_error``
applies). docs/bot-file.md, "Actions run at most once", says it for authors.

Only a turn that runs an action pays the extra write; the record of the result still travels
with the turn's commit (``Session.executed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext, ActionOptions, action_options
from dialogkit.actions.table import ActionTable
from dialogkit.errors import ActionError
from dialogkit.logging import get_logger
from dialogkit.store.protocol import StoreTxn
from dialogkit.text.phrases import PHRASES, phrase

__all__ = ["OUTCOME_UNKNOWN", "options_of", "run_at_most_once"]

log = get_logger("dialogkit.actions")

OUTCOME_UNKNOWN = PHRASES["outcome_unknown"]
"""What an action whose outcome is unknown failed with, per language (text/phrases.py)."""


def options_of(actions: ActionTable, name: str) -> ActionOptions:
    """The ``@action`` options of the function the table runs for ``name``; the defaults (not
    idempotent, no reconcile: the safe side) when it has none."""
    return action_options(actions.get(name)) or ActionOptions()


def run_at_most_once(txn: StoreTxn, actions: ActionTable, name: str, ctx: ActionContext,
                     now: float) -> dict[str, Any]:
    """Run ``name`` unless an earlier, uncommitted try of ``ctx.idempotency_key`` makes it unsafe;
    its result, or an ``ActionError`` (``on_error`` handles it) when the outcome is unknown."""
    earlier = txn.mark_running(ctx.idempotency_key, now)
    if earlier is None:
        return actions.run(name, ctx)
    options = options_of(actions, name)
    log.warning("action_outcome_unknown", action=name, session_id=ctx.session_id, key=ctx.idempotency_key,
                marked_at=earlier, rerun=options.idempotent, reconcile=options.reconcile is not None)
    if options.idempotent:
        return actions.run(name, ctx)
    if options.reconcile is not None:
        found = _reconcile(options, name, ctx)
        return actions.run(name, ctx) if found is None else found
    raise ActionError(phrase("outcome_unknown", ctx.language))


def _reconcile(options: ActionOptions, name: str, ctx: ActionContext) -> dict[str, Any] | None:
    """What ``reconcile`` says the interrupted run did: its result, or None when it never ran."""
    assert options.reconcile is not None
    try:
        found = options.reconcile(ctx)
    except ActionError:
        raise
    except Exception as exc:  # the author's code may raise anything; on_error handles it
        raise ActionError(f"{name}: reconcile failed: {exc or type(exc).__name__}", original=exc) from exc
    if found is None:
        return None
    return dict(found) if isinstance(found, Mapping) else {"result": found}
