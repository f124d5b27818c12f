"""Intent scoring from each flow's trigger: keywords, example similarity, slot values.

A flow starts from evidence that the user *asks* for it, never from a value merely named
("王医生是我的邻居", "I bought a monitor and a keyboard" ask for nothing). Each flow gets three
kinds of evidence, combined as a noisy-OR (each is an independent reason to believe the flow is
meant, so two weak reasons make a stronger one, and no sum exceeds 1):

- keywords: each keyword present adds ``KEYWORD_WEIGHT``; Chinese keywords match as substrings,
  Latin ones as whole words (case-insensitive). A value one of whose aliases the author made a
  keyword counts as that keyword under any of its aliases: with the keyword "missing", "lost"
  (another alias of the value ``missing``) is one too ("my iPhone is lost"), though not said
  alone: "lost" or "裂了" by itself names a value;
- examples (the trigger's, plus each language half of the flow's description): similarity to
  the closest one, over content features (Chinese character bigrams, stemmed English words, stop
  words dropped) in which every entity mention, in the utterance and in the examples alike, is
  replaced by a placeholder of its type: "我想看医生" has nothing in common with "王医生是我的
  邻居", and "我想挂心内科" is the same request as "我想挂皮肤科". An utterance resembles an
  example only when they share a word of their own; shared placeholders then make the resemblance
  closer. Similarity is the mean of the Dice coefficient and the share of the example the
  utterance covers, so a longer utterance that contains an example still scores;
- slot values: a value of one of the flow's synonym slot types ("手机") adds ``SYNONYM_WEIGHT``,
  one of its pattern types (an order number) ``PATTERN_WEIGHT``. Values support a request; they
  are not one: without a keyword or a resembling example a flow scores at most
  ``VALUES_ALONE_CEILING``, below ``INTENT_THRESHOLD``. So does a statement ("我有两个航班 CA981
  和 MU5101", "my leave request is LV20005": ``statements``) without a keyword: the nouns of the
  things it names ("航班", "leave request") are all it shares with the examples.

Keywords are direct evidence: an author's keyword alone ("工单", "ticket") clears the threshold.
Example similarity and values are indirect: they are scaled by how much of the utterance the
flow's vocabulary explains (the Chinese characters and English stems of its examples, keywords,
description and slot aliases, and the placeholders of its slot types), so a stray shared word
stays below the threshold. Scores above ``INTENT_FLOOR`` are returned, best first; the policy
treats ``INTENT_THRESHOLD`` and above as a clear request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from dialogkit.model.interpretation import IntentScore, Mention
from dialogkit.spec.schema import BotFile, FlowSpec
from dialogkit.strings.aliases import normalise_alias
from dialogkit.strings.cjk import CJK_RUN, has_cjk
from dialogkit.understanding.entities import EntityExtractor
from dialogkit.understanding.language import LatinSplit, fold, fold_whole, may_hold_latin
from dialogkit.understanding.statements import MENTION, asks, is_statement

INTENT_THRESHOLD = 0.5
INTENT_FLOOR = 0.2
KEYWORD_WEIGHT = 0.55
SYNONYM_WEIGHT = 0.4
PATTERN_WEIGHT = 0.1
SIMILARITY_FLOOR = 0.2  # example similarity below this is noise (shared particles, "the")
VALUES_ALONE_CEILING = 0.45  # values without a keyword or a resembling example ask for nothing
_ALONE_SLACK = 12            # beyond this many characters besides a value, a turn says more than it
# What each piece of evidence leaves of the doubt, and the span of similarity above its floor:
# worked out once here, not on every flow of every turn (the same floats ``_score_flow`` made).
_KEYWORD_DOUBT = 1 - KEYWORD_WEIGHT
_SYNONYM_DOUBT = 1 - SYNONYM_WEIGHT
_PATTERN_DOUBT = 1 - PATTERN_WEIGHT
_SIMILARITY_SPAN = 1 - SIMILARITY_FLOOR

_CJK_STOP = frozenset("的了吗呢吧啊呀我你他她它们是在有个这那就都也还和与帮想要给一吗么")
_CJK_STOP_TABLE = dict.fromkeys(map(ord, _CJK_STOP))  # str.translate drops them in C
_EN_STOP = frozenset(
    {
        "a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "it", "it's", "is", "are", "was",
        "were", "be", "been", "am", "of", "to", "for", "in", "on", "at", "i", "me", "we", "you", "he", "she",
        "they", "this", "that", "these", "those", "and", "or", "but", "do", "does", "did", "please", "can",
        "could", "would", "will", "shall", "with", "from", "so", "just", "about", "have", "has", "had", "some",
        "any", "there", "what's", "whats", "i'm", "im",
    }
)
_EN_WORD = re.compile(r"[a-z][a-z']*")
_SUFFIXES = ("ing", "ed", "en", "es", "s", "e")
_STEMS = re.compile(rf"^(.{{3,}}?)(?:{'|'.join(_SUFFIXES)})$", re.MULTILINE)
"""``stem`` of each line: the shortest stem is the one ``stem`` keeps, since of the suffixes
only "es" and "s" end one word together, and "es" comes first."""


_BY_LAST = {last: tuple(s for s in _SUFFIXES if s[-1] == last) for last in {s[-1] for s in _SUFFIXES}}
"""The suffixes a word may end with, by its last letter, in ``_SUFFIXES``' order: most words end in
a letter no suffix ends in, or one suffix's, and are not tried against every suffix."""


def stem(word: str) -> str:
    """A crude English stem, enough to meet "broke"/"broken" and "arrive"/"arrived"."""
    for suffix in _BY_LAST.get(word[-1:], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


_stemmed = lru_cache(maxsize=4096)(stem)
"""``stem`` remembered: a turn's words are mostly words said before ("order", "my", "broken"), and
a hit is one lookup in C where ``stem`` runs a few lines of Python. Bounded: users' words are not."""


def placeholder(type_name: str) -> str:
    """The feature that stands for a mention of ``type_name``; no text produces it ("<" is never
    part of a Chinese run or an English word)."""
    return f"<{type_name}>"


def is_placeholder(feature: str) -> bool:
    return feature.startswith("<")


def _content(lowered: str) -> tuple[list[str], list[str]]:
    """The Chinese runs (stop characters dropped) and English stems (stop words dropped) of
    folded, lower-cased text: what both ``features`` and ``units`` are built from."""
    runs = CJK_RUN.findall(lowered)
    if runs:            # an English turn has none, a Chinese one no words: neither loop runs for nothing
        runs = [run.translate(_CJK_STOP_TABLE) for run in runs]
    words = _EN_WORD.findall(lowered)
    return runs, [_stemmed(w) for w in words if w not in _EN_STOP] if words else words


def _features_of(runs: list[str], stems: list[str]) -> set[str]:
    out = set(stems)
    for chars in runs:
        if len(chars) == 1:
            out.add(chars)
        else:           # the bigrams, paired in C
            out.update(map(str.__add__, chars[:-1], chars[1:]))
    return out


def _units_of(runs: list[str], stems: list[str]) -> set[str]:
    out = set("".join(runs))
    out.update(stems)
    return out


def _masked(folded: str, mentions: Sequence[Mention], lowered: str | None = None) -> tuple[str, set[str]]:
    """Lower-cased ``folded`` with each mention's span replaced by ``MENTION`` (neither Han nor
    [a-z]: no bigram and no word runs across it), and the placeholders of their types.

    Spans index the folded text; ``lowered`` (``folded.lower()``, when the caller has it) is cut
    instead when lower-casing kept every length, which it nearly always does ("İ" does not).
    """
    if lowered is None:
        lowered = folded.lower()
    if not mentions:
        return lowered, set()
    same = len(lowered) == len(folded)
    pieces: list[str] = []
    at = 0
    for mention in sorted(mentions, key=_start) if len(mentions) > 1 else mentions:
        if mention.start >= at:
            pieces.append((lowered if same else folded)[at : mention.start])
            at = mention.end
    pieces.append((lowered if same else folded)[at:])
    cut = MENTION.join(pieces)
    return cut if same else cut.lower(), {placeholder(m.type) for m in mentions}


def _start(mention: Mention) -> int:
    return mention.start


def features(text: str, mentions: Sequence[Mention] = ()) -> frozenset[str]:
    """Content features: Chinese character bigrams (a lone character as itself), English stems,
    and one placeholder per type of the ``mentions`` (whose text is left out)."""
    lowered, marks = _masked(fold(text), mentions)
    return frozenset(_features_of(*_content(lowered)) | marks)


def units(text: str, mentions: Sequence[Mention] = ()) -> frozenset[str]:
    """Vocabulary units: single Chinese characters, English stems, placeholders of ``mentions``."""
    lowered, marks = _masked(fold(text), mentions)
    return frozenset(_units_of(*_content(lowered)) | marks)


def units_of_words(words: Iterable[str]) -> frozenset[str]:
    """``units`` of each word, together: all words read in one scan (a space ends every run and
    word), so a catalogue of 50,000 aliases costs milliseconds; each English word stemmed once."""
    lowered = _folded(" ".join(words)).lower()
    characters = set("".join(CJK_RUN.findall(lowered))) - _CJK_STOP     # ``_units_of``, in C
    words_said = {w for w in _EN_WORD.findall(lowered) if w not in _EN_STOP}
    if not words_said:
        return frozenset(characters)
    return frozenset(characters.union(_STEMS.sub(r"\1", "\n".join(words_said)).split("\n")))   # 50,000 in one call


def _folded(text: str) -> str:
    """``fold_whole(text)``, skipped when it would change no character: folding maps each
    character on its own, so the distinct characters tell. A catalogue's aliases nearly never
    hold one to fold, and translating their megabyte took 80 ms of loading."""
    distinct = "".join(set(text))
    return text if fold_whole(distinct) == distinct else fold_whole(text)


def similarity(utterance: frozenset[str], example: frozenset[str]) -> float:
    """Mean of Dice and the share of the example covered by the utterance; 0.0 unless the two
    share a feature that is not a placeholder (naming a value of the same type is no request),
    or the example is made of placeholders alone. A value the example does not hold is extra
    detail, like any word the example lacks, but it does not count against the Dice part:
    "order 12345" asks what "where is my order" asks."""
    shared = utterance & example
    if not shared or (all(is_placeholder(f) for f in shared) and not all(is_placeholder(f) for f in example)):
        return 0.0
    extra = sum(1 for f in utterance - example if is_placeholder(f))   # values the example lacks cost nothing
    return _similarity(len(shared), len(utterance) - extra, len(example))


def _similarity(shared: int, utterance_size: int, example_size: int) -> float:
    """``similarity`` from the counts alone: the scorer already knows each example's size."""
    dice = 2 * shared / (utterance_size + example_size)
    return (dice + shared / example_size) / 2


def _keyword_pattern(keywords: Iterable[str]) -> re.Pattern[str] | None:
    """Keywords longest first, Chinese ones then Latin ones, each alternative opening with its
    first character, a Latin one checking its word edge right after it (``word_edge``).

    Every alternative opening with a character lets the regex engine look for the positions a
    keyword can start at in C (a set of first characters), where a pattern opening with a
    look-behind is tried at every position, each keyword in turn. The order of the alternatives,
    and so the longest-first choice at every position, is the plain alternation's.
    """
    chinese, latin = [], []
    for keyword in sorted(
        {k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True
    ):
        if has_cjk(keyword):
            chinese.append(r"\s+".join(re.escape(p) for p in keyword.split()))
        else:
            first, *more = keyword.split()
            rest = r"\s+".join([re.escape(first[1:]), *map(re.escape, more)])
            latin.append(f"{word_edge(keyword)}{rest}(?![a-z0-9])")
    return re.compile("|".join(chinese + latin)) if chinese or latin else None


def word_edge(word: str) -> str:
    """The first character of ``word`` as a pattern that matches only where no letter or digit
    comes before it: "order" is ``o(?<![a-z0-9]o)`` then "rder", which matches where
    ``(?<![a-z0-9])order`` does, and opens with a character the engine can look for."""
    first = re.escape(word[0])
    return f"{first}(?<![a-z0-9]{first})"


@dataclass(frozen=True, slots=True)
class _Example:
    features: frozenset[str]
    words: frozenset[str]   # the features that are not placeholders: one must be shared
    size: int               # len(features), never 0
    marks: frozenset[str]   # the placeholders among ``features`` (most examples hold none)


@dataclass(frozen=True, slots=True)
class _FlowIndex:
    name: str
    keywords: LatinSplit
    keyword_values: dict[str, tuple[str, str]]   # normalised keyword -> the (type, value) it is an alias of
    valued: frozenset[tuple[str, str]]           # those values
    examples: tuple[_Example, ...]
    words: frozenset[str]                        # every example's ``words``: one must be shared
    vocabulary: frozenset[str]
    synonym_types: frozenset[str]
    pattern_types: frozenset[str]
    value_types: frozenset[str]                  # both


Reader = Callable[[str], list[Mention]]
"""How the scorer reads an example: the mentions ``interpret`` would find in it."""


class IntentScorer:
    """Scores every flow of a bot for an utterance; all indexes are built in ``__init__``."""

    def __init__(self, spec: BotFile, extractor: EntityExtractor, read: Reader | None = None) -> None:
        self._extractor = extractor
        self._read: Reader = read or (lambda _text: [])
        self._type_units: dict[str, frozenset[str]] = {}
        keyword_values = {name: self._keyword_values(flow.trigger.keywords) for name, flow in spec.flows.items()}
        # A value the author made a keyword ("broken") is a word of a request, not a thing named:
        # it is never masked, so "my iphone broke" still meets the example "my phone arrived broken".
        self._request_words = frozenset(v for values in keyword_values.values() for v in values.values())
        self._flows = [self._index(name, flow, keyword_values[name]) for name, flow in spec.flows.items()]
        # First looks for the whole bot, so a turn that can hold no keyword or share no example
        # word ("123456", "确认", "yes": most turns inside a task) skips every flow's scan.
        every_keyword = [k for flow in spec.flows.values() for k in flow.trigger.keywords]
        self._any_keyword = LatinSplit(every_keyword, _keyword_pattern)
        # The same words, read for where they stand (``_said_outside``), not as a first look.
        self._every_keyword = LatinSplit(every_keyword, _keyword_pattern)
        self._example_words = frozenset().union(*(flow.words for flow in self._flows))

    def _index(self, name: str, flow: FlowSpec, keyword_values: dict[str, tuple[str, str]]) -> _FlowIndex:
        custom = self._extractor.custom
        slot_types = flow.value_types
        synonym_types = {t for t in slot_types if t in custom and custom[t].synonyms is not None}
        pattern_types = {t for t in slot_types if t in custom and custom[t].pattern is not None}
        # The description ("查询订单状态 / Check an order's status") is one more example per
        # language: authors write it for humans, and it often says the request plainly.
        described = [part for part in (flow.description or "").split(" / ") if part.strip()]
        read = [(text, self._maskable(self._read(text))) for text in [*flow.trigger.examples, *described]]
        examples = tuple(_example(features(text, found)) for text, found in read)
        vocabulary = {placeholder(t) for t in slot_types}
        vocabulary.update(*(units(text, found) for text, found in read))
        vocabulary.update(*(units(w) for w in [*flow.trigger.keywords, flow.description or ""]))
        for type_name in synonym_types:
            vocabulary |= self._alias_units(type_name)
        kept = tuple(e for e in examples if e.size)
        return _FlowIndex(
            name=name,
            keywords=LatinSplit(list(flow.trigger.keywords), _keyword_pattern),
            keyword_values=keyword_values,
            valued=frozenset(keyword_values.values()),
            examples=kept,
            words=frozenset().union(*(e.words for e in kept)),
            vocabulary=frozenset(vocabulary),
            synonym_types=frozenset(synonym_types),
            pattern_types=frozenset(pattern_types - synonym_types),
            value_types=frozenset(pattern_types | synonym_types),
        )

    def _alias_units(self, type_name: str) -> frozenset[str]:
        """The units of every alias of a synonym type, read once per type, not once per flow."""
        if type_name not in self._type_units:
            synonyms = self._extractor.custom[type_name].synonyms
            self._type_units[type_name] = units_of_words(synonyms.aliases() if synonyms is not None else [])
        return self._type_units[type_name]

    def _alone(self, whole: str, folded: str, mention: Mention, key: tuple[str, str]) -> bool:
        """A keyword value said alone ("裂了", "靠走道") names a value; the keyword itself is the
        author's word for the request. Only with more said ("屏幕裂了", "我要靠走道的") is the
        value one too. ``key`` is the mention's (type, value as text)."""
        if key not in self._request_words:
            return False
        if len(folded) - (mention.end - mention.start) > _ALONE_SLACK:
            return False  # that much more text says something
        rest = _masked(folded, [mention], whole)[0]
        runs, stems = _content(rest)
        return not any(runs) and not stems and not asks(rest)

    def _maskable(self, mentions: Sequence[Mention],
                  keys: Sequence[tuple[str, str]] | None = None) -> Sequence[Mention]:
        """The mentions whose text similarity leaves out: all but the values of keywords.
        ``keys`` are the mentions' (type, value as text), when the caller has made them."""
        if not self._request_words or not mentions:
            return mentions
        if keys is None:
            keys = [(m.type, str(m.value)) for m in mentions]
        request = self._request_words
        return [m for m, key in zip(mentions, keys, strict=True) if key not in request]

    def _keyword_values(self, keywords: Collection[str]) -> dict[str, tuple[str, str]]:
        """Keywords that are aliases of a declared value: the value's other aliases count too."""
        out: dict[str, tuple[str, str]] = {}
        for keyword in keywords:
            key = normalise_alias(keyword)
            for type_name, custom in self._extractor.custom.items():
                canonical = custom.synonyms.canonical.get(key) if custom.synonyms else None
                if canonical is not None:
                    out[key] = (type_name, canonical)
                    break
        return out

    def score(self, folded: str, mentions: Sequence[Mention], lowered: str | None = None) -> list[IntentScore]:
        """Flows scoring above ``INTENT_FLOOR``, best first (ties: declaration order).

        ``lowered`` is ``folded.lower()`` of text already folded, when the caller has it."""
        if lowered is None:
            folded = fold(folded)                            # a no-op on folded text
            lowered = folded.lower()
        values: AbstractSet[tuple[str, str]] = _NOTHING
        types: AbstractSet[str] = _NOTHING
        if mentions:
            keys = [(m.type, str(m.value)) for m in mentions]   # each mention's value, made once a call
            values, types = set(keys), {m.type for m in mentions}
            masked = self._maskable(mentions, keys)
        else:
            keys, masked = [], mentions
        cut, marks = _masked(folded, masked, lowered)
        runs, stems = _content(cut)                          # one pass serves both feature sets
        features = _features_of(runs, stems)
        if mentions:
            features |= marks
        latin = may_hold_latin(lowered)
        look = self._any_keyword.pattern(latin)
        keywords = look is not None and look.search(lowered) is not None
        alone = len(keys) == 1 and self._alone(lowered, folded, mentions[0], keys[0])
        # A value alone ("window", "心内科") asks for nothing, whatever it resembles. The words
        # besides the values are the runs' characters and the stems (``_units_of``).
        resembles = not alone and (bool(stems) or any(runs)) and not features.isdisjoint(self._example_words)
        flows = self._flows
        if not (keywords or resembles):
            # No keyword, no resemblance: only flows whose values can lift them to the floor are
            # scored, and a turn naming none of those (most turns inside a task) is done here.
            flows = [flow for flow in flows if not (values.isdisjoint(flow.valued) and (
                types.isdisjoint(flow.value_types) or _below_floor(flow, types)))]
            if not flows:
                return []
        content = _units_of(runs, stems)
        if mentions:
            content |= marks
        spans = _value_spans(mentions, folded, lowered) if keywords else ()
        every = self._every_keyword.pattern(latin) if spans else None
        said = every is not None and _said_outside(every, lowered, spans)
        utterance = _Utterance(lowered, latin, features, marks, content, values, types, alone, keywords, resembles,
                               spans, said)
        statement: bool | None = None                        # read only when it could matter
        scores: list[IntentScore] = []
        for flow in flows:
            value, resembles_only = _score_flow(flow, utterance)
            if resembles_only and value > VALUES_ALONE_CEILING:
                statement = is_statement(cut) if statement is None else statement
                value = VALUES_ALONE_CEILING if statement else value
            if value >= INTENT_FLOOR:
                scores.append(IntentScore(flow.name, round(value, 4)))
        return sorted(scores, key=lambda s: -s.score) if len(scores) > 1 else scores


def _below_floor(flow: _FlowIndex, types: AbstractSet[str]) -> bool:
    """With no keyword and no resemblance, whether the values of ``types`` alone cannot lift the
    flow to ``INTENT_FLOOR`` (an order number alone gives 0.1): its score need not be worked out.
    (No value of the flow's types at all gives exactly 0.0.)"""
    return types.isdisjoint(flow.synonym_types) and len(types & flow.pattern_types) < _PATTERNS_TO_FLOOR


# How many pattern values (without a synonym value) it takes to reach the floor: fewer are below
# it by a margin far above float rounding (0.19 for two, with the weights here).
_PATTERNS_TO_FLOOR = next((n for n in range(1, 100) if 1 - (1 - PATTERN_WEIGHT) ** n >= INTENT_FLOOR - 1e-9), 100)


def _example(found: frozenset[str]) -> _Example:
    """An example made of values alone ("心内科") is matched by its placeholders."""
    words = frozenset(f for f in found if not is_placeholder(f))
    return _Example(found, words or found, len(found), found - words)


_NOTHING: frozenset[Any] = frozenset()


class _Utterance(NamedTuple):
    lowered: str                             # the whole text, for keywords
    latin: bool                              # it may hold a Latin letter (``language.may_hold_latin``)
    features: set[str]                       # mentions masked, placeholders added
    marks: set[str]                          # the placeholders
    content: set[str]
    values: AbstractSet[tuple[str, str]]     # (type, canonical value as text) of every mention
    types: AbstractSet[str]                  # the types of ``values``
    alone: bool                              # one keyword value and nothing else (``_alone``)
    keywords: bool                           # some flow's keyword may be in ``lowered``
    resembles: bool                          # some example may resemble it: shares a word, says more than values
    value_spans: tuple[tuple[int, int, str], ...]  # where the bot's own values are written, and their types
    keyword_said: bool                       # some flow's keyword stands outside every value (``_said_outside``)


def _score_flow(flow: _FlowIndex, utterance: _Utterance) -> tuple[float, bool]:
    """The flow's score, and whether only example resemblance (no keyword) lifts it: then a
    statement caps it (``score``)."""
    # Direct evidence: the author's keywords, under any alias of a keyword value. Not scaled:
    # "工单" or "my iPhone is lost" is a clear request however short or long.
    hits = (_keyword_hits(flow, utterance.lowered, utterance.latin, utterance.value_spans, utterance.keyword_said)
            if utterance.keywords else set())
    types = utterance.types
    if types and flow.valued and not utterance.alone:
        valued = flow.valued.intersection(utterance.values)
        if valued:
            hits.update(valued)
            types = {t for t, _ in utterance.values - valued}
    direct = _KEYWORD_DOUBT ** len(hits)
    # Indirect evidence: resemblance to the examples, values of the flow's slot types. Scaled by
    # how much of the utterance the flow's vocabulary explains, so a stray shared word stays weak.
    resemblance = 0.0
    if utterance.resembles:
        best = _best_similarity(flow, utterance.features, utterance.marks)
        above = (best - SIMILARITY_FLOOR) / _SIMILARITY_SPAN
        resemblance = above if above > 0.0 else 0.0
    doubt = 1 - resemblance
    if types:
        doubt *= _SYNONYM_DOUBT ** len(types & flow.synonym_types)
        doubt *= _PATTERN_DOUBT ** len(types & flow.pattern_types)
    indirect = 1 - doubt
    if indirect:
        content = utterance.content
        explained = len(content & flow.vocabulary) / len(content) if content else 1.0
        indirect *= 0.5 + 0.5 * explained
    value = 1 - direct * (1 - indirect)
    if hits:
        return value, False
    if not resemblance:
        return min(value, VALUES_ALONE_CEILING), False
    return value, True


def _value_spans(mentions: Sequence[Mention], folded: str, lowered: str) -> tuple[tuple[int, int, str], ...]:
    """Where values of the bot's own types are written, with their types, when the spans index
    ``lowered`` too (``_keyword_hits``)."""
    if len(lowered) != len(folded):
        return ()
    return tuple((m.start, m.end, m.type) for m in mentions if not m.builtin)


def _keyword_hits(flow: _FlowIndex, lowered: str, latin: bool = True,
                  value_spans: Sequence[tuple[int, int, str]] = (), keyword_said: bool = False
                  ) -> set[str | tuple[str, str]]:
    """The keywords found, a keyword value as its value.

    A keyword wholly inside a longer value of a type the flow has no slot for is part of a name,
    not the author's word for a request: "酒店" in the hotel "北京JW万豪酒店" asks no hotel search
    that takes no hotel, "餐厅" in the facility "中式餐厅" no restaurant search. For a flow taking
    that value it still counts, unless a keyword is said outside every name (``keyword_said``):
    "坐地铁从秋果酒店到故宫" asks for the metro, and the hotel's name only says where from. A value
    that is a keyword itself, said as it is, always counts.
    """
    pattern = flow.keywords.pattern(latin)
    if pattern is None:
        return set()
    found: list[str] = [m.group() for m in pattern.finditer(lowered)
                        if not any((keyword_said or kind not in flow.value_types) and _inside(m, s, e)
                                   for s, e, kind in value_spans)]
    if not found or not flow.keyword_values:
        return set(found)
    return {flow.keyword_values.get(" ".join(k.split()), k) for k in found}


def _said_outside(pattern: re.Pattern[str], lowered: str, value_spans: Sequence[tuple[int, int, str]]) -> bool:
    """Whether a keyword (of ``pattern``: every flow's) stands somewhere not wholly inside a longer
    value: a word the user said for a request, not a piece of a name."""
    return any(not any(_inside(m, s, e) for s, e, _kind in value_spans) for m in pattern.finditer(lowered))


def _inside(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the keyword matched lies wholly inside the longer value at ``start:end``."""
    return start <= match.start() and match.end() <= end and end - start > match.end() - match.start()


def _best_similarity(flow: _FlowIndex, utterance: AbstractSet[str], marks: AbstractSet[str] | None = None) -> float:
    """``max(similarity(utterance, e) for e in the flow's examples)``, 0.0 when there are none.

    An example sharing no word with the utterance scores exactly 0.0, and most examples share
    none, so a C-level ``isdisjoint`` rules them out before any set is built or division done.
    (Measured on the support bot: a third of the cost of scoring every example, and cheaper than
    an inverted index from feature to examples, whose per-feature Python loop costs more.)
    """
    if marks is None:
        marks = frozenset(f for f in utterance if is_placeholder(f))
    if utterance.isdisjoint(flow.words):
        return 0.0
    size = len(utterance) - len(marks)
    best = 0.0
    for example in flow.examples:
        if utterance.isdisjoint(example.words):
            continue
        shared = len(utterance & example.features)   # ``_similarity``, written out: a call per example
        value = (2 * shared / ((size + len(marks & example.marks) if marks and example.marks else size)
                               + example.size) + shared / example.size) / 2
        if value > best:
            best = value
    return best


def example_reader(extractor: EntityExtractor, types: Collection[str], now: datetime) -> Reader:
    """Reads an example as ``interpret`` reads an utterance: the same types, overlaps resolved."""

    def read(text: str) -> list[Mention]:
        return extractor.resolve_overlaps(extractor.find(text, fold(text), types, now))

    return read
