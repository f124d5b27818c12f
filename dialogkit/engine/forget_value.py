"""'忘记时间' / 'forget the time' / '时间先不定': a request to drop one value.

The phrases are built from the bot's own slot labels and names, so the request works for any slot
of any bot, in both languages. What is dropped depends on the slot (the policy decides): a value
the active task holds is cleared and asked for again; a persisted value (session or user scope,
"忘记我的订单号" / "forget my order number") is deleted from the store. Any other slot named is no
such request, and the utterance is read as usual.
"""

from __future__ import annotations

import re

from dialogkit.engine.slot_names import SlotNames
from dialogkit.spec.schema import BotFile
from dialogkit.text.labels import Texts

__all__ = ["ForgetValue"]

_ZH_VERBS = r"(?:请|麻烦)?(?:帮我)?(?:忘记|忘掉|忘了|删除|删掉|清除|清空|别再记着|不要再记着|别记着)(?:一下)?"
_EN_VERBS = r"(?:please\s+)?(?:forget|delete|remove|erase|clear)"
# "时间先不定" / "时间待定": the value named is left open for now.
_ZH_OPEN = r"(?:先|还|暂时|暂)?(?:不定|待定|未定|没定|没确定)了?"
_EN_OPEN = r"(?:leave|keep)\s+(?:my\s+|the\s+|our\s+)?(?P<en_open>{names})\s+(?:open|undecided|blank)"


class ForgetValue:
    """Finds which slots an utterance asks the bot to forget."""

    def __init__(self, spec: BotFile, texts: Texts) -> None:
        self._names = SlotNames(spec, texts)
        alternation = self._names.alternation
        self._pattern = re.compile(
            rf"(?:{_ZH_VERBS}\s*(?:我的|我)?\s*(?P<zh>{alternation}))"
            rf"|(?:(?P<zh_open>{alternation})\s*{_ZH_OPEN}(?!期))"
            rf"|(?:\b{_EN_VERBS}\s+(?:my\s+|the\s+|our\s+)?(?P<en>{alternation})\b)"
            rf"|(?:\b{_EN_OPEN.format(names=alternation)}\b)",
            re.IGNORECASE,
        ) if alternation else None

    def slots_in(self, text: str) -> list[str]:
        """The slots ``text`` asks to forget, in order of mention (usually none); a word several
        slots share as label names each of them."""
        if self._pattern is None or len(text) > 200:
            return []
        found: list[str] = []
        for match in self._pattern.finditer(text):
            said = next(g for g in match.groups() if g)
            found.extend(self._names.slots(said))
        return list(dict.fromkeys(found))
