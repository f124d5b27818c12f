"""Stand-ins for a bot's actions, so that a simulation runs no real action code.

Each action a flow runs becomes a stub returning a value for every key its ``execute.returns``
promises and every placeholder its ``say`` and ``on_error`` replies name beyond the flow's slots
("{ticket_id}" -> "T-1001"): a stub of values that breaks the promise would raise. The values are
plain codes in neither language, so they cannot trip the language check. Validators named in
slot rules stay real: they decide what is valid, which is part of what is simulated.
"""

from __future__ import annotations

from typing import Any

from dialogkit.simulation.vocabulary import LANGUAGES
from dialogkit.spec.schema import BotFile, FlowSpec, prompt_text
from dialogkit.strings.placeholders import placeholders


def _result_keys(flow: FlowSpec) -> list[str]:
    slots = {slot.name for slot in flow.slots}
    keys: list[str] = [key for key in flow.execute.returns or () if key]
    for prompt in (flow.execute.say, flow.execute.on_error):
        for lang in LANGUAGES:
            try:
                names = placeholders(prompt_text(prompt, lang))
            except ValueError:
                continue
            keys += [n for n in names if n and n not in slots and n != "error" and n not in keys]
    return keys


def action_stubs(spec: BotFile) -> dict[str, dict[str, Any]]:
    """``{action: {placeholder: value}}`` for every action a flow of ``spec`` runs."""
    stubs: dict[str, dict[str, Any]] = {}
    for flow in spec.flows.values():
        name = flow.execute.action
        if not name:
            continue
        values = stubs.setdefault(name, {})
        for key in _result_keys(flow):
            values.setdefault(key, f"{key[:1].upper() or 'X'}-{1001 + len(values)}")
    handoff = spec.bot.handoff_action
    if handoff is not None:
        stubs.setdefault(handoff.action, {})     # it only has to run: the reply says a person takes over
    return stubs
