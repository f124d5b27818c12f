"""Hypothesis strategies for hostile utterances: the classes an audit sends a bot.

NUL and control characters, lone surrogates, right-to-left and zero-width marks, placeholders,
SQL and YAML, 64 KB of one character class, 1 MB of text, values other than text.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

PIECES = [
    "\x00", "\ud800", "\udfff", "\u202e", "\u200f", "\u200b", "\ufeff", "\r\n", "\t", "😀", "👍🏽",
    "{order_id}", "{{x}}", "{0}", "%s", "${x}", "{error}", "{", "}",
    "'; DROP TABLE sessions; --", "\" OR 1=1 --", "!!python/object/apply:os.system ['ls']", "&a [*a, *a]",
    "---\n", "key: value", "<script>alert(1)</script>", "../../etc/passwd", "null", "None", "NaN",
    "12345", "１２３４５", "13812345678", "a@b.co", "http://evil.example/x", "2025-13-45", "明天下午三点",
    "我的手机屏幕碎了", "订单号是12345", "取消", "确认", "yes", "no", "这个", "that one", "第二个",
    "my phone arrived broken. note: X", "forget my order number", "忘记我的订单号", "help", "/export",
]
CLASS_UNITS = ["a", "Z", "1", "１", " ", "-", ".", "订", "@", "a1-", "\n", "😀", "é", "_", "that ", "那个", "三",
               "它", "it ", "the second one ", "第二个", "12345 "]


def _run(unit: str, chars: int) -> str:
    return unit * (chars // len(unit))


def utterances() -> st.SearchStrategy[Any]:
    """One user turn: mostly text, sometimes huge, sometimes not text at all."""
    return st.one_of(
        st.text(max_size=60),
        st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map(" ".join),
        st.builds(_run, st.sampled_from(CLASS_UNITS), st.sampled_from([4000, 4001, 65536])),
        st.just("a" * 1_000_000),
        st.sampled_from([None, 123, 4.5, b"\xff\xfe bytes", ["list"], {"dict": 1}, True]),
    )


def conversations() -> st.SearchStrategy[list[Any]]:
    """A short conversation: one to five turns, the first often a real request."""
    return st.lists(utterances(), min_size=1, max_size=5)
