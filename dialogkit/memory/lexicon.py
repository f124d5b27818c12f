"""Word lists reference resolution needs, per language, kept apart from the matching logic.

Everything here is data: which pronoun points at which kinds of entity, which words are
demonstratives or ordinals, which nouns name an entity type. The resolver reads these tables;
extending a language means extending a table, not editing code.

Type nouns come from two places (see :func:`type_nouns`): the entity type's own name
(``order_id`` -> head word ``order``; ``delivery_address`` -> ``address`` and ``delivery address``)
and :data:`TYPE_NOUN_LEXICON`, a small bilingual dictionary of common heads (``order`` -> 订单).
A bot whose type name is not in the lexicon still gets its English head noun, and a type named
in Chinese is its own noun.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from dialogkit.strings.cjk import has_cjk

#: Kinds an "it"-like pronoun can refer to, with the preference used to break ties:
#: a concrete thing is a likelier referent than a place, and a place than an untyped value.
THING_KINDS: dict[str, int] = {"thing": 2, "place": 1, "other": 0}
PERSON_KINDS: dict[str, int] = {"person": 0}
ANY_KINDS: dict[str, int] = {"thing": 2, "person": 2, "place": 1, "other": 0}

#: Built-in value types that are answers, not things one talks about: never pronoun referents
#: unless the expected slot asks for exactly that type.
NON_REFERENTIAL_TYPES: frozenset[str] = frozenset({"number", "integer", "yes_no", "time", "date"})


@dataclass(frozen=True, slots=True)
class PronounEntry:
    """What a pronoun can point at: the kinds it accepts and whether it is plural."""

    kinds: dict[str, int]
    plural: bool = False


ZH_PRONOUNS: dict[str, PronounEntry] = {
    "它们": PronounEntry(THING_KINDS, plural=True),
    "他们": PronounEntry(PERSON_KINDS, plural=True),
    "她们": PronounEntry(PERSON_KINDS, plural=True),
    "它": PronounEntry(THING_KINDS),
    "他": PronounEntry(PERSON_KINDS),
    "她": PronounEntry(PERSON_KINDS),
}

EN_PRONOUNS: dict[str, PronounEntry] = {
    "it": PronounEntry(THING_KINDS),
    "he": PronounEntry(PERSON_KINDS),
    "she": PronounEntry(PERSON_KINDS),
    "him": PronounEntry(PERSON_KINDS),
    "her": PronounEntry(PERSON_KINDS),
    "they": PronounEntry(ANY_KINDS, plural=True),
    "them": PronounEntry(ANY_KINDS, plural=True),
}

#: Possessive pronouns: bound like the pronoun, written back as "order 12345's".
EN_POSSESSIVES: dict[str, PronounEntry] = {
    "its": PronounEntry(THING_KINDS),
    "his": PronounEntry(PERSON_KINDS),
    "their": PronounEntry(ANY_KINDS, plural=True),
}

#: Characters around 他/她/它 that make it part of another word (其他 "other", 他人 "others", 吉他 "guitar").
ZH_PRONOUN_BLOCK_BEFORE = "其吉"
ZH_PRONOUN_BLOCK_AFTER = "人乡"

#: zh classifiers that may follow 这/那/第N (这个, 那位, 第二笔 ...); 位 marks a person.
ZH_CLASSIFIERS = "个位件台款笔张份单部家辆项"
ZH_PERSON_CLASSIFIERS = "位"

#: Words after a bare 这/那 that make it a demonstrative pronoun ("这还没到", "那是我的").
#: Anything else (这样, 那么, 那就, 这里 ...) is a different word and is left alone.
ZH_BARE_DEMONSTRATIVE_NEXT = ("是", "还", "也", "都", "已经", "呢", "吗")

#: zh words that make a following type noun a definite description without a direction.
ZH_DEFINITE_PREFIXES = ("同一个", "同一", "同个", "同样的", "该", "此", "上面的", "刚才的", "刚刚的",
                        "之前的", "前面的", "上述")

ZH_NUMERALS: dict[str, int] = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                               "八": 8, "九": 9, "十": 10}

#: Position words over the last list: index (0-based, negative from the end).
ZH_POSITION_WORDS: dict[str, int] = {"前者": 0, "后者": -1, "最后一个": -1, "最后那个": -1,
                                     "最后一位": -1, "最后一笔": -1, "倒数第一个": -1}

EN_ORDINALS: dict[str, int] = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2,
                               "fourth": 3, "4th": 3, "fifth": 4, "5th": 4, "last": -1,
                               "former": 0, "latter": -1}

#: Nouns after "the first"/"the last" that make it about something else ("the first time").
EN_ORDINAL_BLOCKED_NOUNS = frozenset({
    "time", "times", "day", "days", "week", "weeks", "month", "months", "year", "years", "step",
    "steps", "minute", "minutes", "hour", "hours", "moment", "page", "round", "place", "thing",
    "things", "night", "morning", "question", "message", "part",
})

#: Words after a bare this/that that show it stands for a thing ("that is broken", "this hasn't
#: arrived"); the end of the clause counts too. Anything else ("that it broke") is not a reference.
EN_DEMONSTRATIVE_NEXT = frozenset({
    "is", "was", "isn't", "wasn't", "has", "hasn't", "had", "still", "never", "will", "won't",
    "would", "can", "can't", "could", "should", "does", "doesn't", "did", "didn't", "needs",
    "arrived", "broke", "got", "came", "went", "seems", "looks", "one", "'s", "’s", "too",
    "also", "please", "again",
})
#: Verbs whose "it" is a dummy: "make it 8pm" names the new value, not something said before.
EN_DUMMY_IT_VERBS = frozenset({"make", "makes", "making"})
#: Determiners that make the next word a noun: "the IT desk" is no "it".
EN_NOUN_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "my", "their"})
#: Words before "that" which take a that-clause: "I think that ...", "so that ...".
EN_CLAUSE_VERBS = frozenset({
    "think", "thought", "thinks", "said", "say", "says", "know", "knew", "knows", "believe",
    "believed", "sure", "hope", "hoped", "mean", "means", "meant", "guess", "feel", "felt",
    "realize", "realized", "realise", "so", "such", "than", "told", "tell", "show", "shows",
    "showed", "saw", "see", "noticed", "notice", "heard", "hear", "ensure", "given", "now",
    "except", "assume", "suppose", "seems", "clear", "true", "fact", "glad", "sorry", "afraid",
    "wish", "claim", "claimed", "agree", "understand",
})
#: Predicates after "that's"/"that is" that are assent, not a statement about a thing.
EN_ASSENT_AFTER = frozenset({"right", "fine", "ok", "okay", "great", "good", "all", "correct",
                             "true", "it", "perfect", "wrong", "enough", "not", "what", "why",
                             "how", "because", "when", "where", "who"})

#: Quantities before "of them/these/those" that make a count ("2 of them", "both of them").
EN_COUNT_WORDS: tuple[str, ...] = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "a couple", "a few",
    "both", "all", "each", "either", "neither", "none", "some", "any", "most", "many", "few", "several", "half",
)

#: Words whose following type noun forms a definite description.
EN_DEFINITE_DETERMINERS = ("the same", "that same", "this same", "the said", "said", "the above",
                           "that", "this", "those", "these", "the")

#: Nouns that restrict a description to a kind instead of a type ("那个人", "that person").
KIND_NOUNS: dict[str, str] = {"人": "person", "person": "person", "guy": "person",
                              "man": "person", "woman": "person", "lady": "person"}

#: Bilingual dictionary of common type heads: head word -> (zh nouns, extra en nouns).
TYPE_NOUN_LEXICON: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "order": (("订单", "单子"), ("order",)),
    "meeting": (("会议",), ("meeting",)),
    "product": (("商品", "产品"), ("product", "item")),
    "ticket": (("工单",), ("ticket",)),
    "package": (("包裹",), ("package", "parcel")),
    "parcel": (("包裹",), ("parcel", "package")),
    "account": (("账户", "账号"), ("account",)),
    "appointment": (("预约",), ("appointment",)),
    "booking": (("预订",), ("booking", "reservation")),
    "reservation": (("预订",), ("reservation", "booking")),
    "flight": (("航班",), ("flight",)),
    "hotel": (("酒店",), ("hotel",)),
    "room": (("房间",), ("room",)),
    "payment": (("付款", "款项"), ("payment",)),
    "invoice": (("发票",), ("invoice",)),
    "address": (("地址",), ("address",)),
    "time": (("时间", "时段"), ("time",)),
    "date": (("日期",), ("date", "day")),
    "contact": (("联系人",), ("contact",)),
    "city": (("城市",), ("city",)),
    "email": (("邮箱", "邮件地址"), ("email", "email address")),
    "phone": (("电话号码", "手机号码", "手机号", "号码"), ("phone number", "number")),
    "issue": (("问题",), ("issue", "problem")),
    "device": (("设备",), ("device",)),
    "car": (("车",), ("car",)),
    "file": (("文件",), ("file",)),
    "project": (("项目",), ("project",)),
    "task": (("任务",), ("task",)),
    "user": (("用户",), ("user",)),
    "customer": (("客户",), ("customer",)),
}

#: Trailing parts of a type name that say how it is written, not what it is (order_id -> order).
_TYPE_SUFFIXES = frozenset({"id", "no", "num", "number", "code", "ref", "key", "name", "type", "kind"})
_AMBIGUOUS_HEADS = frozenset({"phone", "date", "time"})


def type_head(type_name: str) -> tuple[str, str]:
    """The head word and the full phrase of a type name: ``order_id`` -> (``order``, ``order``)."""
    words = [w for w in re.split(r"[_\-\s]+", type_name.strip().lower()) if w]
    while len(words) > 1 and words[-1] in _TYPE_SUFFIXES:
        words.pop()
    if not words:
        return type_name, type_name
    return words[-1], " ".join(words)


def type_nouns(type_name: str, language: str) -> list[str]:
    """Nouns that name ``type_name`` in ``language``, the preferred one first.

    The preferred noun is the one labels use ("订单12345", "order 12345").
    """
    return list(_type_nouns(type_name, language))


@functools.lru_cache(maxsize=1024)
def _type_nouns(type_name: str, language: str) -> tuple[str, ...]:
    # Cached: resolution asks for the same few types on every turn.
    return tuple(_compute_type_nouns(type_name, language))


def _compute_type_nouns(type_name: str, language: str) -> list[str]:
    if has_cjk(type_name):
        return [type_name] if language == "zh" else []
    head, phrase = type_head(type_name)
    zh, en = TYPE_NOUN_LEXICON.get(head, ((), ()))
    if language == "zh":
        return list(zh)
    if head in _AMBIGUOUS_HEADS:
        # Bare "phone"/"date"/"time" name products and moments more often than these types.
        return list(en)
    nouns = [phrase, head] if phrase != head else [head]
    return nouns + [noun for noun in en if noun not in nouns]


@functools.lru_cache(maxsize=4)
def lexicon_nouns(language: str) -> dict[str, frozenset[str]]:
    """Every lexicon noun of ``language`` mapped to the type heads it names (cached: read-only)."""
    return {noun: frozenset(heads) for noun, heads in _lexicon_nouns(language).items()}


def _lexicon_nouns(language: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for head, (zh, en) in TYPE_NOUN_LEXICON.items():
        for noun in zh if language == "zh" else (head, *en):
            found.setdefault(noun, set()).add(head)
    return found

#: English words of three letters or more that name nothing: a clarification answer sharing one
#: with a candidate's label ("the" in "the budget") does not pick that candidate.
EN_FUNCTION_WORDS = frozenset({
    "the", "and", "but", "for", "with", "about", "from", "into", "onto", "this", "that", "these", "those",
    "you", "your", "our", "his", "her", "its", "their", "not", "are", "was", "were", "one", "any", "all",
    "mean", "meant", "please", "yes",
})
