"""The fixed transition table every flow compiles to (docs/bot-file.md, "flows": the five states).

Kept apart from the compiler so that the graph drawer draws exactly the table the compiler builds.
"""

from __future__ import annotations

from dataclasses import dataclass

from dialogkit.spec.schema import FlowSpec


@dataclass(frozen=True, slots=True)
class TransitionDef:
    trigger: str
    sources: tuple[str, ...]
    dest: str


def transition_table(flow: FlowSpec) -> list[TransitionDef]:
    """The transitions of one flow; ``confirm`` decides between the confirmation path and ``execute``."""
    table = [
        TransitionDef("start_task", ("IDLE", "PARAM_COLLECT", "CONFIRMATION"), "TASK_INIT"),
        TransitionDef("collect", ("TASK_INIT",), "PARAM_COLLECT"),
        TransitionDef("provide_param", ("PARAM_COLLECT",), "PARAM_COLLECT"),
    ]
    if flow.confirm is not None:
        table += [
            TransitionDef("provide_param", ("CONFIRMATION",), "CONFIRMATION"),
            TransitionDef("request_confirmation", ("PARAM_COLLECT",), "CONFIRMATION"),
            TransitionDef("confirm", ("CONFIRMATION",), "EXECUTION"),
            TransitionDef("deny", ("CONFIRMATION",), "PARAM_COLLECT"),
        ]
    else:
        table.append(TransitionDef("execute", ("PARAM_COLLECT",), "EXECUTION"))
    table += [
        TransitionDef("complete", ("EXECUTION",), "IDLE"),
        TransitionDef("fail", ("EXECUTION",), "IDLE"),
        TransitionDef("cancel", ("TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"), "IDLE"),
    ]
    return table
