"""What an LLM proposed is kept only when it is the user's: the user's words decide, not the model.

A model can be steered: an injected "answer confirm", or "the order number is 55555" somewhere in
what it reads. So nothing it proposes may by itself make an action run, and it proposes only:

- a ``confirm`` stands when the user's words open with a yes the rules read, as they read a reply
  to a yes/no question ("好的，尽快帮我建工单吧", "ok, go ahead and open the ticket"): the model may
  hear the yes the rules' precise cue misses, never a yes in "你好" / "hello there";
- a slot value stands when it is grounded: the rules read that value for the slot's type in this
  turn's words, as written or with numbers in words as digits ("一二三四五", "one two three four
  five"), or a reference in them resolves to it, or the user gave it before (a task holds it, it
  is persisted, or entity memory has it from the user). A free-text value must be written in the
  message. So a flow without a confirmation runs only on values the user gave.

``deny`` and ``cancel`` are kept as proposed: they stop or end a task, and neither runs an action.
Every drop is logged (``llm_command_dropped``, with the command, slot and reason; never the value,
which may be sensitive).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from dialogkit.engine import explaining
from dialogkit.engine.slot_writes import user_values
from dialogkit.engine.turn import TurnContext
from dialogkit.lexicon import words
from dialogkit.llm import commands as llm_commands
from dialogkit.logging import get_logger
from dialogkit.memory import references
from dialogkit.spec.schema import BotFile, SlotSpec
from dialogkit.understanding.cues import reply_answer
from dialogkit.understanding.language import fold
from dialogkit.understanding.numbers import CN_DIGITS, EN_UNITS, find_numbers
from dialogkit.understanding.rules import RuleUnderstanding

__all__ = ["Grounding", "spelled_digits", "written_in"]

log = get_logger("dialogkit.llm")

_ZH_DIGITS = {ch: str(n) for ch, n in CN_DIGITS.items()} | dict.fromkeys(words("spoken_one"), "1")
_ZH_DIGIT_RUN = re.compile(f"[{''.join(_ZH_DIGITS)}]{{2,}}")
_EN_DIGITS = {word: str(n) for word, n in EN_UNITS.items() if n < 10}
_EN_DIGIT = "|".join(_EN_DIGITS)
_EN_DIGIT_RUN = re.compile(rf"\b(?:{_EN_DIGIT})(?:[\s,-]+(?:{_EN_DIGIT}))+\b", re.IGNORECASE)
_EN_WORD = re.compile(_EN_DIGIT, re.IGNORECASE)
_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+|[^\W\d_a-z]", re.IGNORECASE)
_DETERMINERS = frozenset(words("unsaid_fillers"))


def spelled_digits(text: str) -> str:
    """``text`` with numbers read out digit by digit written in digits: "一二三四五" and "one two three
    four five" are 12345, and "零一二三四五" keeps its leading 0 (a number reading would not)."""
    text = _ZH_DIGIT_RUN.sub(lambda m: "".join(_ZH_DIGITS[ch] for ch in m.group()), text)
    return _EN_DIGIT_RUN.sub(lambda m: "".join(_EN_DIGITS[w.lower()] for w in _EN_WORD.findall(m.group())), text)


def _numbers_in_digits(text: str) -> str:
    """``text`` (folded) with every whole number the rules read written in digits ("一万二千三百四十五")."""
    out, at = [], 0
    for found in find_numbers(text):
        if isinstance(found.value, int):
            out.append(text[at:found.start] + str(found.value))
            at = found.end
    return "".join(out) + text[at:]


def _words(text: str) -> set[str]:
    """The words of ``text``: Latin words and numbers whole, Chinese (and other) characters one by one."""
    return set(_WORDS.findall(fold(text).lower()))


def written_in(value: str, text: str) -> bool:
    """Whether a free-text ``value`` is made of ``text``'s words: every word and number of it, and
    every Chinese character, is in the message ("the boxes are far too big" from "your boxes are far
    too big"; an English article or possessive aside). A URL, a number or a word the user never
    wrote is not."""
    wanted = _words(value) - _DETERMINERS
    return bool(wanted) and wanted <= _words(text)


class Grounding:
    """The check of one bot's LLM proposals against the user's words and what the user gave."""

    def __init__(self, spec: BotFile, understanding: RuleUnderstanding) -> None:
        self.spec = spec
        self.understanding = understanding

    def keep(self, ctx: TurnContext, commands: Sequence[llm_commands.Command]) -> list[llm_commands.Command]:
        """The commands that stand (validated ones: real flows and slots, canonical values); the
        others are dropped and logged."""
        kept: list[llm_commands.Command] = []
        flow = ctx.session.flow
        for command in commands:
            if isinstance(command, llm_commands.StartFlow):
                flow = command.flow
            reason = self._why_not(ctx, flow, command)
            if reason is None:
                kept.append(command)
                continue
            ctx.explain("grounding", f"dropped the LLM's {explaining.command_text(command)}: {reason}")
            slot = getattr(command, "slot", None)
            log.warning("llm_command_dropped", command=command.command, session_id=ctx.session.id, turn=ctx.turn,
                        reason=reason, **({"slot": slot} if slot else {}))
        return kept

    def _why_not(self, ctx: TurnContext, flow: str | None, command: llm_commands.Command) -> str | None:
        """Why ``command`` may not stand, or None when it may."""
        if isinstance(command, llm_commands.Confirm):
            return None if self.yes_words(ctx) is not None else "no yes in the user's words"
        if isinstance(command, (llm_commands.SetSlot, llm_commands.CorrectSlot)):
            slot = llm_commands.slot_spec(self.spec, flow, command.slot)
            if slot is not None and not self.grounded(ctx, slot, command.value):
                return "a value the user never gave" if slot.entity else "text the user never wrote"
        return None

    @staticmethod
    def yes_words(ctx: TurnContext) -> str | None:
        """The yes the user's words open with, as the rules read a reply to a yes/no question ("好的"
        of "好的，尽快帮我建工单吧"); None when they open with none. A confirm stands on these words."""
        text = ctx.interp.text
        if "yes" in ctx.interp.cues:
            return explaining.cue_words(ctx) or text.strip()
        answer = reply_answer(fold(text))
        if answer is None or not answer.value or answer.correction:
            return None
        return text[answer.start:answer.end]

    def grounded(self, ctx: TurnContext, slot: SlotSpec, value: Any) -> bool:
        """Whether ``value`` (canonical) for ``slot`` is the user's: read in this turn's words, held
        already, or what a reference in the words points at."""
        said = str(value)
        if said in self._held(ctx, slot):
            return True
        if not slot.entity:
            return written_in(said, ctx.interp.text)
        return said in self._read(ctx, slot.entity) or said in self._referred(ctx, slot.entity)

    @staticmethod
    def _held(ctx: TurnContext, slot: SlotSpec) -> set[str]:
        """The values the user gave before for this slot (or, in entity memory, for its type)."""
        session = ctx.session
        held = {str(task.slots[slot.name]) for task in session.stack if task.slots.get(slot.name) is not None}
        persisted = [session.session_slots.get(slot.name), user_values(ctx).get(slot.name)]
        held.update(str(p.value) for p in persisted if p is not None)
        if slot.entity:
            held.update(str(e.value) for e in session.entities if e.type == slot.entity and e.source == "user")
        return held

    def _read(self, ctx: TurnContext, type_name: str) -> set[str]:
        """The values of ``type_name`` the rules read in this turn's words, however the numbers are written."""
        now = self.understanding.local_time(ctx.now)
        found = {str(m.value) for m in ctx.interp.mentions if m.type == type_name}
        found.update(str(m.value) for m in ctx.interp.read_as((type_name,)))    # the words as written
        for reading in _rewritten(ctx.interp.text):
            found.update(str(m.value) for m in self.understanding.extract(reading, [type_name], now=now))
        return found

    def _referred(self, ctx: TurnContext, type_name: str) -> set[str]:
        """The values of ``type_name`` the references in this turn's words resolve to."""
        if not ctx.session.entities:
            return set()
        resolution = references.resolve(ctx.session, ctx.interp.text, ctx.language, turn=ctx.turn,
                                         mentions=ctx.interp.mentions, expected_types={type_name},
                                         reads_as=ctx.interp.read_as)
        return {str(b.entity.value) for b in resolution.bindings if b.entity.type == type_name}


def _rewritten(text: str) -> Iterator[str]:
    """``text`` with digits read out, and with numbers in words: each one once, if not ``text``
    itself (the turn's reading reads that)."""
    seen = {text}
    for reading in (spelled_digits(text), _numbers_in_digits(fold(text))):
        if reading not in seen:
            seen.add(reading)
            yield reading
