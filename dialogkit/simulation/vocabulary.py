"""The words a simulated user says that belong to no bot: yes, no, cancel, forget, small talk,
pronouns, ordinals, and the frames that carry a bot's own values.

Everything else a simulated user says comes from the bot file (``catalog``). The phrases here are
the ones every bot must understand in both languages (docs/behaviours.md), kept as plain data so
a test can see exactly what the simulator may say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

Phrases = Mapping[str, tuple[str, ...]]
"""Phrases per language."""

LANGUAGES: Final[tuple[str, ...]] = ("zh", "en")

YES: Final[Phrases] = {"zh": ("确认", "是的", "好的"), "en": ("yes", "ok", "yes please")}
NO: Final[Phrases] = {"zh": ("不", "不要"), "en": ("no", "nope")}
CANCEL: Final[Phrases] = {"zh": ("算了", "取消"), "en": ("never mind", "cancel")}
FORGET: Final[Phrases] = {"zh": ("忘记刚才说的",), "en": ("forget what I just said",)}

OFF_TOPIC: Final[Phrases] = {
    "zh": ("天气真不错", "你喜欢听音乐吗", "我刚喝了一杯咖啡", "这首歌挺好听的"),
    "en": ("the weather is lovely", "do you like music", "I just had a coffee", "that song is really nice"),
}
"""Small talk with no date or time word, no number and no request; phrases holding a bot's alias
or trigger keyword are left out for that bot (``catalog.Catalog.off_topic``)."""

FREE_TEXT: Final[Phrases] = {
    "zh": ("箱子外面有划痕", "请尽快联系我"),
    "en": ("the box had a scratch", "please get back to me soon"),
}
"""Answers for slots without an entity type (free text)."""

CORRECTIONS: Final[Phrases] = {
    "zh": ("不对，{label}是{value}", "把它改成{value}"),
    "en": ("no, make it {value}", "actually {value}", "no, the {label} is {value}"),
}
"""``{label}`` frames name the slot; the others fit the value to the slot its type belongs to."""

SEVERAL: Final[Phrases] = {"zh": ("{label}是{value}", "，"), "en": ("the {label} is {value}", ", ")}
"""One labelled value, and the joiner between several."""

YES_NO_VALUES: Final[Mapping[str, tuple[tuple[str, bool], ...]]] = {
    "zh": (("是", True), ("否", False)),
    "en": (("yes", True), ("no", False)),
}
"""A ``yes_no`` slot's values as a user says them: alone to its question, or after its label."""

NAMED_YES_NO: Final[Mapping[str, str]] = {"zh": "{label}：{value}", "en": "{label}: {value}"}
"""A yes/no value named with its slot's label ("紧急：否", "urgent: no"), where SEVERAL's frame
would say "the urgent is no"."""

WITH_VALUES: Final[Mapping[str, str]] = {"zh": "{request}，{values}", "en": "{request}, {values}"}
"""A trigger example followed by slot values in the same utterance."""

TWO_CANDIDATES: Final[Mapping[str, str]] = {
    "zh": "我有两个{noun} {first} 和 {second}",
    "en": "I have {noun} {first} and {noun} {second}",
}

PRONOUNS: Final[Mapping[str, Phrases]] = {
    "thing": {"zh": ("它怎么样了", "它现在怎么样？"), "en": ("what about it", "how is it now")},
    "person": {"zh": ("他怎么样了", "他现在怎么样？"), "en": ("what about him", "how is he doing")},
}
"""Small questions with a pronoun that fits either of two candidates of one kind (a thing or a
person), so that naming two just before leaves them ambiguous."""

PRONOUN_WORDS: Final[Mapping[str, Mapping[str, tuple[str, ...]]]] = {
    "thing": {"zh": ("它",), "en": ("it",)},
    "person": {"zh": ("他", "她"), "en": ("him", "her", "he", "she")},
}
"""How to spot a pronoun in a bot's own trigger examples ("问他项目进度"): such an example is a
request that needs the pronoun resolved."""

DEMONSTRATIVES: Final[Phrases] = {"zh": ("那个", "这个"), "en": ("that one", "this one")}
ORDINALS: Final[Phrases] = {"zh": ("第一个", "第二个"), "en": ("the first one", "the second one")}
