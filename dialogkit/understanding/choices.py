"""Answers about choosing: "any will do" and "what else is there?".

- ``any``: the utterance *is* an answer that leaves the choice to the bot: "随便", "都可以",
  "无所谓", "哪个都行", "什么时间都行", "任何医生", "随便哪个医生", "医生随便", "any", "any
  doctor", "anything", "whichever", "I don't care", "doesn't matter", "no preference", "up to
  you". In answer to a slot question it means the value the slot's entity type names in
  ``any:`` (docs/bot-file.md). The whole utterance must be that answer, fillers aside, so the
  word inside a request or a question ("do you have any appointments?", "anyway", "many",
  "company", "任何问题都可以问吗？") is no such answer, nor is 随便 doing something ("随便聊聊").
- ``alternatives``: the user asks for other choices than those offered: "还有别的吗", "有没有
  别的", "其他的呢", "换一个", "anything else?", "any other options?", "what else do you have",
  "show me more". Not "没有别的了" or "nothing else", which end a list; not "what else can you
  do", which asks for help.

The text given is folded and lower-cased.
"""

from __future__ import annotations

import re
from functools import cache

from dialogkit.understanding.language import may_hold_latin

_CJK = r"[\u4e00-\u9fff]"
_ZH_FILLERS = "啊呀吧呢啦了哦嗯的哈嘛呗"
_EN_TAIL = r"(?:[,\s]+(?:is|are|'s)?\s*(?:fine|ok|okay|good|alright)|[,\s]+will\s+do|[,\s]+works|[,\s]+please" \
           r"|[,\s]+thanks|[,\s]+thank\s+you|[,\s]+really|[,\s]+at\s+all|[,\s]+then|[,\s]+either)*"

_ZH_ANY = (
    rf"^(?:[嗯哦啊哎呃][,，\s]*)*(?:我|我们)?(?:都|也|真的)?"
    rf"(?:随便(?:(?:哪个|哪位|哪家|哪天|哪种|一个|什么|几点){_CJK}{{0,6}}?)?"
    rf"|(?:哪个|哪位|哪家|哪天|哪种|哪一个|哪一位|什么|几点)(?:{_CJK}{{1,6}}?)?(?:都行|都可以|都好|均可|都成|都无所谓|都没问题|都没关系)"
    rf"|(?:任何|任意){_CJK}{{0,6}}?"
    rf"|{_CJK}{{0,6}}?(?:随便|无所谓|都可以|都行|都好|均可|都成|不限|没(?:有)?(?:要求|偏好|所谓)|都一样)"
    rf"|你(?:来|们)?(?:定|决定|选|挑|安排)(?:吧|就好|就行)?|(?:你)?看着办|听你的)"
    rf"[{_ZH_FILLERS}]*$"
)
_EN_ANY = (
    r"^(?:(?:oh|well|um|uh|hmm|honestly|so|just|i\s+mean|really)[,\s]+)*"
    r"(?:any(?!\s+(?:other|else|more)\b)(?:\s+(?!(?:other|else|more)\b)[a-z]+){0,2}"
    r"|(?:anything|anyone|anybody|whatever|whichever|either)(?:\s+(?:one|of\s+them|of\s+those|way|time|day))?"
    r"|i\s+(?:really\s+)?(?:don['’]?t|do\s+not)\s+(?:really\s+)?(?:care|mind)"
    r"(?:\s+(?:which|what|who|when|where)(?:\s+[a-z]+){0,2})?"
    r"|(?:it\s+)?(?:doesn['’]?t|does\s+not)\s+matter(?:\s+(?:which|what|who|when|where)(?:\s+[a-z]+){0,2})?"
    r"|no\s+preference|(?:it['’]?s\s+)?up\s+to\s+you|you\s+(?:choose|pick|decide)|your\s+(?:choice|call)"
    r"|surprise\s+me)"
    rf"{_EN_TAIL}$"
)


@cache
def _any() -> re.Pattern[str]:
    """The any-answer pattern, compiled on first use: the largest here (3 ms), needed only for
    short answers, so ``dialogkit validate`` and other callers that never see one skip it."""
    return re.compile(f"{_ZH_ANY}|{_EN_ANY}")


@cache
def _one_language(ascii_text: bool) -> re.Pattern[str]:
    """The English half, for ASCII text (every Chinese answer holds a Han character), or the
    Chinese half, for text without a Latin letter (every English one needs letters)."""
    return re.compile(_EN_ANY if ascii_text else _ZH_ANY)


_ALTERNATIVES_HINT = re.compile("else|other|more|different|别|其他|其它|另外|选|换")
"""Every phrase of ``_ALTERNATIVES`` and ``_ANOTHER`` holds one of these."""
_ANOTHER = re.compile(r"(?:能|可以|帮我|请|那)?换(?:一个|个别的|一家|一位|个)(?:吧|吗|呢|好吗|可以吗)?[?？]?")
"""Alone, "换一个" asks for another choice; in "我想换一个键盘" it is an exchange."""
_NEGATION = re.compile(r"\b(?:no|not|nothing|never|don['’]?t|do\s+not)\b|没有|不用|不要|不需要")
_END = " \t,，。.!！~～…"
_ANY_LENGTH = 40        # an any-answer is short; a long text is something else

_ALTERNATIVES = re.compile(
    r"(?<!没)(?:还有|有没有|有无|还有没有)(?:别的|其他|其它|另外)"
    r"|(?:别的|其他的|其它的|其他)(?:呢|吗)|(?:其他|别的|更多)(?:选项|选择)"
    r"|\b(?:anything|something)\s+else\b"
    r"|\b(?:any|some|what)\s+other\s+[a-z]+"
    r"|\bwhat\s+else\b(?!\s+can\s+(?:you|i)\s+do)|\bother\s+(?:options?|choices?)\b|\bmore\s+(?:options?|choices?)\b"
    r"|\bare\s+there\s+(?:any\s+)?others\b|\bshow\s+me\s+(?:more|others|other\s+ones)\b|\bsomething\s+different\b"
)


def is_any(lowered: str) -> bool:
    """True when the utterance leaves the choice to the bot (see the module docstring)."""
    if len(lowered) > 2 * _ANY_LENGTH:
        return False
    text = lowered.strip(_END)
    if not text or len(text) > _ANY_LENGTH or text.endswith(("?", "？", "吗", "么")):
        return False
    if text.isascii():
        return _one_language(True).match(text) is not None
    pattern = _any() if may_hold_latin(text) else _one_language(False)
    return pattern.match(text) is not None


def asks_alternatives(lowered: str) -> bool:
    """True when the utterance asks for other choices than those offered; a negation before the
    words ("I don't need anything else", "不用换一个") ends the choosing instead."""
    if _ALTERNATIVES_HINT.search(lowered) is None:   # most turns: a cheap first look, then nothing
        return False
    match = _ALTERNATIVES.search(lowered)
    if match is None:
        return _ANOTHER.fullmatch(lowered.strip(_END)) is not None
    return _NEGATION.search(lowered, 0, match.start()) is None
