"""Rules for a turn that starts nothing: an FAQ, an ambiguous reference, a greeting, facts
offered, a request for help, and what is left (not understood)."""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine import explaining
from dialogkit.engine.commands import AnswerFaq, Clarify, Command, Farewell, Greet, Help, Note, NotUnderstood
from dialogkit.engine.rules.base import Seen
from dialogkit.engine.rules.shapes import IDENTIFIERS
from dialogkit.understanding.cues import is_question

__all__ = ["clarify_reference", "empty_input", "faq", "farewell", "greeting", "help_asked", "not_understood", "noted"]


def empty_input(seen: Seen) -> Sequence[Command]:
    """An empty message (or only spaces): ask for text, and say again what is pending."""
    return [] if seen.ctx.text.strip() else [NotUnderstood(rule="empty_input", empty=True)]


def faq(seen: Seen) -> Sequence[Command]:
    """"你们几点关门？" / "when do you close?": the FAQ entry it asks."""
    entry = seen.faq_entry()
    return [AnswerFaq(rule="faq", words=seen.ctx.interp.text.strip(), entry=entry)] if entry else []


def clarify_reference(seen: Seen) -> Sequence[Command]:
    """"它现在怎么样？" after two orders: ask which one is meant."""
    resolution = seen.ctx.resolution
    ambiguity = resolution.ambiguity if resolution is not None else None
    return [Clarify(rule="clarify", words=seen.ctx.interp.text.strip(), ambiguity=ambiguity)] if ambiguity else []


def greeting(seen: Seen) -> Sequence[Command]:
    """"你好" / "hello": greet back."""
    return [Greet(rule="greeting")] if "greeting" in seen.cues else []


def farewell(seen: Seen) -> Sequence[Command]:
    """"谢谢，再见" / "thanks, goodbye": said goodbye to, with no help listing after it."""
    return [Farewell(rule="farewell", words=explaining.cue_words(seen.ctx))] if seen.ctx.interp.farewell else []


def noted(seen: Seen) -> Sequence[Command]:
    """"我有两个订单 12345 和 67890": facts offered with no request are remembered, not refused.
    The acknowledgement names things of the bot's own types and identifiers, never helper
    matches (the 两 of "两个订单" is no thing)."""
    if "help" in seen.cues:
        return []
    declared = tuple(m for m in seen.ctx.interp.mentions if not m.builtin or m.type in IDENTIFIERS)
    if not declared:
        return []
    return [Note(rule="noted", mentions=declared, asked=is_question(seen.ctx.interp.text))]


def help_asked(seen: Seen) -> Sequence[Command]:
    """"你能做什么？" / "what can you do?"."""
    return [Help(rule="help")] if "help" in seen.cues else []


def not_understood(seen: Seen) -> Sequence[Command]:
    """Nothing above applied: say so, and what the bot can do."""
    return [NotUnderstood(rule="not_understood", words=seen.ctx.interp.text.strip() or None)]
