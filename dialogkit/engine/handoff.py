"""Handing a conversation to a person: what the agent's action is given, and what the user hears.

The action (``bot.handoff: {action: NAME}``) gets the ticket summary's three sections, the task's
slots and the last user messages, with sensitive values masked, so a human agent starts informed
without the bot ever passing on what it must not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.actions.table import ActionTable
from dialogkit.engine.turn import TurnContext
from dialogkit.errors import ActionError
from dialogkit.logging import get_logger
from dialogkit.memory.summary import Others, item_text
from dialogkit.model.reply import ActionRun
from dialogkit.model.session import Session, SummaryItem
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.spec.schema import HandoffAction
from dialogkit.strings.redaction import MASK, mask_pii, mask_values
from dialogkit.text.phrases import phrase

log = get_logger("dialogkit.policy")


def _texts(items: Iterable[SummaryItem], language: str, others: Others | None) -> list[str]:
    return [item_text(item, language, others) for item in items]


def handoff_context(session: Session, slots: Mapping[str, Any], sensitive: set[str], *,
                    current: str, language: str, messages: int) -> dict[str, Any]:
    """The summary sections, the slots and the last ``messages`` user messages (``current``, the
    turn's own text, among them), masked."""
    hidden = [*(v for k, v in slots.items() if k in sensitive and v is not None), *session.secrets]
    shown = {k: (MASK if k in sensitive and v is not None else v) for k, v in slots.items()}
    said = [m.content for m in session.history if m.role == "user"]
    if not said or said[-1] != current:
        said.append(current)
    said = said[-messages:] if messages else []
    summary = session.summary
    return {
        "summary": {
            "stated": _texts(summary.facts, language, summary.others),
            "confirmed": _texts(summary.confirmed, language, summary.others),
            "pending": _texts(summary.pending, language, summary.others),
        },
        "slots": shown,
        "messages": [mask_pii(mask_values(text, hidden)) for text in said],
        "language": language,
    }


def take_over_message(language: str) -> str:
    return phrase("take_over", language)


def hand_to_person(actions: ActionTable, ctx: TurnContext, handoff: HandoffAction, flow: CompiledFlow,
                   slots: dict[str, Any]) -> bool:
    """Run the handoff action with what an agent needs; False when it fails (the bot then
    apologises as it would without a handoff). The turn's words are passed on, not read."""
    sensitive = {s.name for s in flow.spec.slots if s.sensitive}
    context = handoff_context(ctx.session, slots, sensitive, current=ctx.interp.text,
                              language=ctx.language, messages=handoff.messages)
    action_ctx = ActionContext(slots=dict(context["slots"]), session_id=ctx.session.id,
                               user_id=ctx.session.user_id or "", flow=flow.name, language=ctx.language,
                               session=ctx.session, value=context)
    try:
        actions.run(handoff.action, action_ctx)
    except ActionError as exc:
        log.warning("handoff_failed", action=handoff.action, session_id=ctx.session.id, error=str(exc))
        return False
    ctx.action_runs.append(ActionRun(handoff.action, dict(context["slots"]), {}, None))
    return True
