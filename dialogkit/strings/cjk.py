"""The one answer to "is this Chinese?": Han ideographs only.

Kana and Hangul are not Chinese, so they do not switch a turn to zh. The ranges are the basic
block, extension A, the compatibility block and extensions B-F.
"""

from __future__ import annotations

import re

HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
CJK_CHAR = re.compile(f"[{HAN_RANGES}]")
CJK_RUN = re.compile(f"[{HAN_RANGES}]+")


def is_cjk_char(ch: str) -> bool:
    """True for one Han character (``ch`` is a single code point)."""
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FA1F
    )


def has_cjk(text: str) -> bool:
    """True when ``text`` (an utterance, alias or keyword) contains a Han character."""
    return CJK_CHAR.search(text) is not None


def count_cjk(text: str) -> int:
    """How many Han characters ``text`` holds."""
    return sum(len(run) for run in CJK_RUN.findall(text))
