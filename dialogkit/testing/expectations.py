"""Each ``expect`` key of a conversation test as a check that yields mismatch records.

A check reads the reply and the bot's public API only. When the bot lacks what a key needs
(``bot.context`` not built yet, a reply without ``summary`` ...), the check reports a mismatch
saying "not supported by this bot" rather than raising, so a test file written ahead of a
feature fails readably today and passes the day the feature lands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from dialogkit.testing.cases import EXPECT_KEYS, is_regex


class Unsupported(Exception):
    """The bot does not offer what an expectation reads."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One expectation that did not hold: what was wanted, what the bot did, and why."""

    key: str                 # "state", "slots.order_id", "action" ...
    expected: Any
    actual: Any
    note: str = ""           # e.g. "not supported by this bot: Bot.context() is missing"

    @property
    def unsupported(self) -> bool:
        return self.note.startswith("not supported by this bot")


@dataclass(frozen=True, slots=True)
class Observation:
    """What a check may look at: the step's reply and the bot it came from."""

    reply: Any
    bot: Any
    session_id: str

    def reply_attr(self, name: str) -> Any:
        if not hasattr(self.reply, name):
            raise Unsupported(f"the reply has no `{name}`")
        return getattr(self.reply, name)

    def session(self) -> Any:
        method = getattr(self.bot, "session", None)
        if method is None:
            raise Unsupported("Bot.session() is missing")
        try:
            return method(self.session_id)
        except NotImplementedError as exc:
            raise Unsupported(f"Bot.session() is not implemented ({exc})") from exc

    def session_attr(self, name: str) -> Any:
        session = self.session()
        if not hasattr(session, name):
            raise Unsupported(f"the session has no `{name}`")
        return getattr(session, name)

    def context(self) -> list[Any]:
        method = getattr(self.bot, "context", None)
        if method is None:
            raise Unsupported("Bot.context() is missing")
        try:
            return list(method(self.session_id))
        except NotImplementedError as exc:
            raise Unsupported(f"Bot.context() is not implemented ({exc})") from exc


def check(expect: Mapping[str, Any], observation: Observation) -> list[Mismatch]:
    """Every mismatch between ``expect`` and what the bot did, in the order the keys were written."""
    mismatches: list[Mismatch] = []
    for key, expected in expect.items():
        if key not in CHECKS:
            allowed = ", ".join(EXPECT_KEYS)
            mismatches.append(Mismatch(key, expected, None, f"unknown expectation; use one of {allowed}"))
            continue
        try:
            mismatches.extend(CHECKS[key](expected, observation))
        except Unsupported as exc:
            mismatches.append(Mismatch(key, expected, None, f"not supported by this bot: {exc}"))
    return mismatches


# -- normalisation -------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


def normalise(value: Any) -> Any:
    """A comparable form: numbers by value (150 == "150" == 150.0), text stripped, bools as text.

    Text with a leading zero ("0123") stays text: an order number is not the integer 123.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Decimal)):
        try:
            return Decimal(str(value)).normalize()
        except InvalidOperation:
            return str(value)
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.fullmatch(text):
            return Decimal(text).normalize()
        return text
    if isinstance(value, Mapping):
        return {str(k): normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [normalise(v) for v in value]
    inner = getattr(value, "value", None)       # an Entity, an enum, a Candidate
    return normalise(inner) if inner is not None else str(value).strip()


def same(expected: Any, actual: Any) -> bool:
    """Equality after normalisation; a mapping expected is a subset of the actual mapping, where a
    key expected ``null`` matches a key that is missing (an action input not given, as a slot unset)."""
    left, right = normalise(expected), normalise(actual)
    if isinstance(left, dict) and isinstance(right, dict):
        return all(same(v, right[k]) if k in right else v is None for k, v in left.items())
    return bool(left == right)


def _key(value: Any) -> str:
    normal = normalise(value)
    return format(normal, "f") if isinstance(normal, Decimal) else str(normal)


def text_matches(pattern: str, text: str | None) -> bool:
    """Substring, or ``/regex/`` searched anywhere in the text."""
    if text is None:
        return False
    if is_regex(pattern):
        return re.search(pattern[1:-1], text) is not None
    return pattern in text


# -- the checks ----------------------------------------------------------------------------

def _flow(expected: Any, obs: Observation) -> list[Mismatch]:
    actual = obs.reply_attr("flow")
    return [] if actual == expected else [Mismatch("flow", expected, actual)]


def _state(expected: Any, obs: Observation) -> list[Mismatch]:
    actual = obs.reply_attr("state")
    return [] if actual == expected else [Mismatch("state", expected, actual)]


def _slots(expected: Mapping[str, Any], obs: Observation) -> list[Mismatch]:
    actual = dict(obs.reply_attr("slots") or {})
    out: list[Mismatch] = []
    for name, want in expected.items():
        have = actual.get(name)
        if want is None:
            if have is not None:
                out.append(Mismatch(f"slots.{name}", None, have, "expected the slot to be unset"))
        elif name not in actual or have is None:
            out.append(Mismatch(f"slots.{name}", want, None, "the slot is unset"))
        elif not same(want, have):
            out.append(Mismatch(f"slots.{name}", want, have))
    return out


def _text_check(key: str, read: Callable[[Observation], str | None]) -> Callable[[str, Observation], list[Mismatch]]:
    def check_text(expected: str, obs: Observation) -> list[Mismatch]:
        actual = read(obs)
        if text_matches(expected, actual):
            return []
        how = "no match for the regular expression" if is_regex(expected) else "substring not found"
        return [Mismatch(key, expected, actual, how)]

    check_text.__doc__ = f"``{key}``: substring or /regex/."
    return check_text


def _options(expected: list[str], obs: Observation) -> list[Mismatch]:
    """``options``: the quick replies offered, as many as listed, each matched in order like ``bot``."""
    actual = [str(option) for option in obs.reply_attr("options") or []]
    if len(actual) == len(expected) and all(text_matches(w, h) for w, h in zip(expected, actual, strict=True)):
        return []
    note = "no quick replies were offered" if not actual else "other quick replies (matched in order)"
    return [Mismatch("options", expected, actual, note)]


def _summary_text(obs: Observation) -> str | None:
    summary = getattr(obs.reply, "summary", None)
    if isinstance(summary, str) and summary:
        return summary
    session_summary = obs.session_attr("summary")
    if isinstance(session_summary, str):
        return session_summary
    if summary is None:
        raise Unsupported("neither the reply nor the session gives the summary as text")
    return summary


def _action_view(run: Any) -> dict[str, Any]:
    view: dict[str, Any] = {"name": getattr(run, "name", run), "inputs": getattr(run, "inputs", {})}
    if getattr(run, "error", None):
        view["error"] = run.error
    elif getattr(run, "result", None) is not None:
        view["result"] = run.result
    return view


def _action(expected: Any, obs: Observation) -> list[Mismatch]:
    runs = list(obs.reply_attr("actions") or [])
    views = [_action_view(r) for r in runs]
    if expected is None:
        return [] if not runs else [Mismatch("action", None, views, "expected no action to run")]
    if isinstance(expected, str):
        if any(v["name"] == expected for v in views):
            return []
        return [Mismatch("action", expected, views, f"`{expected}` did not run in this step")]
    named = [v for v in views if v["name"] == expected["name"]]
    if not named:
        return [Mismatch("action", expected, views, f"`{expected['name']}` did not run in this step")]
    if any(same(expected.get("with") or {}, v["inputs"]) for v in named):
        return []
    return [Mismatch("action", expected, named, "it ran with other inputs")]


def _clarify(expected: Any, obs: Observation) -> list[Mismatch]:
    actual = obs.reply_attr("clarification")
    candidates = [] if actual is None else list(actual)
    if isinstance(expected, bool):
        if bool(candidates) == expected:
            return []
        note = "expected a clarification question" if expected else "expected no clarification question"
        return [Mismatch("clarify", expected, actual, note)]
    if sorted(_key(v) for v in expected) == sorted(_key(v) for v in candidates):
        return []
    return [Mismatch("clarify", expected, actual, "other candidates" if candidates else "no clarification was asked")]


def _entities(expected: list[Any], obs: Observation) -> list[Mismatch]:
    entities = list(obs.session_attr("entities") or [])
    present = {_key(getattr(e, "value", e)) for e in entities}
    missing = [v for v in expected if _key(v) not in present]
    if not missing:
        return []
    values = [getattr(e, "value", e) for e in entities]
    return [Mismatch("entities", expected, values, "not in entity memory: " + ", ".join(map(str, missing)))]


def _max_context_tokens(expected: int, obs: Observation) -> list[Mismatch]:
    messages = obs.context()
    if any(not hasattr(m, "tokens") for m in messages):
        raise Unsupported("the context messages carry no token counts")
    total = sum(int(m.tokens) for m in messages)
    if total <= expected:
        return []
    return [Mismatch("max_context_tokens", expected, total, f"the context holds {total} tokens")]


CHECKS: dict[str, Callable[[Any, Observation], list[Mismatch]]] = {
    "flow": _flow,
    "state": _state,
    "slots": _slots,
    "bot": _text_check("bot", lambda obs: obs.reply_attr("text")),
    "options": _options,
    "action": _action,
    "clarify": _clarify,
    "resolved": _text_check("resolved", lambda obs: obs.reply_attr("resolved")),
    "summary": _text_check("summary", _summary_text),
    "entities": _entities,
    "max_context_tokens": _max_context_tokens,
}
