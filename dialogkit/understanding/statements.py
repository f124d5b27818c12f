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

MENTION = "\x01"  # what a masked mention looks like to the frames below

_ZH_FRAMES = (
    r"^(?:嗯|哦|对了|其实|另外)?[，,\s]*(?:我|我们)(?:家里?|这儿|这里|手上|手里|现在)?(?:还|也|一共|总共)?"
    r"(?:有|买了|买过|认识|知道)"
    rf"|{MENTION}\s*(?:也|都)?(?:是|就是)(?:我|我们)的"
    rf"|是\s*{MENTION}"
    r"|^(?:我|我们)和.{0,40}?一起"
)
_EN_FRAMES = (
    r"^(?:(?:oh|well|so|btw|by the way)[,\s]+)?(?:i|we)\s+(?:(?:also|already|still)\s+)?"
    r"(?:have|['’]ve(?:\s+got)?|have\s+got|own|bought|know|met)\b"
    rf"|{MENTION}\s*(?:is|are)\s+(?:(?:also|both)\s+)?(?:my|our)\b"
    rf"|\b(?:is|are|was|were)\s+{MENTION}"
    r"|^(?:i['’]m|i\s+am|we['’]re|we\s+are)\s+travell?ing\s+with\b"
)
_FRAME = re.compile(f"{_ZH_FRAMES}|{_EN_FRAMES}")
_REQUEST = re.compile(
    r"想|要|帮我|帮忙|请帮|请你|请您|麻烦|能不能|能否|可以|可不可以|需要|吗|么|怎么|如何|多少|几|哪|什么|谁|[?？]"
    r"|\b(?:want|wanna|need|would\s+like|like\s+to|please|can\s+you|could\s+you|can\s+i|could\s+i|help"
    r"|how|what|where|when|which|why|who|let\s+me|let['’]s)\b|['’]d\s+like"
)


def asks(text: str) -> bool:
    """True when ``text`` (lower-cased) holds a sign of a request or a question (想, 要, please, ?...)."""
    return _REQUEST.search(text) is not None


def is_statement(masked: str) -> bool:
    """True when ``masked`` (lower-cased, mentions replaced by ``MENTION``) only tells something."""
    masked = masked.strip()
    return _FRAME.search(masked) is not None and _REQUEST.search(masked) is None
