"""``-k`` expressions: pytest-like selection of tests by name.

``damaged and not en``, ``(zh or en) and restart``: each bare word is a case-insensitive
substring of the test's name (or of its file's name, as pytest matches node ids); ``and``,
``or``, ``not`` and parentheses combine them with the usual precedence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Matcher = Callable[[str], bool]

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordError(ValueError):
    """A ``-k`` expression that does not parse; the message says where."""


def compile_keyword(expression: str) -> Matcher:
    """A predicate over the text a test is known by (``file name`` + ``test name``)."""
    tokens = [m.group(1) for m in _TOKEN.finditer(expression)]
    if not tokens:
        return lambda _text: True
    parser = _Parser(tokens, expression)
    matcher = parser.disjunction()
    if parser.pos != len(tokens):
        raise KeywordError(f"unexpected `{tokens[parser.pos]}` in -k expression {expression!r}")
    return matcher


class _Parser:
    def __init__(self, tokens: list[str], source: str) -> None:
        self.tokens = tokens
        self.source = source
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise KeywordError(f"-k expression {self.source!r} ends too early")
        self.pos += 1
        return token

    def disjunction(self) -> Matcher:
        parts = [self.conjunction()]
        while self.peek() == "or":
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda text: any(p(text) for p in parts))

    def conjunction(self) -> Matcher:
        parts = [self.negation()]
        while self.peek() == "and":
            self.take()
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else (lambda text: all(p(text) for p in parts))

    def negation(self) -> Matcher:
        if self.peek() == "not":
            self.take()
            inner = self.negation()
            return lambda text: not inner(text)
        return self.atom()

    def atom(self) -> Matcher:
        token = self.take()
        if token == "(":
            inner = self.disjunction()
            if self.take() != ")":
                raise KeywordError(f"missing `)` in -k expression {self.source!r}")
            return inner
        if token in (")", "and", "or"):
            raise KeywordError(f"unexpected `{token}` in -k expression {self.source!r}")
        word = token.lower()
        return lambda text: word in text.lower()
