"""What the simulator sees of the bot after a turn: the reply and a snapshot of the session.

The snapshot holds only what the public API shows (``Bot.handle``'s reply and ``Bot.session``):
the invariants judge behaviour, not internals. The slot a reply asks for is read from its text,
as a user would read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dialogkit.engine.conditional_slots import prompt_variant
from dialogkit.lexicon import languages, writing
from dialogkit.model.reply import Reply
from dialogkit.simulation.catalog import AUTO_HAN, AUTO_LATIN, Catalog, FlowInfo, SlotInfo
from dialogkit.simulation.utterances import Utterance
from dialogkit.strings.cjk import has_cjk
from dialogkit.text.labels import Texts

LATIN_WORD = re.compile(r"(?<![0-9A-Za-z\u00c0-\u024f])[A-Za-z\u00c0-\u024f]+(?:['\u2019][A-Za-z]+)?"
                        r"(?![0-9A-Za-z\u00c0-\u024f])")
"""A Latin word that is no part of an id: "room" is one, the "B" of "B202" is not."""
ADDRESS = re.compile(r"(?:(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+|(?<![^\W\d_A-Za-z])[^\W\d_A-Za-z]+)@\S+"
                     r"|(?:https?://|www\.)\S+", re.IGNORECASE)
"""An e-mail address (its local part one run of ASCII or of other letters: "邮箱是aaa@x.com" keeps
"邮箱是") or a URL."""
MIN_LATIN_WORDS = 3


def turn_language(text: str, current: str) -> str:
    """The language a reply to ``text`` must be in: CJK makes zh, three Latin words make en (or
    keep a Latin-script session's language: a Spanish bot's es), anything shorter keeps the
    session's language; an e-mail address or an id typed in one language switches nothing
    (docs/bot-file.md, "language"; docs/behaviours.md, item 21)."""
    text = ADDRESS.sub(" ", text)
    if has_cjk(text):
        return AUTO_HAN
    if len(LATIN_WORD.findall(text)) >= MIN_LATIN_WORDS:
        return current if current in languages() and writing(current).script == "latin" else AUTO_LATIN
    return current


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The session as the user can see it after a turn."""

    state: str = "IDLE"
    flow: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)       # reply.slots
    stack: tuple[str, ...] = ()                              # flows on the task stack, bottom first
    pending: tuple[Any, ...] = ()                            # candidates of a pending clarification
    asked: str | None = None                                 # the slot the reply asks for


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One simulated turn: what was said, what the bot answered, the session before and after."""

    index: int
    utterance: Utterance
    language: str                      # the language the reply must be in
    before: Snapshot
    after: Snapshot
    reply: Reply | None
    error: str | None = None           # the traceback when the turn raised
    refusals: tuple[str, ...] = ()     # what the bot's validator code says of the values offered

    def refused_aloud(self) -> bool:
        """The reply gives a message the bot's validator code has for a value this turn offered."""
        return any(message in self.text for message in self.refusals)

    @property
    def text(self) -> str:
        return self.reply.text if self.reply is not None else ""


def questions(texts: Texts, flow: FlowInfo, slot: SlotInfo, language: str, slots: dict[str, Any]) -> list[str]:
    """Every way the bot may ask for ``slot``: each of its re-ask variants (the n-th failed answer
    gets the n-th), with a question of choices followed by their list (docs/bot-file.md, "ask")."""
    count = max(1, len(slot.spec.asks))
    asked = [texts.ask(flow.spec, prompt_variant(slot.spec, n), language, slots) for n in range(count)]
    return [q for n, q in enumerate(asked) if q and q not in asked[:n]]


def asked_slot(catalog: Catalog, texts: Texts, reply: Reply) -> str | None:
    """The slot whose question ends the reply's text (the last one asked), if any."""
    flow = catalog.flows.get(reply.flow) if reply.flow else None
    if flow is None or reply.state != "PARAM_COLLECT":
        return None
    best: tuple[int, str] | None = None
    for slot in flow.slots:
        if not slot.required:
            continue
        for question in questions(texts, flow, slot, reply.language, reply.slots):
            at = reply.text.rfind(question)
            if at >= 0 and (best is None or at > best[0]):
                best = (at, slot.name)
    return best[1] if best else None


def snapshot(reply: Reply, session: Any, catalog: Catalog, texts: Texts) -> Snapshot:
    """The snapshot after ``reply``; ``session`` is ``Bot.session``'s view of it."""
    pending = tuple(session.pending or ()) if session is not None else ()
    stack = tuple(session.stack) if session is not None else ()
    return Snapshot(reply.state, reply.flow, dict(reply.slots), stack, pending, asked_slot(catalog, texts, reply))
