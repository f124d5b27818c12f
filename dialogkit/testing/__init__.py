"""Test helpers for dialogkit users: a conversation driver, the YAML test runner, log capture.

    from dialogkit.testing import conversation

    with conversation("flows/support_ticket.yaml", actions={"create_ticket": {"ticket_id": "T-1"}}) as convo:
        convo.say("我上周买的手机屏幕碎了").expect(state="PARAM_COLLECT", slots={"product": "phone"})
"""

from dialogkit.testing.cases import Step, TestCase, TestFile, load_test_file
from dialogkit.testing.clock import TestClock
from dialogkit.testing.conversation import Conversation, ConversationFailure, conversation
from dialogkit.testing.coverage import CoverageTracker
from dialogkit.testing.expectations import Mismatch
from dialogkit.testing.factory import LLMOptions
from dialogkit.testing.logs import capture_turn_logs, events_named
from dialogkit.testing.repeats import Repeat
from dialogkit.testing.results import FileResult, TestResult, Turn
from dialogkit.testing.runner import run_file, run_test

__all__ = [
    "Conversation",
    "ConversationFailure",
    "CoverageTracker",
    "FileResult",
    "LLMOptions",
    "Mismatch",
    "Repeat",
    "Step",
    "TestCase",
    "TestClock",
    "TestFile",
    "TestResult",
    "Turn",
    "capture_turn_logs",
    "conversation",
    "events_named",
    "load_test_file",
    "run_file",
    "run_test",
]
