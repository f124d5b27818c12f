"""Statements about things: what a user *says about* values rather than asks for.

"我有两个订单 12345 和 67890", "I have two flights, CA981 and MU5101", "王医生是我的邻居",
"Manager Zhang and Director Li are my managers", "my leave request is LV20005", "我认识王医生和
李医生" tell the bot something; they ask for nothing. Such an utterance resembles trigger examples
only through the nouns of the things it names ("订单", "flights", "leave request"), so intent
scoring must not read a request into it: a statement starts a flow only through a keyword the
author declared.

A statement is recognised by its frame, the same in every bot: possession or acquaintance ("我有",
"我买了", "我认识", "I have", "we own", "I bought", "I know"), identity with a named value
("X是我的…", "X is my …", "…是 X", "… is X") or company ("我和…一起", "I'm travelling with"), and
no sign of a request or a question (想/要/帮/请您/能/可以/吗/？/几/哪, want/need/'d like/please/can
you/help/how/what/?). The text given is lower-cased and has each mention replaced by ``MENTION``.
"""

from __future__ import annotations

import re

from dialogkit.lexicon import words

MENTION = "\x01"  # what a masked mention looks like to the frames below

_FRAME = re.compile("|".join(p.replace("{mention}", MENTION) for p in words("statement_frame_patterns")) or "(?!)")
_REQUEST = re.compile("|".join([*words("asking_patterns"), "[?？]"]))


def asks(text: str) -> bool:
    """True when ``text`` (lower-cased) holds a sign of a request or a question (想, 要, please, ?...)."""
    return _REQUEST.search(text) is not None


def is_statement(masked: str) -> bool:
    """True when ``masked`` (lower-cased, mentions replaced by ``MENTION``) only tells something."""
    masked = masked.strip()
    return _FRAME.search(masked) is not None and _REQUEST.search(masked) is None
