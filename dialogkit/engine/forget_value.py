"""'忘记我的订单号' / 'forget my order number': a request to delete one persisted value.

The phrases are built from the bot's own slot labels and names, so the request works for any
persisted slot of any bot, in both languages. Only slots that persist (session or user scope) can
be named: a task's transient values are taken back with "forget what I just said".
"""

from __future__ import annotations

import re

from dialogkit.spec.schema import BotFile
from dialogkit.text.labels import Texts

__all__ = ["ForgetValue"]

_ZH_VERBS = r"(?:请|麻烦)?(?:帮我)?(?:忘记|忘掉|忘了|删除|删掉|清除|别再记着|不要再记着|别记着)(?:一下)?"
_EN_VERBS = r"(?:please\s+)?(?:forget|delete|remove|erase|clear)"


class ForgetValue:
    """Finds which persisted slots an utterance asks the bot to forget."""

    def __init__(self, spec: BotFile, texts: Texts) -> None:
        names: dict[str, str] = {}          # a way to say the slot (lowercased) -> slot name
        for flow in spec.flows.values():
            for slot in flow.slots:
                if slot.persist == "none":
                    continue
                for language in ("zh", "en"):
                    names.setdefault(texts.slot_label(slot, language).lower(), slot.name)
                names.setdefault(slot.name.replace("_", " ").lower(), slot.name)
        self._names = names
        alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if n)
        self._pattern = re.compile(
            rf"(?:{_ZH_VERBS}\s*(?:我的|我)?\s*(?P<zh>{alternation}))"
            rf"|(?:\b{_EN_VERBS}\s+(?:my\s+|the\s+|our\s+)?(?P<en>{alternation})\b)",
            re.IGNORECASE,
        ) if alternation else None

    def slots_in(self, text: str) -> list[str]:
        """The persisted slots ``text`` asks to forget, in order of mention (usually none)."""
        if self._pattern is None or len(text) > 200:
            return []
        found = [self._names[(m.group("zh") or m.group("en")).lower()] for m in self._pattern.finditer(text)]
        return list(dict.fromkeys(found))
