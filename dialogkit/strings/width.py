"""Full-width forms as the ASCII they stand for: one code point for one, so offsets hold.

A Chinese keyboard types "（", "１２" and "ＡＢ" where an English one types "(", "12" and "AB";
both are the same words. Understanding reads every turn folded (``understanding.language.fold``),
and an alias is looked up folded the same way (``strings.aliases``), so a catalogue name written
"奶酪魏（牛街总店）" is found whichever brackets the user typed.
"""

from __future__ import annotations

_FULL_WIDTH = range(0xFF01, 0xFF5F)       # "！" ... "～": ASCII "!" ... "~" shifted
_SHIFT = 0xFEE0
_IDEOGRAPHIC_SPACE = 0x3000

WIDTH_FOLD: dict[int, int] = {code: code - _SHIFT for code in _FULL_WIDTH} | {_IDEOGRAPHIC_SPACE: ord(" ")}
"""``str.translate`` table: full-width ASCII -> ASCII, the ideographic space -> a space."""
