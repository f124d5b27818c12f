"""How much of a model's answer the bot reads: the LLM is outside the trust boundary.

A model (or a server pretending to be one) can answer with megabytes of text or thousands of
commands; reading them would stall the session's turn while it is locked. Every answer is
checked against these limits before any JSON is parsed, and a turn takes at most
``MAX_COMMANDS`` commands, so the work an answer causes is bounded whatever it holds.
"""

from __future__ import annotations

__all__ = ["MAX_COMMANDS", "MAX_REPLY_CHARS", "MAX_TOOL_CALLS"]

MAX_REPLY_CHARS = 32_000
"""Characters of an answer's text (or of all its tool calls' arguments together); more is a failure."""
MAX_TOOL_CALLS = 32
"""Function calls of one answer that are read; the rest are ignored."""
MAX_COMMANDS = 16
"""Commands one understanding answer may give; those after are dropped (a turn needs a handful)."""
