"""Intent scoring from each flow's trigger: keywords, example similarity, slot entities.

Each flow gets three kinds of evidence, combined as a noisy-OR (each is an independent reason to
believe the flow is meant, so two weak reasons make a stronger one, and no sum exceeds 1):

- keywords: each keyword present adds ``KEYWORD_WEIGHT``; Chinese keywords match as substrings,
  Latin ones as whole words (case-insensitive);
- examples (the trigger's, plus each language half of the flow's description): similarity to
  the closest one, over content features (Chinese character bigrams,
  stemmed English words, stop words dropped): the mean of the Dice coefficient and the share of
  the example the utterance covers, so a longer utterance that contains an example still scores;
- entities: a value of one of the flow's synonym slot types ("手机", "broken") adds
  ``SYNONYM_WEIGHT``, a value of one of its pattern types (an order number) ``PATTERN_WEIGHT``.

Keywords and synonym values are direct evidence: an author's keyword alone ("工单", "ticket")
clears the threshold, and so do two values of the flow's own synonym types ("my iPhone got lost").
Example similarity and pattern values are indirect: they are scaled by how much of the utterance
the flow's vocabulary explains (the Chinese characters and English stems of its examples,
keywords, description and slot aliases), so a stray shared word stays below the threshold.
Scores above ``INTENT_FLOOR`` are returned, best first; the policy treats ``INTENT_THRESHOLD``
and above as a clear request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from dialogkit.model.interpretation import IntentScore, Mention
from dialogkit.spec.schema import BotFile
from dialogkit.strings.cjk import CJK_RUN, has_cjk
from dialogkit.understanding.entities import EntityExtractor
from dialogkit.understanding.language import fold

INTENT_THRESHOLD = 0.5
INTENT_FLOOR = 0.2
KEYWORD_WEIGHT = 0.55
SYNONYM_WEIGHT = 0.4
PATTERN_WEIGHT = 0.1
SIMILARITY_FLOOR = 0.2  # example similarity below this is noise (shared particles, "the")

_CJK_STOP = frozenset("的了吗呢吧啊呀我你他她它们是在有个这那就都也还和与请帮想要给一吗么")
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


def stem(word: str) -> str:
    """A crude English stem, enough to meet "broke"/"broken" and "arrive"/"arrived"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _content(lowered: str) -> tuple[list[str], list[str]]:
    """The Chinese runs (stop characters dropped) and English stems (stop words dropped) of
    folded, lower-cased text: what both ``features`` and ``units`` are built from."""
    runs = [run.translate(_CJK_STOP_TABLE) for run in CJK_RUN.findall(lowered)]
    stems = [stem(w) for w in _EN_WORD.findall(lowered) if w not in _EN_STOP]
    return runs, stems


def _features_of(runs: list[str], stems: list[str]) -> frozenset[str]:
    out: set[str] = set()
    for chars in runs:
        if len(chars) == 1:
            out.add(chars)
        out.update(chars[i : i + 2] for i in range(len(chars) - 1))
    out.update(stems)
    return frozenset(out)


def _units_of(runs: list[str], stems: list[str]) -> frozenset[str]:
    out = {ch for chars in runs for ch in chars}
    out.update(stems)
    return frozenset(out)


def features(text: str) -> frozenset[str]:
    """Content features: Chinese character bigrams (a lone character as itself), English stems."""
    return _features_of(*_content(fold(text).lower()))


def units(text: str) -> frozenset[str]:
    """Vocabulary units: single Chinese characters and English stems, stop words dropped."""
    return _units_of(*_content(fold(text).lower()))


def similarity(utterance: frozenset[str], example: frozenset[str]) -> float:
    """Mean of Dice and the share of the example covered by the utterance."""
    if not utterance or not example:
        return 0.0
    return _similarity(len(utterance & example), len(utterance), len(example))


def _similarity(shared: int, utterance_size: int, example_size: int) -> float:
    """``similarity`` from the counts alone: the scorer already knows each example's size."""
    dice = 2 * shared / (utterance_size + example_size)
    return (dice + shared / example_size) / 2


def _keyword_pattern(keywords: Iterable[str]) -> re.Pattern[str] | None:
    """Keywords longest first, Chinese ones then Latin ones under one shared word-edge check.

    Regrouping keeps the longest-first choice at every position (the argument is that of
    ``entities._alias_alternation``) and saves one look-behind per Latin keyword per position.
    """
    chinese, latin = [], []
    for keyword in sorted(
        {k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True
    ):
        body = r"\s+".join(re.escape(p) for p in keyword.split())
        if has_cjk(keyword):
            chinese.append(body)
        else:
            latin.append(rf"{body}(?![a-z0-9])")
    if latin:
        chinese.append(rf"(?<![a-z0-9])(?:{'|'.join(latin)})")
    return re.compile("|".join(chinese)) if chinese else None


@dataclass(frozen=True)
class _FlowIndex:
    name: str
    keywords: re.Pattern[str] | None
    examples: tuple[tuple[frozenset[str], int], ...]  # features and their count (never 0)
    vocabulary: frozenset[str]
    synonym_types: frozenset[str]
    pattern_types: frozenset[str]


class IntentScorer:
    """Scores every flow of a bot for an utterance; all indexes are built in ``__init__``."""

    def __init__(self, spec: BotFile, extractor: EntityExtractor) -> None:
        self._flows: list[_FlowIndex] = []
        for name, flow in spec.flows.items():
            trigger = flow.trigger
            slot_types = {s.entity for s in flow.slots if s.entity in extractor.custom}
            synonym_types = {t for t in slot_types if extractor.custom[t].synonyms is not None}
            pattern_types = {t for t in slot_types if extractor.custom[t].pattern is not None}
            # The description ("查询订单状态 / Check an order's status") is one more example per
            # language: authors write it for humans, and it often says the request plainly.
            described = [part for part in (flow.description or "").split(" / ") if part.strip()]
            examples = tuple(f for f in (features(e) for e in [*trigger.examples, *described]) if f)
            words = [*trigger.examples, *trigger.keywords, flow.description or ""]
            for type_name in synonym_types:
                synonyms = extractor.custom[type_name].synonyms
                words += synonyms.aliases() if synonyms is not None else []
            vocabulary = set().union(*(units(w) for w in words))
            self._flows.append(
                _FlowIndex(
                    name=name,
                    keywords=_keyword_pattern(trigger.keywords),
                    examples=tuple((e, len(e)) for e in examples),
                    vocabulary=frozenset(vocabulary),
                    synonym_types=frozenset(synonym_types),
                    pattern_types=frozenset(pattern_types - synonym_types),
                )
            )

    def score(self, folded: str, mentions: Iterable[Mention]) -> list[IntentScore]:
        """Flows scoring above ``INTENT_FLOOR``, best first (ties: declaration order)."""
        lowered = fold(folded).lower()     # ``fold`` is idempotent: a no-op on folded text
        runs, stems = _content(lowered)     # one pass serves both feature sets
        utterance = _features_of(runs, stems)
        content = _units_of(runs, stems)
        types = {m.type for m in mentions}
        scores: list[IntentScore] = []
        for flow in self._flows:
            value = self._score_flow(flow, lowered, utterance, content, types)
            if value >= INTENT_FLOOR:
                scores.append(IntentScore(flow.name, round(value, 4)))
        return sorted(scores, key=lambda s: -s.score)

    @staticmethod
    def _score_flow(
        flow: _FlowIndex,
        lowered: str,
        utterance: frozenset[str],
        content: frozenset[str],
        types: set[str],
    ) -> float:
        # Direct evidence: the author's keywords and values of the flow's own synonym types. It is
        # not scaled: "工单" or "my iPhone got lost" is a clear request however short or long.
        direct = 1.0
        if flow.keywords is not None:
            hits = set(flow.keywords.findall(lowered))  # no groups: findall yields whole matches
            direct *= (1 - KEYWORD_WEIGHT) ** len(hits)
        direct *= (1 - SYNONYM_WEIGHT) ** len(types & flow.synonym_types)
        # Indirect evidence: resemblance to the examples, values of pattern types. Scaled by how much
        # of the utterance the flow's vocabulary explains, so a stray shared word stays weak.
        doubt = 1.0
        best = _best_similarity(flow, utterance)
        doubt *= 1 - max(0.0, (best - SIMILARITY_FLOOR) / (1 - SIMILARITY_FLOOR))
        doubt *= (1 - PATTERN_WEIGHT) ** len(types & flow.pattern_types)
        indirect = 1 - doubt
        if indirect:
            explained = len(content & flow.vocabulary) / len(content) if content else 1.0
            indirect *= 0.5 + 0.5 * explained
        return 1 - direct * (1 - indirect)


def _best_similarity(flow: _FlowIndex, utterance: frozenset[str]) -> float:
    """``max(similarity(utterance, e) for e in the flow's examples)``, 0.0 when there are none.

    An example sharing no feature with the utterance scores exactly 0.0, and most examples share
    none, so a C-level ``isdisjoint`` rules them out before any set is built or division done.
    (Measured on the support bot: a third of the cost of scoring every example, and cheaper than
    an inverted index from feature to examples, whose per-feature Python loop costs more.)
    """
    size = len(utterance)
    best = 0.0
    for example, example_size in flow.examples:
        if not utterance.isdisjoint(example):
            value = _similarity(len(utterance & example), size, example_size)
            if value > best:
                best = value
    return best
