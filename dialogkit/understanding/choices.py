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
- ``named_any_pattern``: no preference for a thing the words name, wherever it stands in the
  utterance: "I don't care about the price", "the area doesn't matter", "no preference for the
  cuisine", "any price is fine", "价格无所谓", "区域都行", "我不在乎价格", "什么菜系都可以". The
  caller gives the names (a bot's words for its slots); the pattern says which one was named.

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
_EN_ASKED = r"(?:it|that|this|them|those)"       # "I don't care about it": the thing asked about
_EN_ANY = (
    r"^(?:(?:oh|well|um|uh|hmm|honestly|so|just|i\s+mean|really|no)[,\s]+)*"
    r"(?:any(?!\s+(?:other|else|more)\b)(?:\s+(?!(?:other|else|more)\b)[a-z]+){0,2}"
    r"|(?:anything|anyone|anybody|whatever|whichever|either)(?:\s+(?:one|of\s+them|of\s+those|way|time|day))?"
    r"|i\s+(?:really\s+)?(?:don['’]?t|do\s+not)\s+(?:really\s+)?(?:care|mind)"
    rf"(?:\s+(?:which|what|who|when|where)(?:\s+[a-z]+){{0,2}}|(?:\s+(?:about|for|of|on))?\s+{_EN_ASKED})?"
    rf"|(?:{_EN_ASKED}\s+)?(?:doesn['’]?t|does\s+not)\s+(?:really\s+)?matter"
    r"(?:\s+(?:which|what|who|when|where)(?:\s+[a-z]+){0,2}|\s+to\s+(?:me|us))?"
    r"|(?:i\s+(?:have\s+no|(?:don['’]?t|do\s+not)\s+have\s+(?:a|any))|no)\s+(?:particular\s+|real\s+)?preferences?"
    rf"(?:\s+(?:on|about|for|of|regarding)\s+{_EN_ASKED})?"
    r"|(?:it['’]?s\s+)?up\s+to\s+you|you\s+(?:choose|pick|decide)|your\s+(?:choice|call)"
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


ANY_WORDS = ("any", "任何", "任意")
"""The words "any" is said with. Before a noun they determine it ("is there any cheap restaurant",
"任何餐厅"); a bot's no-preference value may be spelled with them alone, or with a noun after them
("any cuisine" names the cuisine)."""


_WORD_NEXT = re.compile(r"(?<!\s)\s*[^\W\d_]")   # a word follows (letters or Han characters); (?<!\s): a
# run of spaces is scanned from its start only, never once from each of its positions


def is_any_word(text: str) -> bool:
    """Whether ``text`` is just one of ``ANY_WORDS``."""
    return text.strip().lower() in ANY_WORDS


def determines(said: str, text: str, end: int) -> bool:
    """Whether ``said``, ending at ``end`` of ``text``, is an any-word with a word after it: "any" in
    "is there any cheap restaurant" is no value, though a bot spells its no-preference value "any".
    Said alone, or last ("in any"), it is one."""
    return is_any_word(said) and _WORD_NEXT.match(text, end) is not None


# "no preference for <a thing named>": {name} is where the caller's alternation of names goes.
_EN_THING = (r"(?:(?:the|a|an|any|which|what)\s+)?(?:(?:type|kind|sort)s?\s+of\s+)?(?P<{group}>{names})"
             r"(?:\s+(?:types?|kinds?))?\b")
_EN_NOT = r"(?:don['’]?t|do\s+not|dont|doesn['’]?t|does\s+not|doesnt)"
_EN_NAMED_ANY = (
    rf"\bi\s+(?:really\s+)?{_EN_NOT}\s+(?:really\s+)?(?:care|mind)\s+(?:(?:about|for|on|of|regarding|as\s+to)\s+)?{{thing0}}",
    rf"\b{{thing1}}\s+(?:really\s+)?{_EN_NOT}\s+(?:really\s+)?matter",
    rf"\b(?:no|(?:{_EN_NOT}|not)\s+(?:really\s+)?have\s+(?:a|any))\s+(?:particular\s+|real\s+)?preferences?"
    rf"\s+(?:for|on|about|of|regarding|as\s+to|in|with)\s+{{thing2}}",
    r"\b(?:not\s+(?:fussy|picky|particular)|flexible|easy)\s+(?:about|on|with|regarding|as\s+to)\s+{thing3}",
    # "any price is fine", "in any area, please": the clause ends there ("any food places?" asks)
    r"\bany\s+{thing4}(?:\s+(?:is|will\s+be|would\s+be|'s)?\s*(?:fine|ok|okay|good|alright|great|will\s+do|works))?"
    r"\s*(?:[,.;!]|$)",
)
_ZH_THING = r"(?:什么|哪个|哪种|哪一个|哪家|任何|任意)?(?P<{group}>{names})"
_ZH_NO_PREFERENCE = (r"(?:无所谓|随便|都行|都可以|都好|均可|都成|不限|不挑|不讲究|不在乎|不介意"
                     r"|没(?:有)?(?:要求|偏好|所谓|关系|讲究))")
_ZH_NAMED_ANY = (
    rf"{{thing5}}(?:方面|上)?(?:我|我们)?(?:都|也|倒|就)?{_ZH_NO_PREFERENCE}",
    r"(?:不在乎|不介意|不在意|不关心|不计较|不挑)(?:什么)?{thing6}",
    r"对{thing7}(?:没(?:有)?(?:要求|偏好|讲究)|无所谓|不挑)",
    r"随便(?:哪个|哪种|什么|哪一个|哪家)?{thing8}",
)


def named_any_pattern(alternation: str) -> re.Pattern[str]:
    """No preference for one of the things ``alternation`` names (a regex alternation of lower-cased
    names); ``named(match)`` is the name said. Searched anywhere in the folded, lower-cased text."""
    things = {f"thing{i}": (_EN_THING if i < len(_EN_NAMED_ANY) else _ZH_THING).format(group=f"n{i}", names=alternation)
              for i in range(len(_EN_NAMED_ANY) + len(_ZH_NAMED_ANY))}
    return re.compile("|".join(f"(?:{part.format(**things)})" for part in (*_EN_NAMED_ANY, *_ZH_NAMED_ANY)))


def named(match: re.Match[str]) -> str:
    """The name a ``named_any_pattern`` match said."""
    return next(said for key, said in match.groupdict().items() if said and key.startswith("n"))


_SENTENCE_END = re.compile(r"[.!;。！；]\s*|(?<!\s)\s+(?=as\s+long\s+as\b)")
_CLAUSE_END = re.compile(r"[,，]\s*")
"""Where an answer's first sentence or clause ends: "no, I don't care. Just pick one", "随便，你推荐一个"."""
_LONGEST_TURN = 300


def is_any(lowered: str) -> bool:
    """True when the utterance, or its first clause, leaves the choice to the bot (see the module
    docstring): "I don't care, but I'd like it cheap" leaves the thing asked about open."""
    if len(lowered) > _LONGEST_TURN:
        return False
    sentence = _SENTENCE_END.split(lowered.strip(_END), maxsplit=1)[0]
    clause = _CLAUSE_END.split(sentence, maxsplit=1)[0]
    return any(_is_any_answer(part) for part in dict.fromkeys((lowered, sentence, clause)))


def _is_any_answer(lowered: str) -> bool:
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
