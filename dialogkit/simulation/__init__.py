"""``dialogkit simulate``: conversations generated from a bot file, checked after every turn.

Hypothesis draws each conversation from what the bot file offers — trigger examples and
keywords, values from aliases, labels and patterns, corrections, yes/no, cancels, digressions,
two candidates and the pronouns after them, forgetting, small talk — and shrinks a conversation
that breaks a behaviour to a minimal one (docs/testing.md). Layer 8: it drives a ``Bot``.

    from dialogkit.simulation import Options, simulate
    result = simulate("flows/support_ticket.yaml", Options(conversations=200, seed=1))
"""

from dialogkit.simulation.harness import Options, Progress, Violation, ViolationClass
from dialogkit.simulation.invariants import INVARIANTS, Invariant
from dialogkit.simulation.report import format_result, progress_line
from dialogkit.simulation.runner import SimulationResult, simulate
from dialogkit.simulation.yaml_writer import write_conversation_test

__all__ = [
    "INVARIANTS",
    "Invariant",
    "Options",
    "Progress",
    "SimulationResult",
    "Violation",
    "ViolationClass",
    "format_result",
    "progress_line",
    "simulate",
    "write_conversation_test",
]
